//! The group a request's path names: `<endpoint>/<group>` serves the
//! group's tools only (FORMAT.md "Tool groups").

use crate::server::Server;
use crate::server::scope::Scope;

/// What the request at `path` sees of `server`'s tools: `/mcp` every tool,
/// `/mcp/<group>` the group's; beneath `/mcp` anything else is not found
/// (what to say: the groups there are).
pub(super) fn scope_of(server: &Server, path: &str) -> Result<Scope, String> {
    let Some(rest) = path.strip_prefix("/mcp") else {
        return Ok(Scope::Whole);
    };
    // Exactly `/mcp`, `/mcp/`, `/mcp/<group>` or `/mcp/<group>/`: no other
    // spelling (`/mcp//read`, `/mcp/./read`) reaches a group, so that a
    // proxy's rule for a path is the rule for its group.
    if rest.is_empty() || rest == "/" {
        return Ok(Scope::Whole);
    }
    let segment = rest.strip_prefix('/').unwrap_or("");
    let segment = segment.strip_suffix('/').unwrap_or(segment);
    let catalog = &server.inner.catalog;
    match catalog.group(segment) {
        Some(scope) if !segment.is_empty() => Ok(scope),
        _ => {
            let names: Vec<&str> = catalog.groups().iter().map(|g| g.name.as_str()).collect();
            let there = if names.is_empty() {
                "this server has no groups".to_owned()
            } else {
                format!(
                    "its groups are served at /mcp/<group>: {}",
                    names.join(", ")
                )
            };
            let shown = toolmetadata_core::seam::shorten(&segment.escape_debug().to_string(), 100);
            Err(format!(
                "Not Found: no group `{shown}` at this endpoint ({there})"
            ))
        }
    }
}
