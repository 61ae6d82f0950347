//! The builder's resources, prompts and completions, and their checks at
//! `build()`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{GetPromptResult, Prompt, Resource, ResourceContents, ResourceTemplate, Tool};
use serde_json::{Map, Value};

use super::ServerBuilder;
use crate::server::ServerError;
use crate::server::prompts::{Completer, Completes, PromptFn, ServedCompletion, ServedPrompt};
use crate::server::resources::{ReadFn, ServedTemplate, StaticResource};
use crate::server::served::Served;
#[cfg(feature = "skills")]
use crate::server::skills::SkillCatalog;
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
}

impl ServerBuilder {
    /// Serves the skills of `catalog` (SEP-2640, the
    /// `io.modelcontextprotocol/skills` extension, declared with
    /// `directoryRead`): `skills/list`, `skills/get`,
    /// `resources/directory/read`, each skill's `SKILL.md` in
    /// `resources/list`, and every file of a skill in `resources/read`. A
    /// static resource of the same URI wins over a skill's file, which wins
    /// over a template.
    ///
    /// The catalog is rmcp's: a snapshot of a directory tree in memory (reads
    /// never touch the disk), each folder holding a `SKILL.md` a skill. It
    /// opens nothing through a symbolic link, and skips a whole skill that
    /// holds one, a hidden entry, and a skill of over 512 files or 16 MiB; a
    /// hard link inside the tree is an ordinary file, whatever it shares its
    /// contents with. `skills/list` answers 50 skills a page (a skill's
    /// manifest lists up to 512 files); `resources/list` lists every
    /// `SKILL.md`.
    ///
    /// Keep the `Arc` to
    /// [`reload`](crate::server::rmcp::handler::server::skill_catalog::SkillCatalog::reload)
    /// it, outside async workers (`spawn_blocking`: it reads the tree with
    /// blocking I/O); the server serves what it holds at each request, each
    /// instance behind a balancer its own. No notification tells clients: on
    /// 2026-07-28 they keep lists for the server's
    /// [`list_ttl`](Self::list_ttl). A skill's files cannot be subscribed to.
    /// A second call replaces the first catalog. Feature `skills`.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use toolmetadata::server::Server;
    /// use toolmetadata::server::rmcp::handler::server::skill_catalog::SkillCatalog;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skills = Arc::new(SkillCatalog::from_dir("skills")?);
    /// let server = Server::builder().skills(skills).build()?;
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "skills")]
    pub fn skills(mut self, catalog: Arc<SkillCatalog>) -> Self {
        self.skills = Some(catalog);
        self
    }
}

impl ServerBuilder {
    /// Serves a prompt: `prompts/list` shows `prompt`, `prompts/get` calls
    /// `handler` with the arguments once every required one is given.
    ///
    /// ```no_run
    /// use toolmetadata::server::Server;
    /// use toolmetadata::server::rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
    ///
    /// let server = Server::builder()
    ///     .prompt(
    ///         Prompt::new("review", Some("Review a file"), Some(vec![
    ///             PromptArgument::new("path").with_required(true),
    ///         ])),
    ///         |args, _cx| async move {
    ///             let path = args.get("path").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
    ///             Ok(GetPromptResult::new(vec![PromptMessage::new_text(
    ///                 Role::User,
    ///                 format!("Review {path}"),
    ///             )]))
    ///         },
    ///     )
    ///     .build();
    /// ```
    pub fn prompt<F, Fut>(mut self, prompt: Prompt, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ToolError>> + Send + 'static,
    {
        let handler: PromptFn = Arc::new(move |args, cx| Box::pin(handler(args, cx)));
        self.prompts.push(ServedPrompt { prompt, handler });
        self
    }

    /// Completes argument `argument` of prompt `prompt`: `completer` gets what
    /// the person typed so far and suggests values (at most 100 are sent).
    pub fn complete_prompt<F, Fut>(
        self,
        prompt: impl Into<String>,
        argument: impl Into<String>,
        completer: F,
    ) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completion(
            Completes::Prompt {
                name: prompt.into(),
                argument: argument.into(),
            },
            completer,
        )
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

    fn completion<F, Fut>(mut self, completes: Completes, completer: F) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        let completer: Completer = Arc::new(move |typed, cx| Box::pin(completer(typed, cx)));
        self.completions.push(ServedCompletion {
            completes,
            completer,
        });
        self
    }
}

