//! The tools a server serves, in one place: found by name (the discovery
//! meta-tools too, as entries of their own), listed for a caller, their
//! scopes, and searched (discovery mode's `tool_search`), each within what
//! the request sees of them: the whole catalog or one `group`.

mod group;

pub(super) use super::scope::Scope;
pub(super) use group::Group;

use std::collections::{BTreeMap, BTreeSet};

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Map, Value, json};

use super::ServerError;
use super::discovery::{self, Candidate};
use super::policy::access::Caller;
use super::served::Served;
use crate::metadata::TaskSupport;
use crate::metadata::group::group_name_problem;

/// The `_meta` key of a listed tool's fingerprint: `sha256:` and the digest
/// of its rendered entry in canonical JSON, as its catalog lock records it.
pub(super) const FINGERPRINT_META: &str = "io.toolmetadata/fingerprint";

/// The `_meta` key of a listed tool's `toolVersion`.
pub(super) const VERSION_META: &str = "io.toolmetadata/version";

/// The `_meta` key of a `tools/list` answer's tag: one fingerprint of the
/// tools listed, the same on every instance serving the same catalog to
/// the same caller, and the HTTP `ETag` of a 2026-07-28 answer.
pub(super) const LIST_TAG_META: &str = "io.toolmetadata/etag";

/// The tag of a list of `tools` (see [`LIST_TAG_META`]): a fingerprint of
/// their fingerprints and versions, in order.
fn list_tag(tools: &[Tool]) -> String {
    let identities: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let meta = tool.meta.as_ref();
            let fingerprint = meta
                .and_then(|m| m.0.get(FINGERPRINT_META).cloned())
                .unwrap_or_else(|| {
                    // The server's own tools (`tool_search`): their JSON.
                    Value::String(crate::fingerprint::fingerprint(
                        &serde_json::to_value(tool).unwrap_or(Value::Null),
                    ))
                });
            let version = meta
                .and_then(|m| m.0.get(VERSION_META).cloned())
                .unwrap_or(Value::Null);
            Value::Array(vec![fingerprint, version])
        })
        .collect();
    crate::fingerprint::fingerprint(&Value::Array(identities))
}

/// The served tools.
pub(super) struct Catalog {
    /// Sorted by name.
    tools: Vec<Served>,
    by_name: BTreeMap<String, usize>,
    /// `tool_search` and `execute_tool`, when some tool is discoverable.
    meta: Vec<Tool>,
    /// The server lists discoverable tools too (`ServerBuilder::show_all`).
    show_all: bool,
    /// The tags of the two lists a caller who may see every tool gets
    /// (without and with `show_all`), computed once: most callers get one
    /// of them, and a tag per request fingerprints the whole list again.
    whole_tags: [String; 2],
    /// The groups the tools name, sorted by name.
    groups: Vec<Group>,
}

/// What a name is in the catalog.
#[derive(Clone, Copy)]
pub(super) enum Entry<'a> {
    /// A tool, and its place.
    Tool(usize, &'a Served),
    /// `tool_search`.
    Search,
    /// `execute_tool`.
    Execute,
}

