//! Which of the catalog's tools are enabled: those the server was built
//! with, until `Server::enable_tool` and `Server::disable_tool` (on this
//! instance or, through a shared store, on another) change them. A
//! disabled tool is neither listed, found, searched nor called.

/// The tools enabled at one moment, and the tags of the lists they make.
pub(super) struct Enabled {
    /// By the tool's place in the catalog.
    pub(super) on: Vec<bool>,
    /// The tags of the two lists a caller who may see every tool gets
    /// (without and with `show_all`).
    pub(super) whole_tags: [String; 2],
    /// The same for each group, by its place.
    pub(super) group_tags: Vec<[String; 2]>,
}

impl Enabled {
    /// `on`, its tags not yet computed.
    pub(super) fn untagged(on: Vec<bool>) -> Enabled {
        Enabled {
            on,
            whole_tags: Default::default(),
            group_tags: Vec::new(),
        }
    }

    /// Whether the tool at `index` is enabled.
    pub(super) fn is_on(&self, index: usize) -> bool {
        self.on.get(index).copied().unwrap_or(false)
    }
}