/// Prompt names are unique, templates parse, and each completion completes
/// an argument or variable that exists.
pub(super) fn check_extras(
    prompts: &[ServedPrompt],
    templates: &[ServedTemplate],
    completions: &[ServedCompletion],
) -> Result<(), ServerError> {
    for (i, p) in prompts.iter().enumerate() {
        if prompts[..i].iter().any(|q| q.prompt.name == p.prompt.name) {
            return Err(ServerError::build(format!(
                "two prompts are named `{}`",
                p.prompt.name
            )));
        }
    }
    for t in templates {
        if let Err(why) = &t.parsed {
            return Err(ServerError::build(format!("resource template {why}")));
        }
    }
    for c in completions {
        let found = match &c.completes {
            Completes::Prompt { name, argument } => prompts.iter().any(|p| {
                &p.prompt.name == name
                    && p.prompt
                        .arguments
                        .iter()
                        .flatten()
                        .any(|a| &a.name == argument)
            }),
            Completes::Template {
                uri_template,
                variable,
            } => templates.iter().any(|t| {
                &t.template.uri_template == uri_template
                    && t.parsed
                        .as_ref()
                        .is_ok_and(|p| p.variables().any(|v| v == variable))
            }),
        };
        if !found {
            return Err(ServerError::build(format!(
                "a completion completes {:?}, which the server does not serve",
                c.completes
            )));
        }
    }
    Ok(())
}

/// The MIME type MCP Apps (SEP-1865) requires of a view. Hosts compare it as a
/// string (the ext-apps SDK's `RESOURCE_MIME_TYPE`), so no other spelling of
/// the same media type is accepted.
const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Every view a tool links (`_meta.ui.resourceUri`) is served, by a static
/// resource or a template, and every static `ui://` resource has the MIME type
/// hosts render. Without this a host shows the tool's result with a view it
/// cannot fetch, or refuses the view, and nothing says why before a person
/// opens it.
pub(super) fn check_views(
    tools: &[Served],
    resources: &[StaticResource],
    templates: &[ServedTemplate],
) -> Result<(), ServerError> {
    for r in resources {
        let uri = &r.resource.uri;
        let of = match &r.contents {
            ResourceContents::TextResourceContents { uri, .. }
            | ResourceContents::BlobResourceContents { uri, .. } => Some(uri),
            _ => None,
        };
        if let Some(of) = of
            && of != uri
        {
            return Err(ServerError::build(format!(
                "the resource {uri} is served with the contents of {of}: give it its own URI"
            )));
        }
        if uri.starts_with("ui://") && r.resource.mime_type.as_deref() != Some(MCP_APP_MIME_TYPE) {
            return Err(ServerError::build(format!(
                "the resource {uri} is a view (ui://) but its MIME type is {}, not `{MCP_APP_MIME_TYPE}`",
                r.resource
                    .mime_type
                    .as_deref()
                    .map_or_else(|| "missing".to_owned(), |m| format!("`{m}`"))
            )));
        }
    }
    for t in tools {
        let Some(uri) = view_uri(&t.tool) else {
            continue;
        };
        let served = resources.iter().any(|r| r.resource.uri == uri)
            || templates
                .iter()
                .any(|s| s.parsed.as_ref().is_ok_and(|p| p.matches(uri).is_some()));
        if !served {
            return Err(ServerError::build(format!(
                "the tool `{}` links the view {uri}, but the server serves no resource {uri} \
                 (add it with ServerBuilder::resource)",
                t.tool.name
            )));
        }
    }
    Ok(())
}

/// The `ui://` view a tool links: `_meta.ui.resourceUri`, or the older flat
/// key `_meta["ui/resourceUri"]` that hosts still read.
fn view_uri(tool: &Tool) -> Option<&str> {
    let meta = &tool.meta.as_ref()?.0;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(serde_json::Value::as_str)
        .filter(|uri| uri.starts_with("ui://"))
}
