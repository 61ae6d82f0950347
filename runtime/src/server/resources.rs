//! Resources beside the tools: static text (such as a tool's `[ui]` view) and
//! resource templates whose URIs a handler reads (`resources/list`,
//! `resources/templates/list`, `resources/read`).

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

use super::uri_template::UriTemplate;
use crate::{Context, ToolError};
use toolmetadata_core::BoxFuture;

/// A resource served as it is, such as the HTML view of a tool's `[ui]`:
/// what `resources/list` shows, and what `resources/read` answers.
#[derive(Debug, Clone)]
pub(super) struct StaticResource {
    pub(super) resource: Resource,
    pub(super) contents: ResourceContents,
}

/// A template's handler, erased: the URI and its variables in, contents out.
pub(super) type ReadFn = Arc<
    dyn Fn(
            String,
            BTreeMap<String, String>,
            Context,
        ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ToolError>>
        + Send
        + Sync,
>;

/// A resource template the server serves.
pub(super) struct ServedTemplate {
    pub(super) template: ResourceTemplate,
    /// Parsed at `build()`; `Err` keeps the reason for it.
    pub(super) parsed: Result<UriTemplate, String>,
    pub(super) handler: ReadFn,
}
