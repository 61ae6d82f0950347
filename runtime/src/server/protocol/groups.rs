//! Tool groups on the wire: the group a request was sent to (over HTTP,
//! `<endpoint>/<group>`, which `http` puts in the request's extensions),
//! and MCP Toolbox's groups extension (`com.google.cloud/toolbox.v1`):
//! `groups/list` and `groups/get`, for a client that declares it.

use rmcp::ErrorData;
use rmcp::model::{CustomRequest, ErrorCode, JsonObject, ServerCapabilities};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::server::Server;
use crate::server::catalog::{LIST_TAG_META, Scope};
use crate::server::policy::access::Caller;

/// The extension's identifier, in both sides' `capabilities.extensions`.
pub(crate) const GROUPS_EXTENSION_ID: &str = "com.google.cloud/toolbox.v1";

/// `groups/list`.
pub(in crate::server) const LIST: &str = "groups/list";
/// `groups/get`.
pub(in crate::server) const GET: &str = "groups/get";

impl Server {
    /// The tools `context`'s request sees: over HTTP the group its path
    /// names, otherwise every tool the server serves.
    pub(in crate::server) fn scope(&self, context: &RequestContext<RoleServer>) -> Scope {
        #[cfg(feature = "http")]
        if let Some(scope) = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Scope>())
        {
            return *scope;
        }
        let _ = context;
        Scope::Whole
    }

    /// The instructions a client in `scope` is given: discovery's told only
    /// where there are discoverable tools to find.
    pub(in crate::server) fn instructions_for(&self, scope: Scope) -> Option<String> {
        if self.inner.catalog.discovery_in(scope) {
            self.inner.instructions.clone()
        } else {
            self.inner.plain_instructions.clone()
        }
    }

    /// Declares the extension when some tool is in a group.
    pub(in crate::server) fn declare_groups(&self, capabilities: &mut ServerCapabilities) {
        if !self.inner.catalog.groups().is_empty() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(GROUPS_EXTENSION_ID.to_owned(), JsonObject::new());
        }
    }

    /// The answer to `request` when it is one of the extension's methods
    /// (`None` otherwise): for a client that declared the extension; to
    /// any other, the methods do not exist.
    pub(in crate::server) fn serve_groups(
        &self,
        request: &CustomRequest,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<Value, ErrorData>> {
        let method = request.method.as_str();
        if method != LIST && method != GET {
            return None;
        }
        let declared = context
            .client_capabilities()
            .and_then(|c| c.extensions)
            .is_some_and(|e| e.contains_key(GROUPS_EXTENSION_ID));
        if !declared || self.inner.catalog.groups().is_empty() {
            return Some(Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                method.to_owned(),
                None,
            )));
        }
        let caller = Caller::of(context);
        let answer = if method == LIST {
            Ok(self.groups_list(&caller))
        } else {
            self.groups_get(request, context, &caller)
        };
        Some(answer.map(|mut answer| {
            // The hints a list answer carries, on 2026-07-28 requests.
            if let Some((ttl_ms, scope)) = self.tool_list_hints(context, &caller) {
                answer["ttlMs"] = json!(ttl_ms);
                answer["cacheScope"] = json!(scope);
            }
            answer
        }))
    }

    /// `groups/list`: every group the caller may see a tool of, by name.
    fn groups_list(&self, caller: &Caller<'_>) -> Value {
        let catalog = &self.inner.catalog;
        let groups: Vec<Value> = catalog
            .groups()
            .iter()
            .enumerate()
            .filter(|(g, _)| catalog.members(*g).any(|t| caller.permits(&t.scopes)))
            .map(|(_, group)| json!({"name": group.name}))
            .collect();
        json!({ "groups": groups })
    }

    /// `groups/get`: one group's tools, as its endpoint's `tools/list`
    /// shows them to the caller. Over HTTP a 2026-07-28 request names the
    /// group in `Mcp-Name` too, and the two must agree.
    fn groups_get(
        &self,
        request: &CustomRequest,
        context: &RequestContext<RoleServer>,
        caller: &Caller<'_>,
    ) -> Result<Value, ErrorData> {
        let name = request
            .params
            .as_ref()
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ErrorData::invalid_params("groups/get: `name` (the group) is required", None)
            })?;
        mcp_name_agrees(name, context)?;
        let catalog = &self.inner.catalog;
        let Some(scope) = catalog.group(name) else {
            let names: Vec<&str> = catalog.groups().iter().map(|g| g.name.as_str()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "groups/get: there is no group `{}` (the groups: {})",
                    toolmetadata_core::seam::shorten(name, 100),
                    names.join(", ")
                ),
                None,
            ));
        };
        let (tools, tag) = catalog.listing(self.shows_all(context), caller, scope);
        let mut answer = json!({
            "name": name,
            "tools": tools,
            "_meta": { LIST_TAG_META: tag },
        });
        // The entries whole, as the group's `tools/list` sends them.
        self.inner.list_extras.patch_result(&mut answer);
        Ok(answer)
    }
}

/// Over HTTP, a 2026-07-28 request's `Mcp-Name` header is the group it
/// gets (`-32020` when it is missing, given twice or names another; a group
/// name needs none of rmcp's Base64 encoding of header values).
fn mcp_name_agrees(name: &str, context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<axum::http::request::Parts>()
        && crate::server::generation::Generation::of(context)
            == crate::server::generation::Generation::Stateless
    {
        let mut headers = parts.headers.get_all("mcp-name").iter();
        let header = headers.next().and_then(|v| v.to_str().ok());
        if header != Some(name) || headers.next().is_some() {
            return Err(ErrorData::new(
                ErrorCode::HEADER_MISMATCH,
                format!(
                    "groups/get: the Mcp-Name header must name the group `{}`",
                    toolmetadata_core::seam::shorten(name, 100)
                ),
                None,
            ));
        }
    }
    let _ = (name, context);
    Ok(())
}
