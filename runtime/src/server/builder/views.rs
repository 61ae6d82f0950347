//! The views tools link (`[ui]`, MCP Apps): each served, as a resource of
//! the MIME type hosts render (feature `resources`).

use rmcp::model::Tool;

use crate::server::ServerError;
#[cfg(feature = "resources")]
use crate::server::resources::{ServedTemplate, StaticResource};
use crate::server::served::Served;
#[cfg(feature = "resources")]
use rmcp::model::ResourceContents;

#[cfg(feature = "resources")]
/// The MIME type MCP Apps (SEP-1865) requires of a view. Hosts compare it as a
/// string (the ext-apps SDK's `RESOURCE_MIME_TYPE`), so no other spelling of
/// the same media type is accepted.
const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Every view a tool links (`_meta.ui.resourceUri`) is served, by a static
/// resource or a template, and every static `ui://` resource has the MIME type
/// hosts render. Without this a host shows the tool's result with a view it
/// cannot fetch, or refuses the view, and nothing says why before a person
/// opens it.
#[cfg(feature = "resources")]
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
        if !super::resources::serves(resources, templates, uri) {
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

/// Without `resources` no view is served: a tool that links one is refused,
/// naming the feature, rather than shown with a view no host can fetch.
#[cfg(not(feature = "resources"))]
pub(super) fn check_views(tools: &[Served]) -> Result<(), ServerError> {
    match tools
        .iter()
        .find_map(|t| Some((&t.tool.name, view_uri(&t.tool)?)))
    {
        Some((name, uri)) => Err(ServerError::build(format!(
            "the tool `{name}` links the view {uri}, which needs toolmetadata's feature `resources` to be served: add \"resources\" to toolmetadata's features"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::ToolMetadata;
    use crate::metadata::UiMeta;
    use crate::server::Server;

    /// A tool that links a view the server does not serve is refused: with
    /// `resources`, saying which resource to add; without, naming the
    /// feature that serves views.
    #[test]
    fn an_unserved_view_is_refused() {
        let tool = ToolMetadata {
            name: "chart".into(),
            description: "d".into(),
            ui: Some(UiMeta {
                resource_uri: Some("ui://chart/main".into()),
                ..UiMeta::default()
            }),
            ..ToolMetadata::default()
        };
        let refused = Server::builder()
            .tool(tool, |_, _| async { Ok("ok") })
            .build()
            .map(drop)
            .unwrap_err()
            .to_string();
        let says = if cfg!(feature = "resources") {
            "serves no resource ui://chart/main"
        } else {
            "feature `resources`"
        };
        assert!(refused.contains(says), "{refused}");
    }
}
