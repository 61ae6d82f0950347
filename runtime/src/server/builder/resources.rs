//! The builder's resources (feature `resources`): static ones, templates
//! and completions of a template's variables, and their checks at
//! `build()`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

use super::ServerBuilder;
use crate::server::ServerError;
use crate::server::completions::Completes;
use crate::server::resources::{ReadFn, ServedTemplate, StaticResource};
use crate::server::uri_template::UriTemplate;
use crate::{Context, ToolError};

impl ServerBuilder {
    /// Serves a text resource at `uri` (`resources/list`, `resources/read`):
    /// for a tool's `[ui]`, its HTML view with the MIME type
    /// `text/html;profile=mcp-app`.
    pub fn resource(
        self,
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let uri = uri.into();
        let mime_type = mime_type.into();
        let mut resource = Resource::new(uri.clone(), name);
        resource.mime_type = Some(mime_type.clone());
        let contents = ResourceContents::text(text, uri).with_mime_type(mime_type);
        self.static_resource(resource, contents)
    }

    /// Serves `resource` as it is (`resources/list` shows it with its
    /// description, title, icons…) and `contents`, text or base64 bytes, as
    /// `resources/read` answers it. Its size is the contents' unless the
    /// resource says one; `build()` refuses contents of another URI.
    ///
    /// ```no_run
    /// use toolmetadata::server::Server;
    /// use toolmetadata::server::rmcp::model::{Resource, ResourceContents};
    ///
    /// let logo = Resource::new("app://logo.png", "logo")
    ///     .with_description("The product's logo")
    ///     .with_mime_type("image/png");
    /// let server = Server::builder()
    ///     .static_resource(
    ///         logo,
    ///         ResourceContents::blob("iVBORw0KGgo=", "app://logo.png").with_mime_type("image/png"),
    ///     )
    ///     .build();
    /// ```
    pub fn static_resource(mut self, mut resource: Resource, contents: ResourceContents) -> Self {
        let size = match &contents {
            ResourceContents::TextResourceContents { text, .. } => Some(text.len()),
            // Base64: three bytes in every four characters.
            ResourceContents::BlobResourceContents { blob, .. } => {
                Some(blob.trim_end_matches('=').len() * 3 / 4)
            }
            _ => None,
        };
        if let (None, Some(size)) = (resource.size, size) {
            resource.size = Some(size as u64);
        }
        self.resources.push(StaticResource { resource, contents });
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
        let handler: ReadFn = Arc::new(move |uri, vars, cx| Box::pin(handler(uri, vars, cx)));
        self.templates.push(ServedTemplate {
            template,
            parsed,
            handler,
        });
        self
    }

    /// Completes variable `variable` of the resource template `uri_template`
    /// (as given to [`ServerBuilder::resource_template`]).
    pub fn complete_resource<F, Fut>(
        self,
        uri_template: impl Into<String>,
        variable: impl Into<String>,
        completer: F,
    ) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completion(
            Completes::Template {
                uri_template: uri_template.into(),
                variable: variable.into(),
            },
            completer,
        )
    }
}

/// Every template parses.
pub(super) fn check_templates(templates: &[ServedTemplate]) -> Result<(), ServerError> {
    for t in templates {
        if let Err(why) = &t.parsed {
            return Err(ServerError::build(format!("resource template {why}")));
        }
    }
    Ok(())
}

/// Whether `variable` is a variable of the template `uri_template`.
pub(super) fn has_variable(
    templates: &[ServedTemplate],
    uri_template: &str,
    variable: &str,
) -> bool {
    templates.iter().any(|t| {
        t.template.uri_template == uri_template
            && t.parsed
                .as_ref()
                .is_ok_and(|p| p.variables().any(|v| v == variable))
    })
}

/// Whether some static resource or template serves `uri`.
pub(super) fn serves(
    resources: &[StaticResource],
    templates: &[ServedTemplate],
    uri: &str,
) -> bool {
    resources.iter().any(|r| r.resource.uri == uri)
        || templates
            .iter()
            .any(|s| s.parsed.as_ref().is_ok_and(|p| p.matches(uri).is_some()))
}
