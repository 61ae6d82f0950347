//! Tool groups (`toolGroups`): a group is a named set of the catalog's
//! tools, served at `<endpoint>/<group>` with its own `tools/list`; a
//! request sees one `Scope`, the whole catalog or one group.

use std::collections::BTreeMap;

use crate::server::served::Served;

/// One group.
pub(in crate::server) struct Group {
    pub(in crate::server) name: String,
    /// Its tools' places in the catalog, ascending.
    pub(super) members: Vec<usize>,
    /// Some of its tools is discoverable: the group lists the meta-tools
    /// and `tool_search` searches its tools.
    pub(super) discovery: bool,
}

/// The groups `tools` (sorted as the catalog holds them) name, by name.
pub(super) fn groups_of(tools: &[Served]) -> Vec<Group> {
    let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, tool) in tools.iter().enumerate() {
        for group in &tool.groups {
            members.entry(group).or_default().push(index);
        }
    }
    members
        .into_iter()
        .map(|(name, members)| Group {
            name: name.to_owned(),
            discovery: members.iter().any(|&i| tools[i].discoverable),
            members,
        })
        .collect()
}

impl Group {
    /// Whether the tool at `index` is in the group.
    pub(super) fn holds(&self, index: usize) -> bool {
        self.members.binary_search(&index).is_ok()
    }
}