impl Catalog {
    /// The catalog of `tools`; an error when two share a name, or when a tool
    /// takes a meta-tool's name while some tool is discoverable.
    pub(super) fn new(mut tools: Vec<Served>, show_all: bool) -> Result<Self, ServerError> {
        tools.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
        for pair in tools.windows(2) {
            if pair[0].tool.name == pair[1].tool.name {
                return Err(ServerError::build(format!(
                    "two tools are named `{}`",
                    pair[0].tool.name
                )));
            }
        }
        let discovery = tools.iter().any(|t| t.discoverable);
        if discovery
            && let Some(t) = tools.iter().find(|t| {
                t.tool.name == discovery::TOOL_SEARCH || t.tool.name == discovery::EXECUTE_TOOL
            })
        {
            return Err(ServerError::build(format!(
                "the tool `{}` has the name of a discovery meta-tool",
                t.tool.name
            )));
        }
        let meta = if discovery {
            discovery::meta_tool_entries()
                .into_iter()
                .map(|v| {
                    serde_json::from_value::<Tool>(v).map_err(|e| ServerError::build(e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        // Run-time metadata was checked when read, but a `Served` may come
        // from elsewhere: a group is a path segment, or no group.
        for tool in &tools {
            if let Some((group, why)) = tool
                .groups
                .iter()
                .find_map(|g| Some((g, group_name_problem(g)?)))
            {
                return Err(ServerError::build(format!(
                    "the tool `{}` names the group `{group}`, which cannot name an endpoint: {why}",
                    tool.tool.name
                )));
            }
        }
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.tool.name.to_string(), i))
            .collect();
        let groups = group::groups_of(&tools);
        let mut catalog = Catalog {
            tools,
            by_name,
            meta,
            show_all,
            whole_tags: Default::default(),
            groups,
        };
        catalog.whole_tags =
            [false, true].map(|all| list_tag(&catalog.list(all, |_| true, Scope::Whole)));
        for g in 0..catalog.groups.len() {
            let tags =
                [false, true].map(|all| list_tag(&catalog.list(all, |_| true, Scope::Group(g))));
            catalog.groups[g].whole_tags = tags;
        }
        Ok(catalog)
    }

    /// The groups, sorted by name.
    pub(super) fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The scope of the group called `name`, if there is one.
    pub(super) fn group(&self, name: &str) -> Option<Scope> {
        self.groups
            .binary_search_by(|g| g.name.as_str().cmp(name))
            .ok()
            .map(Scope::Group)
    }

    /// The tools of the group at `group` (its place), sorted by name.
    pub(super) fn members(&self, group: usize) -> impl Iterator<Item = &Served> {
        self.groups[group].members.iter().map(|&i| &self.tools[i])
    }

    /// Whether the tool at `index` is seen in `scope`.
    fn in_scope(&self, index: usize, scope: Scope) -> bool {
        match scope {
            Scope::Whole => true,
            Scope::Group(g) => self.groups[g].holds(index),
        }
    }

    /// Whether `scope` lists the meta-tools: some of its tools is
    /// discoverable.
    pub(super) fn discovery_in(&self, scope: Scope) -> bool {
        match scope {
            Scope::Whole => self.discovery(),
            Scope::Group(g) => self.groups[g].discovery,
        }
    }

    /// Whether discovery mode is on (some tool is discoverable).
    pub(super) fn discovery(&self) -> bool {
        !self.meta.is_empty()
    }

    /// The server lists every tool, discoverable ones too.
    pub(super) fn shows_all(&self) -> bool {
        self.show_all
    }

    /// The tools, sorted by name (meta-tools aside).
    pub(super) fn served(&self) -> &[Served] {
        &self.tools
    }

    /// How many tools (meta-tools aside).
    pub(super) fn len(&self) -> usize {
        self.tools.len()
    }

    /// What `name` is in `scope`: a tool, a meta-tool (in discovery mode),
    /// or nothing (a tool of another group among them).
    pub(super) fn find(&self, name: &str, scope: Scope) -> Option<Entry<'_>> {
        if let Some(&index) = self.by_name.get(name) {
            return self
                .in_scope(index, scope)
                .then(|| Entry::Tool(index, &self.tools[index]));
        }
        match name {
            discovery::TOOL_SEARCH if self.discovery_in(scope) => Some(Entry::Search),
            discovery::EXECUTE_TOOL if self.discovery_in(scope) => Some(Entry::Execute),
            _ => None,
        }
    }

    /// The tool at `index` (from [`Catalog::find`]).
    pub(super) fn tool(&self, index: usize) -> &Served {
        &self.tools[index]
    }

    /// The `tools/list` entry of `name`, a tool or a meta-tool.
    pub(super) fn entry(&self, name: &str) -> Option<Tool> {
        match self.find(name, Scope::Whole)? {
            Entry::Tool(_, served) => Some(served.tool.clone()),
            Entry::Search | Entry::Execute => self.meta.iter().find(|t| t.name == name).cloned(),
        }
    }

    /// The tools a `tools/list` in `scope` shows `caller`: every
    /// non-discoverable tool, plus the meta-tools in discovery mode; or
    /// every tool with `show_all`. A tool whose scopes the caller lacks is
    /// not there.
    pub(super) fn listed(&self, show_all: bool, caller: &Caller<'_>, scope: Scope) -> Vec<Tool> {
        self.list(show_all, |t| caller.permits(&t.scopes), scope)
    }

    /// A `tools/list` answer's tools for `caller` in `scope` (as
    /// [`Catalog::listed`]) and their tag (see [`LIST_TAG_META`]).
    pub(super) fn listing(
        &self,
        show_all: bool,
        caller: &Caller<'_>,
        scope: Scope,
    ) -> (Vec<Tool>, String) {
        let tools = self.listed(show_all, caller, scope);
        // The whole list when nothing it would show is hidden from the
        // caller (a discoverable tool is not shown without `show_all`).
        let shows_all = show_all || !self.discovery_in(scope);
        let whole = self
            .scoped(scope)
            .filter(|(_, t)| shows_all || !t.discoverable)
            .all(|(_, t)| caller.permits(&t.scopes));
        let tags = match scope {
            Scope::Whole => &self.whole_tags,
            Scope::Group(g) => &self.groups[g].whole_tags,
        };
        let tag = if whole {
            tags[usize::from(show_all)].clone()
        } else {
            list_tag(&tools)
        };
        (tools, tag)
    }

    /// The tools of `scope`, with their places.
    fn scoped(&self, scope: Scope) -> impl Iterator<Item = (usize, &Served)> {
        self.tools
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.in_scope(*i, scope))
    }

    /// The tools listed in `scope`, of those `permitted`.
    fn list(&self, show_all: bool, permitted: impl Fn(&Served) -> bool, scope: Scope) -> Vec<Tool> {
        let permitted = self.scoped(scope).map(|(_, t)| t).filter(|t| permitted(t));
        if show_all || !self.discovery_in(scope) {
            return permitted.map(|t| t.tool.clone()).collect();
        }
        let mut listed: Vec<Tool> = permitted
            .filter(|t| !t.discoverable)
            .map(|t| t.tool.clone())
            .chain(self.meta.iter().cloned())
            .collect();
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        listed
    }

    /// The scopes a tool of `scope` needs (empty for a tool that needs
    /// none); `None` for a name that is not a tool there (meta-tools
    /// included).
    #[cfg(feature = "http")]
    pub(super) fn scopes(&self, name: &str, scope: Scope) -> Option<&[String]> {
        let &index = self.by_name.get(name)?;
        self.in_scope(index, scope)
            .then(|| self.tools[index].scopes.as_slice())
    }

    /// Every scope some tool needs, sorted, once each.
    pub(super) fn all_scopes(&self) -> Vec<String> {
        let scopes: BTreeSet<&String> = self.tools.iter().flat_map(|t| &t.scopes).collect();
        scopes.into_iter().cloned().collect()
    }

    /// True when some tool may run as a task.
    pub(super) fn runs_tasks(&self) -> bool {
        self.tools.iter().any(|t| t.task != TaskSupport::Forbidden)
    }

    /// `tool_search`: every tool of `scope` the caller may see,
    /// discoverable or not, ranked against the query.
    pub(super) fn search(
        &self,
        args: &Map<String, Value>,
        caller: &Caller<'_>,
        scope: Scope,
    ) -> CallToolResult {
        let query = args
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let max = match args.get("max_results") {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => s.parse::<f64>().ok(),
            _ => None,
        }
        .filter(|x| x.is_finite())
        .map_or(5, |x| x.clamp(1.0, 100.0) as usize);
        let visible: Vec<&Served> = self
            .scoped(scope)
            .map(|(_, t)| t)
            .filter(|t| caller.permits(&t.scopes))
            .collect();
        let candidates: Vec<Candidate<'_>> = visible
            .iter()
            .map(|t| Candidate {
                name: &t.tool.name,
                description: &t.description,
                keywords: &t.keywords,
            })
            .collect();
        let mut hits: Vec<(f64, &Served)> = discovery::scores(query, &candidates)
            .into_iter()
            .zip(visible)
            .filter(|(s, _)| *s > 0.0)
            .collect();
        hits.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| a.1.tool.name.cmp(&b.1.tool.name))
        });
        let results: Vec<Value> = hits
            .into_iter()
            .take(max)
            .map(|(score, t)| {
                let mut hit = json!({
                    "name": t.tool.name,
                    "description": t.description,
                    "score": score,
                    "inputSchema": Value::Object((*t.tool.input_schema).clone()),
                });
                if !t.keywords.is_empty() {
                    hit["keywords"] = Value::from(t.keywords.clone());
                }
                hit
            })
            .collect();
        CallToolResult::success(vec![ContentBlock::text(Value::Array(results).to_string())])
    }
}

