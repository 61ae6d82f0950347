//! How a call's handler asks the person ([`Context::ask`](crate::Context::ask)),
//! on both protocol generations.
//!
//! A 2025-11-25 session sends `elicitation/create` and waits (bounded). A
//! 2026-07-28 request keeps no session: the questions a handler asks are
//! collected, the call answers `InputRequiredResult` with them and a signed
//! `requestState`, and the retried call brings the answers. The state holds
//! every answer given so far and is bound (HMAC associated data) to the
//! principal, the tool and its exact arguments, so an answer cannot be
//! replayed onto another call or by another caller, and it expires. A state
//! is used once: the [`ReplayStore`](super::store::ReplayStore) records it
//! before the retry runs, so the same retry sent again, to any instance that
//! shares the store, runs nothing. Nothing else stays between attempts: any
//! instance with the same keys can serve the retry.

#[cfg(feature = "sessions")]
mod elicit;
#[cfg(feature = "sessions")]
mod session;
mod wire;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use wire::{Pending, fingerprint};

use rmcp::ErrorData;
use rmcp::model::{InputRequiredResult, RequestStateCodec, SealOptions};
#[cfg(feature = "sessions")]
use rmcp::service::Peer;
use rmcp::service::{RequestContext, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::attempt::{Attempt, binding};
use super::generation::Generation;
use super::policy::access::Caller;
use super::store::{ReplayStore, unix_ms};
#[cfg(feature = "tasks")]
use super::task_input::TaskInput;
use crate::ask::{Answer, AskError, Question};
use crate::roots::{ClientRoot, RootsError};
use crate::sampling::{Sampled, Sampling};

/// The server's settings for asking.
pub(crate) struct AskSettings {
    pub(crate) codec: RequestStateCodec,
    /// How long a `requestState` stays valid.
    pub(crate) state_ttl: Duration,
    /// How long a session's `elicitation/create` (or a task's question)
    /// may wait for the person. Set whatever the features; without
    /// sessions and tasks nothing waits (a call's questions end the call).
    #[cfg_attr(
        not(any(feature = "sessions", feature = "tasks")),
        expect(dead_code, reason = "no handler waits for an answer in this build")
    )]
    pub(crate) timeout: Duration,
}

/// What a sealed `requestState` holds.
#[derive(Serialize, Deserialize)]
struct State {
    /// Every answer so far, by question key.
    answers: Map<String, Value>,
    /// The keys asked in the last round, whose answers the retry brings.
    pending: Vec<String>,
    /// A digest of each question as it was shown, by key: an answer holds
    /// only for the question it answered. When the handler, run again, asks
    /// something else under the same key (the file changed, so the diff
    /// shown did), the person is asked again.
    #[serde(default)]
    shown: Map<String, Value>,
}

enum Mode {
    /// A 2025-11-25 session: requests go to its client (see `session`).
    #[cfg(feature = "sessions")]
    Session(Peer<RoleServer>),
    /// A 2026-07-28 request: input requests of its `InputRequiredResult`.
    Stateless,
    /// A task started by a 2026-07-28 request: input requests on the
    /// task's record, answered through `tasks/update`.
    #[cfg(feature = "tasks")]
    Task(TaskInput),
    /// No way to reach the client.
    Unsupported,
}

/// What the client can answer, as it declared.
#[derive(Clone, Copy, Default)]
struct Can {
    /// Form elicitation: questions for the person.
    ask: bool,
    /// Sampling: its model.
    sample: bool,
    /// Its roots (`roots/list`).
    roots: bool,
}

/// What a call knows of its client's roots.
enum RootsSeen {
    Unasked,
    /// Asked in this attempt's `InputRequiredResult`.
    Pending,
    Known(Vec<ClientRoot>),
}

/// How many input requests one call (or task) may make: each travels in
/// every `InputRequiredResult` or `tasks/get` until answered.
const MAX_INPUT_REQUESTS: usize = 32;

