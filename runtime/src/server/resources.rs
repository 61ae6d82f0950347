//! Resources beside the tools: static text (such as a tool's `[ui]` view) and
//! resource templates whose URIs a handler reads (`resources/list`,
//! `resources/templates/list`, `resources/read`).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

use super::builder::ServerBuilder;
use super::uri_template::UriTemplate;
use crate::{BoxFuture, Context, ToolError};

/// A resource served as it is, such as the HTML view of a tool's `[ui]`.
#[derive(Debug, Clone)]
pub(super) struct StaticResource {
    pub(super) resource: Resource,
    pub(super) text: String,
}

/// A template's handler, erased: the URI and its variables in, contents out.
pub(super) type ReadHandler = Arc<
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
    pub(super) handler: ReadHandler,
}

impl ServerBuilder {
    /// Serves a text resource at `uri` (`resources/list`, `resources/read`):
    /// for a tool's `[ui]`, its HTML view with the MIME type
    /// `text/html;profile=mcp-app`.
    pub fn resource(
        mut self,
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let text = text.into();
        let mut resource = Resource::new(uri, name);
        resource.mime_type = Some(mime_type.into());
        resource.size = Some(text.len() as u64);
        self.resources.push(StaticResource { resource, text });
        self
    }

    /// Serves the resources whose URIs match `template`'s URI template
    /// (`{name}` for one path segment, `{+name}` for the rest of the URI):
    /// `resources/templates/list` shows it, and `resources/read` of a matching
    /// URI calls `handler` with the URI and its variables, percent-decoded. A
    /// static resource of the same URI wins; templates are tried in the order
    /// added.
    pub fn resource_template<F, Fut>(mut self, template: ResourceTemplate, handler: F) -> Self
    where
        F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ToolError>> + Send + 'static,
    {
        let parsed = UriTemplate::parse(&template.uri_template);
        let handler: ReadHandler = Arc::new(move |uri, vars, cx| Box::pin(handler(uri, vars, cx)));
        self.templates.push(ServedTemplate {
            template,
            parsed,
            handler,
        });
        self
    }
}