// The tools are read from TOML, which takes the loader.
#[cfg(all(test, feature = "load"))]
mod tests {
    use super::{Scope, list_tag};
    use crate::server::Server;
    use crate::server::policy::access::Caller;
    use crate::{Context, ToolMetadata};

    async fn nothing(_: crate::server::Arguments, _: Context) -> Result<String, crate::ToolError> {
        Ok(String::new())
    }

    /// A server of `tools` (name, metadata in TOML).
    fn server(tools: &[(&str, &str)]) -> Server {
        let mut builder = Server::builder();
        for (name, text) in tools {
            let metadata = ToolMetadata::from_toml_str(name, text).expect("metadata");
            builder = builder.tool(metadata, nothing);
        }
        builder.build().expect("server")
    }

    /// The tag of every list is the one its tools have, whether it was
    /// computed for the request or once for the whole catalog: with and
    /// without discovery, with and without `show_all`, for callers who see
    /// every tool, some or none of the scoped ones.
    #[test]
    fn every_listing_is_tagged_as_its_tools() {
        let plain = [
            ("read_notes", "description = \"Read\"\n"),
            (
                "write_notes",
                "description = \"Write\"\nscopes = [\"notes:write\"]\n",
            ),
        ];
        let discovering = [
            ("read_notes", "description = \"Read\"\n"),
            (
                "run_command",
                "description = \"Run\"\ndiscoverable = true\nscopes = [\"exec\"]\n",
            ),
            (
                "write_notes",
                "description = \"Write\"\nscopes = [\"notes:write\"]\n",
            ),
        ];
        #[cfg(feature = "http")]
        let principals = [
            crate::server::auth::Principal::new(None, Vec::<String>::new()),
            crate::server::auth::Principal::new(None, ["notes:write"]),
            crate::server::auth::Principal::new(None, ["notes:write", "exec"]),
            crate::server::auth::Principal::unrestricted(None),
        ];
        #[allow(unused_mut)]
        let mut callers = vec![Caller::anonymous()];
        #[cfg(feature = "http")]
        callers.extend(principals.iter().map(Caller::with_principal));
        let mut seen = Vec::new();
        for tools in [&plain[..], &discovering[..]] {
            let catalog = &server(tools).inner.catalog;
            for show_all in [false, true] {
                for caller in &callers {
                    let (listed, tag) = catalog.listing(show_all, caller, Scope::Whole);
                    assert_eq!(tag, list_tag(&listed), "show_all {show_all}");
                    assert_eq!(listed, catalog.listed(show_all, caller, Scope::Whole));
                    let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
                    seen.push((names, tag));
                }
            }
        }
        // The same tools, the same tag; other tools, another.
        for (names, tag) in &seen {
            for (other_names, other_tag) in &seen {
                assert_eq!(
                    names == other_names,
                    tag == other_tag,
                    "{names:?} {other_names:?}"
                );
            }
        }
        assert!(
            seen.iter().any(|(names, _)| names.len() == 4),
            "discovery's view"
        );
    }