/// What a client can answer, from the capabilities it declared: the form
/// mode, or neither mode (2025-06-18 clients, which only had forms), as
/// rmcp's `supported_elicitation_modes` reads it.
fn can(caps: Option<rmcp::model::ClientCapabilities>) -> Can {
    Can {
        ask: caps
            .as_ref()
            .and_then(|c| c.elicitation.as_ref())
            .is_some_and(|e| e.form.is_some() || e.url.is_none()),
        sample: caps.as_ref().is_some_and(|c| c.sampling.is_some()),
        roots: caps.is_some_and(|c| c.roots.is_some()),
    }
}

/// Whether the 2026-07-28 client of `context` can answer any input request
/// (a question, a sampling request, a roots listing).
#[cfg(feature = "tasks")]
pub(crate) fn client_can_answer(context: &RequestContext<RoleServer>) -> bool {
    let can = can(context.client_capabilities());
    can.ask || can.sample || can.roots
}

/// The answers a call gathered through input requests before it became a
/// task, and what each answered.
#[cfg(feature = "tasks")]
pub(crate) struct Seed {
    answers: Map<String, Value>,
    shown: Map<String, Value>,
}

/// One call's questions and answers.
pub(crate) struct Asker {
    mode: Mode,
    can: Can,
    /// How long the client has to answer, where the handler waits for it
    /// (on a session, in a task).
    #[cfg(any(feature = "sessions", feature = "tasks"))]
    timeout: Duration,
    /// Questions asked so far in this attempt; the nth is keyed `ask-n`, the
    /// same key in every attempt since the handler runs again from the start.
    asked: AtomicUsize,
    /// The keys of this attempt's input requests: two must not share one.
    keys: Mutex<std::collections::HashSet<String>>,
    answers: Map<String, Value>,
    /// What each answered question looked like (see `State::shown`).
    shown: Map<String, Value>,
    pending: Mutex<Vec<(String, Pending)>>,
    /// The principal, the tool and its arguments, the state's associated
    /// data (stateless requests only).
    binding: Vec<u8>,
    /// The fingerprint of the state this retry brought, to be used once.
    state: Option<String>,
    /// The roots as far as this call or task knows them, so that asking
    /// twice asks the client once.
    roots: tokio::sync::Mutex<RootsSeen>,
    /// A task started on a 2025-11-25 session, which asks through the
    /// session: its requests name it (`related-task`), and it shows
    /// `input_required` while they wait (SEP-1686).
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    task_on_session: Option<TaskInput>,
}

impl Asker {
    /// For a call outside any client (a direct `ToolSet::call`).
    pub(crate) fn unsupported() -> Self {
        Asker {
            mode: Mode::Unsupported,
            can: Can::default(),
            #[cfg(any(feature = "sessions", feature = "tasks"))]
            timeout: Duration::ZERO,
            asked: AtomicUsize::new(0),
            keys: Mutex::new(std::collections::HashSet::new()),
            answers: Map::new(),
            shown: Map::new(),
            pending: Mutex::new(Vec::new()),
            binding: Vec::new(),
            state: None,
            roots: tokio::sync::Mutex::new(RootsSeen::Unasked),
            #[cfg(all(feature = "tasks", feature = "sessions"))]
            task_on_session: None,
        }
    }

    /// For a task started by `context`: on a 2025-11-25 session, requests
    /// to its client as a plain call makes them, each naming the task
    /// (`related-task`) and the task `input_required` while it waits;
    /// otherwise through the task's record. Either way only what the client declared it can
    /// answer is asked.
    #[cfg(feature = "tasks")]
    pub(crate) fn for_task(
        context: &RequestContext<RoleServer>,
        input: TaskInput,
        settings: &AskSettings,
    ) -> Self {
        let mut asker = Asker::reaching(context, settings);
        if !asker.reaches() {
            return asker;
        }
        #[cfg(feature = "sessions")]
        if Generation::of(context).is_session() {
            asker.task_on_session = Some(input);
            return asker;
        }
        asker.mode = Mode::Task(input);
        asker
    }

