//! Skills (SEP-2640) beside the tools: a directory of skills, read by rmcp's
//! `SkillCatalog`, answers `skills/list`, `skills/get` and
//! `resources/directory/read`, and its files are resources (each `SKILL.md`
//! in `resources/list`, every file in `resources/read`).

use std::sync::Arc;

use rmcp::ErrorData;
#[cfg(feature = "skills")]
pub(super) use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{
    ConstString, GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult, ReadResourceResult,
    Resource, ServerCapabilities,
};

/// Skills per `skills/list` page.
const PAGE: usize = 50;

/// The skills a server serves: none, or one catalog.
#[derive(Default)]
pub(super) struct Skills {
    catalog: Option<Arc<SkillCatalog>>,
}

impl Skills {
    pub(super) fn new(catalog: Option<Arc<SkillCatalog>>) -> Self {
        Skills { catalog }
    }

    /// Whether a catalog is served.
    pub(super) fn served(&self) -> bool {
        self.catalog.is_some()
    }

    /// The catalog, or `-32601` for method `M` when none is served (rmcp
    /// answers so before asking, as the extension is then not declared).
    fn catalog<M: ConstString>(&self) -> Result<&SkillCatalog, ErrorData> {
        self.catalog
            .as_deref()
            .ok_or_else(ErrorData::method_not_found::<M>)
    }

    /// The extension, with `directoryRead` since the catalog reads
    /// directories. The `resources` capability it needs is declared with the
    /// server's own resources.
    pub(super) fn declare(&self, capabilities: &mut ServerCapabilities) {
        if self.served() {
            let mut settings = serde_json::Map::new();
            settings.insert("directoryRead".to_owned(), true.into());
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(rmcp::model::SKILLS_EXTENSION_ID.to_owned(), settings);
        }
    }

    /// `skills/list`: a page of [`PAGE`] skills from `cursor` (the index of
    /// the page's first skill), so that an answer, and rmcp's checks of it,
    /// stay bounded however many skills the tree holds (each has at most 512
    /// files); `-32602` for a cursor this server did not give.
    pub(super) fn list(&self, cursor: Option<&str>) -> Result<ListSkillsResult, ErrorData> {
        let mut skills = self
            .catalog::<rmcp::model::ListSkillsRequestMethod>()?
            .skills();
        let start = match cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&start| start < skills.len())
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!(
                            "skills/list: the cursor `{}` is not one this server gave",
                            toolmetadata_core::seam::shorten(cursor, 100)
                        ),
                        None,
                    )
                })?,
        };
        let end = skills.len().min(start + PAGE);
        let more = end < skills.len();
        skills.truncate(end);
        let mut page = ListSkillsResult::with_all_items(skills.split_off(start));
        page.next_cursor = more.then(|| end.to_string());
        Ok(page)
    }

    /// `skills/get`; `-32602` for a URI no skill has.
    pub(super) fn get(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        self.catalog::<rmcp::model::GetSkillRequestMethod>()?
            .get_skill(uri)
    }

    /// `resources/directory/read`; `-32602` for a URI that is not a
    /// directory inside a skill.
    pub(super) fn read_directory(
        &self,
        uri: &str,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.catalog::<rmcp::model::ReadResourceDirectoryRequestMethod>()?
            .read_resource_directory(uri)
    }

    /// The `SKILL.md` of every skill, for `resources/list`.
    pub(super) fn resources(&self) -> Vec<Resource> {
        self.catalog
            .as_deref()
            .map(SkillCatalog::resources)
            .unwrap_or_default()
    }

    /// A skill file's contents, or `None` when no skill has `uri`.
    pub(super) fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        self.catalog.as_deref()?.read_resource(uri)
    }
}

/// Without the `skills` feature no catalog exists: this stand-in has no
/// value, so the methods above need no second version.
#[cfg(not(feature = "skills"))]
pub(super) enum SkillCatalog {}

#[cfg(not(feature = "skills"))]
impl SkillCatalog {
    fn skills(&self) -> Vec<rmcp::model::Skill> {
        match *self {}
    }

    fn get_skill(&self, _uri: &str) -> Result<GetSkillResult, ErrorData> {
        match *self {}
    }

    fn read_resource_directory(
        &self,
        _uri: &str,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        match *self {}
    }

    fn resources(&self) -> Vec<Resource> {
        match *self {}
    }

    fn read_resource(&self, _uri: &str) -> Option<ReadResourceResult> {
        match *self {}
    }
}