    /// A server built for some groups serves their tools, each in the
    /// chosen groups only; no group, or one no tool is in, is refused.
    #[test]
    fn a_server_of_some_groups_serves_those_only() {
        let built = |groups: &[&str]| {
            let mut builder = Server::builder();
            for (name, text) in [
                (
                    "delete_note",
                    "description = \"Delete\"\ntoolGroups = [\"admin\"]\n",
                ),
                (
                    "read_note",
                    "description = \"Read\"\ntoolGroups = [\"read\", \"admin\"]\n",
                ),
                ("stats", "description = \"Counts\"\n"),
            ] {
                let metadata = ToolMetadata::from_toml_str(name, text).expect("metadata");
                builder = builder.tool(metadata, nothing);
            }
            builder.groups(groups.iter().copied()).build()
        };
        let server = built(&["read"]).expect("server");
        let catalog = &server.inner.catalog;
        let names: Vec<String> = catalog
            .listed(true, &Caller::anonymous(), Scope::Whole)
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, ["read_note"]);
        assert!(catalog.group("read").is_some());
        assert_eq!(
            catalog.group("admin"),
            None,
            "a group not chosen is served nowhere"
        );
        let refused = built(&["write"]).expect_err("no tool is in it").to_string();
        assert!(
            refused.contains("`write`") && refused.contains("admin, read"),
            "{refused}"
        );
        assert!(built(&[]).is_err());
    }

    /// A group lists its tools, tagged as its own list; finds, lists and
    /// searches none of another's; the whole catalog has them all.
    #[test]
    fn a_group_sees_its_tools_only() {
        let server = server(&[
            (
                "delete_note",
                "description = \"Delete a note\"\ntoolGroups = [\"admin\"]\n",
            ),
            (
                "find_notes",
                "description = \"Find notes\"\ndiscoverable = true\ntoolGroups = [\"read\"]\n",
            ),
            (
                "read_note",
                "description = \"Read a note\"\ntoolGroups = [\"read\", \"admin\"]\n",
            ),
            ("stats", "description = \"Counts\"\n"),
        ]);
        let catalog = &server.inner.catalog;
        let caller = Caller::anonymous();
        let names = |scope| -> Vec<String> {
            catalog
                .listed(true, &caller, scope)
                .iter()
                .map(|t| t.name.to_string())
                .collect()
        };
        let admin = catalog.group("admin").expect("admin");
        let read = catalog.group("read").expect("read");
        assert_eq!(catalog.group("write"), None);
        assert_eq!(names(admin), ["delete_note", "read_note"]);
        assert_eq!(names(read), ["find_notes", "read_note"]);
        assert_eq!(names(Scope::Whole).len(), 4);
        // Without show_all, discovery is the group's own: admin has no
        // discoverable tool, so no meta-tools.
        let plain = |scope| -> Vec<String> {
            catalog
                .listed(false, &caller, scope)
                .iter()
                .map(|t| t.name.to_string())
                .collect()
        };
        assert_eq!(plain(admin), ["delete_note", "read_note"]);
        assert_eq!(plain(read), ["execute_tool", "read_note", "tool_search"]);
        assert!(catalog.find("delete_note", read).is_none());
        assert!(catalog.find("tool_search", admin).is_none());
        assert!(catalog.find("delete_note", admin).is_some());
        let tags: Vec<String> = [admin, read, Scope::Whole]
            .map(|scope| {
                let (listed, tag) = catalog.listing(false, &caller, scope);
                assert_eq!(tag, list_tag(&listed));
                tag
            })
            .to_vec();
        assert!(tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2]);
        let found = catalog.search(
            &serde_json::json!({"query": "note"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            &caller,
            read,
        );
        let text = serde_json::to_string(&found).unwrap_or_default();
        assert!(
            text.contains("find_notes") && !text.contains("delete_note"),
            "{text}"
        );
    }
}
