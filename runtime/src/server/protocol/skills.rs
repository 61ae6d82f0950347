//! Skills (SEP-2640) as the server serves them: listed with cache hints, read as resources.

use rmcp::ErrorData;
use rmcp::model::{
    GetSkillResult, ListSkillsResult, PaginatedRequestParams, ReadResourceResult, Resource,
};
use rmcp::service::{RequestContext, RoleServer};

impl crate::server::Server {
    /// `skills/list`, a page with the server's list hints.
    pub(in crate::server) fn serve_list_skills(
        &self,
        request: Option<&PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor.as_deref());
        let mut page = self.inner.skills.list(cursor)?;
        if let Some((ttl_ms, scope)) = self.list_hints(context) {
            (page.ttl_ms, page.cache_scope) = (Some(ttl_ms), Some(scope));
        }
        Ok(page)
    }

    /// `skills/get`, with the server's list hints.
    pub(in crate::server) fn serve_get_skill(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let mut found = self.inner.skills.get(uri)?;
        if let Some((ttl_ms, scope)) = self.list_hints(context) {
            found = found.with_ttl_ms(ttl_ms).with_cache_scope(scope);
        }
        Ok(found)
    }

    /// Whether the server serves skills.
    pub(in crate::server) fn serves_skills(&self) -> bool {
        self.inner.skills.served()
    }

    /// The `SKILL.md` resources for `resources/list`, but those a static
    /// resource of the same URI shadows (`resources/read` answers with it).
    pub(in crate::server) fn skill_resources(&self) -> Vec<Resource> {
        #[cfg_attr(not(feature = "resources"), expect(unused_mut))]
        let mut listed = self.inner.skills.resources();
        #[cfg(feature = "resources")]
        listed.retain(|skill| {
            !self
                .inner
                .resources
                .iter()
                .any(|r| r.resource.uri == skill.uri)
        });
        listed
    }

    /// A skill's file for `resources/read`, or `None` when no skill has `uri`.
    pub(in crate::server) fn read_skill_file(&self, uri: &str) -> Option<ReadResourceResult> {
        self.inner.skills.read(uri)
    }
}
