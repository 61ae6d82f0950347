//! The tools a server serves, in one place: found by name (the discovery
//! meta-tools too, as entries of their own), listed for a caller, their
//! scopes, and searched (discovery mode's `tool_search`), each within what
//! the request sees of them: the whole catalog or one `group`.

mod enabled;
mod group;

pub(super) use super::scope::Scope;
use enabled::Enabled;
pub(super) use group::Group;

#[cfg(feature = "subscriptions")]
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::sync::{Arc, PoisonError, RwLock};

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

/// The place of the tool `name` in `tools`, sorted by name.
fn place(tools: &[Served], name: &str) -> Option<usize> {
    tools
        .binary_search_by(|t| str::cmp(&t.tool.name, name))
        .ok()
}

/// The served tools.
pub(super) struct Catalog {
    /// Sorted by name, and found by name with a binary search ([`place`]).
    tools: Vec<Served>,
    /// `tool_search` and `execute_tool`, when some tool is discoverable.
    meta: Vec<Tool>,
    /// The server lists discoverable tools too (`ServerBuilder::show_all`).
    show_all: bool,
    /// The groups the tools name, sorted by name.
    groups: Vec<Group>,
    /// Which tools were enabled when the server was built, by place.
    built: Vec<bool>,
    /// Tools may be enabled and disabled while the server runs
    /// (`ServerBuilder::changing_tools`).
    changing: bool,
    /// Which tools are enabled now, and the tags of their lists.
    enabled: RwLock<Arc<Enabled>>,
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
    /// The catalog of `tools`, those named in `disabled` disabled (and tools
    /// changing at run time when it is given); an error when two share a
    /// name, when a tool takes a meta-tool's name while some tool is
    /// discoverable, or when `disabled` names no tool.
    pub(super) fn new(
        mut tools: Vec<Served>,
        show_all: bool,
        disabled: Option<&[String]>,
    ) -> Result<Self, ServerError> {
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
        let mut built = vec![true; tools.len()];
        for name in disabled.unwrap_or_default() {
            let Some(index) = place(&tools, name) else {
                return Err(ServerError::build(format!(
                    "`changing_tools` disables `{name}`, which is not a tool of this server"
                )));
            };
            built[index] = false;
        }
        let groups = group::groups_of(&tools);
        let mut catalog = Catalog {
            tools,
            meta,
            show_all,
            groups,
            changing: disabled.is_some(),
            enabled: RwLock::new(Arc::new(Enabled::untagged(built.clone()))),
            built,
        };
        let enabled = catalog.tagged(catalog.built.clone());
        catalog.enabled = RwLock::new(Arc::new(enabled));
        Ok(catalog)
    }

    /// `on` (by place) with the tags of the lists a caller who may see
    /// every tool gets, computed once per change: most callers get one of
    /// them, and a tag per request fingerprints the whole list again.
    fn tagged(&self, on: Vec<bool>) -> Enabled {
        let mut enabled = Enabled::untagged(on);
        let tags =
            |scope| [false, true].map(|all| list_tag(&self.list(&enabled, all, &|_| true, scope)));
        let whole = tags(Scope::Whole);
        let groups = (0..self.groups.len())
            .map(|g| tags(Scope::Group(g)))
            .collect();
        enabled.whole_tags = whole;
        enabled.group_tags = groups;
        enabled
    }

