//! Which directories a call may use: the client's roots on a 2025-11-25
//! session whose client offers usable ones, else the `--root` directories.
//! 2026-07-28 requests have no session, so always the latter.
//!
//! On stdio the client is the person's own editor, which started the server:
//! its roots replace the `--root` directories, as in the reference
//! filesystem server. Over HTTP any client that can connect would choose,
//! so a client root is taken only inside a `--root` directory: it narrows
//! what the operator allowed, never widens it.
//!
//! The client's list is fetched and kept per session by the runtime
//! ([`Context::roots`]); the directories opened from it are kept beside it,
//! so they are opened once per list, and again after the client says its
//! roots changed.

use toolmetadata::roots::{ClientRoot, RootsError};
use toolmetadata::server::rmcp::model::ProtocolVersion;
use toolmetadata::{Context, ContextExt, ToolError};

use crate::confinement::Confinement;
use crate::offload::Offload;
use crate::spelling::file_uri_path;

/// Where a call's directories come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The client's roots.
    Client,
    /// The server's `--root` options.
    CommandLine,
}

/// What a client's roots may do with the `--root` directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientRootsPolicy {
    /// Replace them (stdio: the client is the person's own).
    Replace,
    /// Only narrow them: a client root must lie inside one (HTTP).
    Within,
}

/// The `--root` directories, and how to get a call's own.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    command_line: Confinement,
    offload: Offload,
    policy: ClientRootsPolicy,
}

/// The directories opened from one list of client roots, kept beside it;
/// `None` when none of them was usable.
struct FromClient(Option<Confinement>);

impl Scope {
    /// The scope of a server started with these `--root` directories.
    pub(crate) fn new(
        command_line: Confinement,
        offload: Offload,
        policy: ClientRootsPolicy,
    ) -> Self {
        Scope {
            command_line,
            offload,
            policy,
        }
    }

    /// The `--root` directories.
    pub(crate) fn command_line(&self) -> &Confinement {
        &self.command_line
    }

    /// The directories the call `cx` may use.
    pub(crate) async fn roots(&self, cx: &Context) -> Result<Confinement, ToolError> {
        Ok(self.resolve(cx).await?.0)
    }

    /// The directories the call `cx` may use, and where they come from.
    pub(crate) async fn resolve(&self, cx: &Context) -> Result<(Confinement, Source), ToolError> {
        let fallback = || Ok((self.command_line.clone(), Source::CommandLine));
        // A 2026-07-28 call has no session to keep roots in: asking them
        // would cost each call a round trip (an input request), and roots are
        // deprecated there (SEP-2577). The --root directories serve.
        let sessionless = cx
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        if sessionless {
            return fallback();
        }
        let client = match cx.roots().await {
            Ok(client) => client,
            Err(RootsError::Unsupported) => return fallback(),
            // The runtime logged why; the reference server keeps its own
            // directories then too.
            Err(_) => return fallback(),
        };
        let opened = match client.kept::<FromClient>() {
            Some(opened) => opened,
            None => {
                let list: Vec<ClientRoot> = client.roots().to_vec();
                let within = match self.policy {
                    ClientRootsPolicy::Replace => None,
                    ClientRootsPolicy::Within => Some(self.command_line.clone()),
                };
                let opened = self
                    .offload
                    .run(move || Ok(open_client_roots(&list, within.as_ref())))
                    .await?;
                client.keep(opened)
            }
        };
        match &*opened {
            FromClient(Some(roots)) => Ok((roots.clone(), Source::Client)),
            FromClient(None) => fallback(),
        }
    }
}

/// Opens the client's roots, each checked as a `--root` is (and, with
/// `within`, inside one of those); an unusable one is skipped with a warning.
fn open_client_roots(list: &[ClientRoot], within: Option<&Confinement>) -> FromClient {
    let mut dirs = Vec::with_capacity(list.len());
    for root in list {
        match file_uri_path(&root.uri) {
            Ok(path) => dirs.push(path),
            Err(e) => tracing::warn!("client root skipped: {e}"),
        }
    }
    let (roots, refused) = match within {
        None => Confinement::open(&dirs),
        Some(command_line) => command_line.open_within(&dirs),
    };
    for e in refused {
        tracing::warn!("client root skipped: {e}");
    }
    if roots.is_empty() {
        tracing::warn!(
            "the client offered no usable root ({} given): the --root directories stay in effect",
            list.len()
        );
        return FromClient(None);
    }
    tracing::info!(
        "serving the client's roots: {}",
        roots
            .dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    FromClient(Some(roots))
}