    /// What the client of `context` declared it can answer, and on a
    /// 2025-11-25 session the way to ask it; on 2026-07-28 the caller
    /// chooses the way.
    fn reaching(context: &RequestContext<RoleServer>, settings: &AskSettings) -> Self {
        let mut asker = Asker::unsupported();
        #[cfg(any(feature = "sessions", feature = "tasks"))]
        {
            asker.timeout = settings.timeout;
        }
        #[cfg(not(any(feature = "sessions", feature = "tasks")))]
        let _ = settings;
        #[cfg(feature = "sessions")]
        if Generation::of(context).is_session() {
            asker.can = can(context
                .peer
                .peer_info()
                .map(|info| info.capabilities.clone()));
            if asker.reaches() {
                asker.mode = Mode::Session(context.peer.clone());
            }
            return asker;
        }
        asker.can = can(context.client_capabilities());
        asker
    }

    /// Whether the client can answer anything at all.
    fn reaches(&self) -> bool {
        self.can.ask || self.can.sample || self.can.roots
    }

    /// For a `tools/call` or `prompts/get`: its generation, what the client can answer,
    /// and, on a retry, the answers so far (from a `requestState` that must
    /// verify, and the new `inputResponses`).
    fn for_call(
        request: &Attempt<'_>,
        context: &RequestContext<RoleServer>,
        settings: &AskSettings,
    ) -> Result<Self, ErrorData> {
        let mut asker = Asker::reaching(context, settings);
        if Generation::of(context).is_session() {
            return Ok(asker);
        }
        if asker.reaches() {
            asker.mode = Mode::Stateless;
        } else if request.request_state.is_none() {
            // Nothing to seal or open: skip serializing the arguments.
            return Ok(asker);
        }
        asker.binding = binding(
            request.domain,
            Caller::of(context).owner().as_deref(),
            request.target,
            request.arguments,
            &request.bound,
        );
        if let Some(sealed) = request.request_state {
            let state: State = settings
                .codec
                .open_json_with(sealed, &asker.binding)
                .map_err(|e| {
                    ErrorData::invalid_params(
                        format!(
                            "requestState refused ({e}): it is not one this server issued for this request, or it expired; send the request again without it"
                        ),
                        None,
                    )
                })?;
            // A retry that answers none of the questions its state asked
            // is refused before the state is spent, so that the right
            // answers can still come with it.
            let answered = |key: &String| {
                request
                    .input_responses
                    .is_some_and(|responses| responses.contains_key(key))
            };
            if !state.pending.is_empty() && !state.pending.iter().any(answered) {
                return Err(ErrorData::invalid_params(
                    format!(
                        "inputResponses answer none of the questions this requestState asked (their keys: {}); \
                         send the answers under those keys with the same requestState",
                        state.pending.join(", ")
                    ),
                    None,
                ));
            }
            asker.answers = state.answers;
            asker.shown = state.shown;
            asker.state = Some(fingerprint(sealed));
            if let Some(responses) = request.input_responses {
                for key in state.pending {
                    if let Some(response) = responses.get(&key) {
                        asker.answers.insert(key, response.clone());
                    }
                }
            }
        }
        Ok(asker)
    }

    /// The asker of a `tools/call` or `prompts/get` (see [`for_call`](Self::for_call)),
    /// its state, if any, recorded as used (see [`use_state`](Self::use_state)).
    pub(crate) async fn for_request(
        request: &Attempt<'_>,
        context: &RequestContext<RoleServer>,
        settings: &AskSettings,
        replay: &dyn ReplayStore,
    ) -> Result<std::sync::Arc<Self>, ErrorData> {
        let asker = Asker::for_call(request, context, settings)?;
        asker.use_state(replay, settings).await?;
        Ok(std::sync::Arc::new(asker))
    }