    /// Which tools are enabled now.
    fn now(&self) -> Arc<Enabled> {
        self.enabled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether tools may be enabled and disabled while the server runs.
    pub(super) fn changing(&self) -> bool {
        self.changing
    }

    /// Whether `name` is one of the catalog's tools, enabled or not.
    #[cfg(feature = "subscriptions")]
    pub(super) fn knows(&self, name: &str) -> bool {
        place(&self.tools, name).is_some()
    }

    /// Enables and disables tools as `states` (by name; names of no tool
    /// ignored) says, the others as the server was built; whether that
    /// changed which tools are enabled.
    #[cfg(feature = "subscriptions")]
    pub(super) fn apply(&self, states: &BTreeMap<String, bool>) -> bool {
        let mut on = self.built.clone();
        for (name, &enabled) in states {
            if let Some(index) = place(&self.tools, name) {
                on[index] = enabled;
            }
        }
        if self.now().on == on {
            return false;
        }
        let enabled = Arc::new(self.tagged(on));
        *self.enabled.write().unwrap_or_else(PoisonError::into_inner) = enabled;
        true
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

    /// The enabled tools of the group at `group` (its place), sorted by
    /// name.
    pub(super) fn members(&self, group: usize) -> impl Iterator<Item = &Served> {
        let enabled = self.now();
        self.groups[group]
            .members
            .iter()
            .filter(move |&&i| enabled.is_on(i))
            .map(|&i| &self.tools[i])
    }

    /// Whether the tool at `index` is seen in `scope`: enabled, and in it.
    fn in_scope(&self, enabled: &Enabled, index: usize, scope: Scope) -> bool {
        enabled.is_on(index)
            && match scope {
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
        if let Some(index) = place(&self.tools, name) {
            return self
                .in_scope(&self.now(), index, scope)
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
        self.list(&self.now(), show_all, &|t| caller.permits(&t.scopes), scope)
    }

    /// A `tools/list` answer's tools for `caller` in `scope` (as
    /// [`Catalog::listed`]) and their tag (see [`LIST_TAG_META`]).
    pub(super) fn listing(
        &self,
        show_all: bool,
        caller: &Caller<'_>,
        scope: Scope,
    ) -> (Vec<Tool>, String) {
        let enabled = self.now();
        let tools = self.list(&enabled, show_all, &|t| caller.permits(&t.scopes), scope);
        // The whole list when nothing it would show is hidden from the
        // caller (a discoverable tool is not shown without `show_all`).
        let shows_all = show_all || !self.discovery_in(scope);
        let whole = self
            .scoped(&enabled, scope)
            .filter(|(_, t)| shows_all || !t.discoverable)
            .all(|(_, t)| caller.permits(&t.scopes));
        let tags = match scope {
            Scope::Whole => &enabled.whole_tags,
            Scope::Group(g) => &enabled.group_tags[g],
        };
        let tag = if whole {
            tags[usize::from(show_all)].clone()
        } else {
            list_tag(&tools)
        };
        (tools, tag)
    }

    /// The enabled tools of `scope`, with their places.
    fn scoped<'a>(
        &'a self,
        enabled: &'a Enabled,
        scope: Scope,
    ) -> impl Iterator<Item = (usize, &'a Served)> {
        self.tools
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.in_scope(enabled, *i, scope))
    }

    /// The tools listed in `scope`, of those `enabled` and `permitted`.
    /// `permitted` is a `dyn`: one copy of this function and of its sort of
    /// `Tool`s serves every caller.
    fn list(
        &self,
        enabled: &Enabled,
        show_all: bool,
        permitted: &dyn Fn(&Served) -> bool,
        scope: Scope,
    ) -> Vec<Tool> {
        let permitted = self
            .scoped(enabled, scope)
            .map(|(_, t)| t)
            .filter(|t| permitted(t));
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
        let index = place(&self.tools, name)?;
        self.in_scope(&self.now(), index, scope)
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
        let enabled = self.now();
        let visible: Vec<&Served> = self
            .scoped(&enabled, scope)
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
mod tests;

#[cfg(test)]
mod place_tests {
    use super::Scope;
    use crate::ToolMetadata;
    use crate::server::Server;

    /// A tool is found by its name, whatever its characters, and a name
    /// between two tools', before the first or after the last is none.
    #[test]
    fn each_tool_is_found_by_its_name_and_no_other_name_is() {
        let names = [
            "zeta",
            "Zeta",
            "_under",
            "a-b",
            "a_b",
            "alpha",
            "beta",
            "z9",
            "\u{e9}t\u{e9}",
            "\u{fc}n\u{ef}",
        ];
        let mut builder = Server::builder();
        for name in names {
            let metadata = ToolMetadata {
                name: name.into(),
                description: "A tool".into(),
                ..ToolMetadata::default()
            };
            builder = builder.tool(metadata, |_, _| async { Ok("") });
        }
        let server = builder.build().expect("server");
        let catalog = &server.inner.catalog;
        for name in names {
            assert!(catalog.find(name, Scope::Whole).is_some(), "{name}");
        }
        for absent in [
            "", "A", "Zet", "a", "a-c", "alphb", "zz", "\u{ff}", "\u{e9}",
        ] {
            assert!(catalog.find(absent, Scope::Whole).is_none(), "{absent}");
        }
    }
}
