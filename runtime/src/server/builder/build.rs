//! [`ServerBuilder::build`]: every check across what was added, and the
//! [`Server`] assembled from it.

use std::sync::Arc;

use super::ServerBuilder;
use crate::server::catalog::Catalog;
use crate::server::{Inner, Server, ServerError, discovery};

/// How long a running task's lease, and a slot of concurrency leased in a
/// shared `LimitStore`, last by default: an instance that dies leaves its
/// working tasks and its slots, which lapse once this has passed.
#[cfg(any(feature = "tasks", feature = "limits"))]
const DEFAULT_LEASE: std::time::Duration = std::time::Duration::from_secs(10);

impl ServerBuilder {
    /// Keeps the tools of `groups` only, each in those of its groups only
    /// (a group not chosen is served nowhere); an error for a group no tool
    /// is in, or for no group at all.
    fn keep_groups(&mut self, groups: &[String]) -> Result<(), ServerError> {
        if groups.is_empty() {
            return Err(ServerError::build(
                "groups: no group given (to serve every tool, leave groups out)",
            ));
        }
        let named: std::collections::BTreeSet<&str> = self
            .tools
            .iter()
            .flat_map(|t| t.groups.iter().map(String::as_str))
            .collect();
        if let Some(unknown) = groups.iter().find(|g| !named.contains(g.as_str())) {
            let there = if named.is_empty() {
                "no tool names a group (`toolGroups`)".to_owned()
            } else {
                let names: Vec<&str> = named.into_iter().collect();
                format!("the groups are: {}", names.join(", "))
            };
            return Err(ServerError::build(format!(
                "no tool this server serves is in the group `{}`: {there}",
                toolmetadata_core::seam::shorten(unknown, 100)
            )));
        }
        self.tools.retain_mut(|t| {
            t.groups.retain(|g| groups.contains(g));
            !t.groups.is_empty()
        });
        Ok(())
    }

    /// The server; an error when two tools share a name (or a tool takes a
    /// meta-tool's name while discovery is on), when a tool's `[ui]` links a
    /// `ui://` view the server does not serve, or when a `ui://` resource is
    /// not of the MCP Apps MIME type `text/html;profile=mcp-app`, when
    /// [`groups`](Self::groups) names a group no tool is in, or when a tool
    /// needs a feature this build of the crate lacks (`[limits]` without
    /// `limits`, `scopes` without `http`, …), naming the feature.
    pub fn build(mut self) -> Result<Server, ServerError> {
        if let Some(e) = self.errors.first() {
            return Err(ServerError::build(e.clone()));
        }
        if let Some(groups) = self.only_groups.take() {
            self.keep_groups(&groups)?;
        }
        #[cfg(feature = "prompts")]
        super::prompts::check_prompts(&self.prompts)?;
        #[cfg(feature = "resources")]
        super::resources::check_templates(&self.templates)?;
        #[cfg(any(feature = "prompts", feature = "resources"))]
        self.check_completions()?;
        #[cfg(feature = "ask")]
        let (ask, replay) = self.ask.build(&mut self.tools)?;
        #[cfg(any(feature = "tasks", feature = "limits"))]
        let lease = self
            .lease
            .unwrap_or(DEFAULT_LEASE)
            .max(std::time::Duration::from_secs(1));
        #[cfg(feature = "tasks")]
        let tasks = Arc::new(self.tasks.build(&mut self.tools, lease)?);
        #[cfg(feature = "subscriptions")]
        let changing = self.changing_tools.as_deref();
        #[cfg(not(feature = "subscriptions"))]
        let changing = None;
        let catalog = Catalog::new(self.tools, self.show_all, changing)?;
        let plain_instructions = self.instructions;
        let instructions = match (&plain_instructions, catalog.discovery()) {
            (Some(i), true) => Some(format!("{i}\n\n{}", discovery::INSTRUCTIONS)),
            (None, true) => Some(discovery::INSTRUCTIONS.to_owned()),
            (i, false) => i.clone(),
        };
        #[cfg(feature = "resources")]
        super::views::check_views(catalog.served(), &self.resources, &self.templates)?;
        #[cfg(not(feature = "resources"))]
        super::views::check_views(catalog.served())?;
        // A bus is listened to, and a shared store of tool states read, on
        // the runtime the server is built in.
        #[cfg(feature = "subscriptions")]
        let reads_states = self.tool_states.is_some() && self.changing_tools.is_some();
        #[cfg(feature = "subscriptions")]
        if (self.change_bus.is_some() || reads_states)
            && tokio::runtime::Handle::try_current().is_err()
        {
            return Err(ServerError::build(
                "a change bus is listened to, and a store of tool states read, on a Tokio runtime: build the server inside one",
            ));
        }
        let inner = Arc::new(Inner {
            name: self
                .name
                .unwrap_or_else(|| "toolmetadata-server".to_owned()),
            version: self
                .version
                .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned()),
            instructions,
            plain_instructions,
            catalog,
            #[cfg(feature = "resources")]
            resources: self.resources,
            #[cfg(feature = "resources")]
            templates: self.templates,
            skills: crate::server::skills::Skills::new(self.skills),
            #[cfg(feature = "prompts")]
            prompts: self.prompts,
            #[cfg(any(feature = "prompts", feature = "resources"))]
            completions: self.completions,
            #[cfg(feature = "ask")]
            ask,
            list_cache: self.list_cache,
            #[cfg(feature = "tasks")]
            tasks,
            stores: crate::server::Stores {
                #[cfg(feature = "limits")]
                limits: self
                    .limit_store
                    .map(|store| crate::server::policy::limits::SharedLimits { store, lease }),
                #[cfg(feature = "ask")]
                replay,
                #[cfg(all(feature = "http", feature = "sessions"))]
                sessions: self.session_store,
                #[cfg(all(feature = "http", feature = "sessions"))]
                events: self.event_store,
            },
            list_extras: Arc::new(self.list_extras),
            #[cfg(feature = "subscriptions")]
            subscriptions: Default::default(),
            #[cfg(feature = "subscriptions")]
            tool_states: self
                .tool_states
                .unwrap_or_else(|| Arc::new(crate::server::store::InMemoryToolStates::default())),
            #[cfg(feature = "subscriptions")]
            applying: tokio::sync::Mutex::new(()),
            #[cfg(feature = "subscriptions")]
            fleet: self.change_bus.map(crate::server::fleet::Fleet::new),
        });
        #[cfg(feature = "subscriptions")]
        {
            if let Some(fleet) = &inner.fleet {
                // Reads the tools' states again each time it starts listening.
                let hears: Arc<dyn crate::server::fleet::Hears> = inner.clone();
                fleet.listen(Arc::downgrade(&hears));
            }
            if reads_states {
                crate::server::protocol::keep_reading_tool_states(Arc::downgrade(&inner));
            }
        }
        Ok(Server {
            roots: Arc::default(),
            log_level: Arc::default(),
            #[cfg(all(feature = "subscriptions", feature = "sessions"))]
            subscriber: crate::server::subscriptions::next_subscriber(),
            inner,
        })
    }
}
