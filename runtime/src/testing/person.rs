//! The person a test plays: scripted replies to the questions a server asks
//! (a tool's `[confirm]`, `Context::ask`), and a record of what was asked.

use std::collections::VecDeque;
use std::sync::Mutex;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::Value;

/// How the person answers one question.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Yes, with the form's fields (`{}` for a confirmation).
    Accept(Value),
    /// No: the person declined (a `[confirm]`ed tool does not run).
    Decline,
    /// The person dismissed the question without answering.
    Cancel,
}

impl Reply {
    /// Yes to a confirmation: accepted, with no fields.
    pub fn yes() -> Reply {
        Reply::Accept(Value::Object(serde_json::Map::new()))
    }

    fn into_result(self) -> ElicitResult {
        match self {
            Reply::Accept(content) => {
                let mut result = ElicitResult::new(ElicitationAction::Accept);
                result.content = Some(content);
                result
            }
            Reply::Decline => ElicitResult::new(ElicitationAction::Decline),
            Reply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        }
    }
}

/// A question the server asked, as the person saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The question's text.
    pub message: String,
    /// The form's JSON Schema (`{"type": "object", "properties": {}}` for a
    /// confirmation); for a URL question, `{"url": …}`.
    pub form: Value,
}

/// Who answers the server's questions: replies in the order scripted, then
/// the same one for every further question (or, after a script with no
/// such reply, `Cancel`, so that a test that asked more than it scripted
/// sees it rather than hanging).
#[derive(Debug, Clone)]
pub struct Person {
    script: VecDeque<Reply>,
    then: Reply,
}

impl Person {
    /// A person who gives `reply` to every question.
    pub fn replying(reply: Reply) -> Person {
        Person {
            script: VecDeque::new(),
            then: reply,
        }
    }

    /// A person who gives `replies` in order, and `Cancel` once they run out.
    pub fn script(replies: impl IntoIterator<Item = Reply>) -> Person {
        Person {
            script: replies.into_iter().collect(),
            then: Reply::Cancel,
        }
    }

    /// The same script, with `reply` for every question past its end.
    pub fn then(mut self, reply: Reply) -> Person {
        self.then = reply;
        self
    }

    fn next(&mut self) -> Reply {
        self.script.pop_front().unwrap_or_else(|| self.then.clone())
    }
}

/// The most questions kept: a server that asks without end fills no memory.
const MAX_ASKED: usize = 10_000;

/// The person and the questions, shared by the client's handler and its
/// `tools/call` rounds.
#[derive(Debug)]
pub(super) struct Answerer {
    person: Mutex<Person>,
    asked: Mutex<Vec<Asked>>,
}

impl Answerer {
    pub(super) fn new(person: Person) -> Self {
        Answerer {
            person: Mutex::new(person),
            asked: Mutex::default(),
        }
    }

    /// Records `question` and answers it as the script says.
    pub(super) fn answer(&self, question: &ElicitRequestParams) -> ElicitResult {
        let (message, form) = match question {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message.clone(),
                serde_json::to_value(requested_schema).unwrap_or(Value::Null),
            ),
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                (message.clone(), serde_json::json!({ "url": url }))
            }
            other => (
                String::new(),
                serde_json::to_value(other).unwrap_or(Value::Null),
            ),
        };
        let mut asked = lock(&self.asked);
        if asked.len() < MAX_ASKED {
            asked.push(Asked { message, form });
        }
        drop(asked);
        lock(&self.person).next().into_result()
    }

    pub(super) fn asked(&self) -> Vec<Asked> {
        lock(&self.asked).clone()
    }
}

/// A lock whose holder never panics while holding it; a poisoned one is
/// still usable.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