    /// Records the use of the state this retry brought, if any: refused
    /// when it was used before (the same retry sent again, here or to another
    /// instance), so that what it confirmed runs once.
    async fn use_state(
        &self,
        store: &dyn ReplayStore,
        settings: &AskSettings,
    ) -> Result<(), ErrorData> {
        let Some(fingerprint) = &self.state else {
            return Ok(());
        };
        // The state expires at most this long from now: the marker need not
        // outlive it.
        let until = unix_ms()
            .saturating_add(u64::try_from(settings.state_ttl.as_millis()).unwrap_or(u64::MAX));
        match store.first_use(fingerprint, until).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(ErrorData::invalid_params(
                "requestState refused: it was already used (a retry runs once); \
                 call the tool again without it to be asked anew",
                None,
            )),
            Err(e) => Err(ErrorData::internal_error(
                format!("requestState could not be checked for single use: {e}"),
                None,
            )),
        }
    }

    /// The key of the next input request: the one given, else `ask-N` by
    /// its place among this attempt's. A given key that is empty, longer
    /// than 100 bytes or of the `ask-` form, or a key used twice in one
    /// call, is refused: two requests under one key would take each other's
    /// answers (one "yes" confirming two operations).
    fn key(&self, given: Option<&str>) -> Result<String, AskError> {
        let n = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
        let key = match given {
            None => format!("ask-{n}"),
            Some(key) if key.is_empty() || key.len() > 100 || key.starts_with("ask-") => {
                return Err(AskError::Failed(format!(
                    "the key `{}` cannot name an input request: use 1 to 100 bytes, not starting with `ask-`",
                    toolmetadata_core::seam::shorten(key, 100)
                )));
            }
            Some(key) => key.to_owned(),
        };
        let mut keys = self
            .keys
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if keys.len() >= MAX_INPUT_REQUESTS {
            return Err(AskError::Failed(format!(
                "one call asks at most {MAX_INPUT_REQUESTS} things of its client"
            )));
        }
        let fresh = keys.insert(key.clone());
        drop(keys);
        if !fresh {
            return Err(AskError::Failed(format!(
                "two input requests of one call share the key `{key}`: give each its own"
            )));
        }
        Ok(key)
    }

    pub(crate) async fn ask(&self, question: Question) -> Result<Answer, AskError> {
        if !self.can.ask {
            return Err(AskError::Unsupported);
        }
        let key = self.key(question.given_key())?;
        match &self.mode {
            Mode::Unsupported => Err(AskError::Unsupported),
            #[cfg(feature = "sessions")]
            Mode::Session(peer) => self.ask_session(peer, &key, question).await,
            // Stateless, or through a task's record.
            _ => Answer::from_result(&self.requested(key, Pending::Question(question)).await?),
        }
    }

    /// The answer to `pending` under `key` through input requests: through
    /// the task's record, or from the answers a retry brought, else it joins
    /// this attempt's `InputRequiredResult` (`InputRequired`).
    async fn requested(&self, key: String, pending: Pending) -> Result<Value, AskError> {
        if let Some(answer) = self.answered(&key, &pending) {
            return Ok(answer);
        }
        match &self.mode {
            #[cfg(feature = "tasks")]
            Mode::Task(input) => {
                input
                    .request(&key, pending.request_json()?, self.timeout)
                    .await
            }
            Mode::Stateless => {
                self.pending
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push((key, pending));
                Err(AskError::InputRequired)
            }
            #[cfg(feature = "sessions")]
            Mode::Session(_) => Err(AskError::Unsupported),
            Mode::Unsupported => Err(AskError::Unsupported),
        }
    }

    /// The answer a retry brought (or the task it started was seeded with)
    /// under `key`, if it answered `pending` as it is asked now.
    fn answered(&self, key: &str, pending: &Pending) -> Option<Value> {
        self.answers
            .get(key)
            .filter(|_| self.shown.get(key) == Some(&pending.digest()))
            .cloned()
    }

    /// The answers so far, for the task this retry starts
    /// ([`ServerBuilder::ask_before_task`](super::ServerBuilder::ask_before_task)).
    #[cfg(feature = "tasks")]
    pub(crate) fn seed(&self) -> Seed {
        Seed {
            answers: self.answers.clone(),
            shown: self.shown.clone(),
        }
    }

    /// This task's asker, knowing the answers its call gathered before the
    /// task started: the handler, run from the start, finds them again.
    #[cfg(feature = "tasks")]
    pub(crate) fn seeded(mut self, seed: Seed) -> Self {
        self.answers = seed.answers;
        self.shown = seed.shown;
        self
    }

    /// Asks the client's model: as [`ask`](Self::ask), with
    /// `sampling/createMessage`.
    pub(crate) async fn sample(&self, sampling: Sampling) -> Result<Sampled, AskError> {
        if !self.can.sample {
            return Err(AskError::Unsupported);
        }
        let key = self.key(sampling.given_key())?;
        match &self.mode {
            Mode::Unsupported => Err(AskError::Unsupported),
            #[cfg(feature = "sessions")]
            Mode::Session(peer) => self.sample_session(peer, &key, sampling).await,
            // Stateless, or through a task's record.
            _ => Sampled::from_result(&self.requested(key, Pending::Sampling(sampling)).await?),
        }
    }

    /// The client's roots, asked through an input request (2026-07-28
    /// calls and tasks; a session's are the session's, see `roots`).
    pub(crate) async fn roots(&self) -> Result<Vec<ClientRoot>, RootsError> {
        if !self.can.roots {
            return Err(RootsError::Unsupported);
        }
        // Held while asking: a second call of this handler waits for the
        // first's answer rather than asking again.
        let mut known = self.roots.lock().await;
        match &*known {
            RootsSeen::Known(roots) => return Ok(roots.clone()),
            // Asked in this attempt already: the retry brings the answer.
            RootsSeen::Pending => return Err(RootsError::InputRequired),
            RootsSeen::Unasked => {}
        }
        let key = self
            .key(None)
            .map_err(|e| RootsError::Failed(e.to_string()))?;
        let answered = match self.requested(key, Pending::Roots).await {
            Ok(result) => super::roots::from_result(&result),
            Err(AskError::InputRequired) => {
                *known = RootsSeen::Pending;
                return Err(RootsError::InputRequired);
            }
            Err(AskError::Unsupported) => Err(RootsError::Unsupported),
            Err(e) => Err(RootsError::Failed(e.to_string())),
        };
        if let Ok(roots) = &answered {
            *known = RootsSeen::Known(roots.clone());
        }
        answered
    }

    /// The `InputRequiredResult` that ends this attempt, when the handler
    /// asked what the client has not answered yet.
    pub(crate) fn input_required(
        &self,
        settings: &AskSettings,
    ) -> Result<Option<InputRequiredResult>, ErrorData> {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()));
        if pending.is_empty() {
            return Ok(None);
        }
        let mut requests = BTreeMap::new();
        let mut shown = self.shown.clone();
        for (key, pending) in &pending {
            requests.insert(key.clone(), pending.request()?);
            shown.insert(key.clone(), pending.digest());
        }
        let state = State {
            answers: self.answers.clone(),
            pending: pending.into_iter().map(|(key, _)| key).collect(),
            shown,
        };
        let sealed = settings
            .codec
            .seal_json_with(
                &state,
                &SealOptions::new()
                    .associated_data(&self.binding)
                    .ttl(settings.state_ttl),
            )
            .map_err(|e| ErrorData::internal_error(format!("requestState: {e}"), None))?;
        Ok(Some(InputRequiredResult::new(Some(requests), Some(sealed))))
    }
}

#[cfg(test)]
mod tests;
