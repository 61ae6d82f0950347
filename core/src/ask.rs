//! Asking the person behind the client a question from inside a handler:
//! [`Question`] in, [`Answer`] out, through [`Context::ask`](crate::Context::ask).
//!
//! The question is a form (MCP form elicitation): a message and typed fields
//! (string, number, integer, boolean, one of a list). How it travels depends on
//! the protocol generation of the call:
//!
//! - On a 2025-11-25 session the server sends `elicitation/create` and the
//!   handler awaits the answer, bounded by the server's ask timeout.
//! - On 2026-07-28 requests (no session) the call ends with an
//!   `InputRequiredResult` carrying the question and a signed `requestState`;
//!   the client asks the person and retries the same call with the answers.
//!   The handler then **runs again from the start**, and this time `ask`
//!   returns the answer at once. Nothing of the first attempt is kept in
//!   memory, so the retry may reach another server instance that shares the
//!   signing key.
//!
//! - In a task (a tool with `task` metadata called by a client that uses
//!   tasks), the question is written on the task: `tasks/get` shows it
//!   `input_required` with the question under its key, the client answers
//!   with `tasks/update`, and `ask` returns the answer where the handler
//!   waits; it does not run again.
//! - A prompt's handler asks the same way (`prompts/get` answers the
//!   `InputRequiredResult` on 2026-07-28).
//!
//! So: ask before doing anything that must not happen twice, and propagate the
//! error with `?`. When `ask` returns [`AskError::InputRequired`] the server
//! turns the call into the question whatever the handler returns, so nothing
//! after the `?` may have side effects the retry would repeat.
//!
//! ```
//! use toolmetadata_core::ask::{Answer, Field, Question};
//! use toolmetadata_core::{Context, ToolResult};
//!
//! async fn delete(cx: &Context, path: &str) -> ToolResult {
//!     let question = Question::new(format!("Delete {path}?"))
//!         .field(Field::boolean("backup").title("Keep a backup").default(true));
//!     match cx.ask(question).await? {
//!         Answer::Accept(answers) => {
//!             let backup: bool = answers.get("backup")?;
//!             Ok(format!("deleted {path} (backup: {backup})").into())
//!         }
//!         Answer::Decline | Answer::Cancel => Ok("nothing deleted".into()),
//!     }
//! }
//! ```

use std::fmt;

use serde_json::{Map, Value, json};

use crate::args::{ArgError, FromArg};

/// A value the person did not write (an argument, a path, a file's text) as
/// a question must show it: control and invisible characters escaped, a run
/// of more than three spaces shown as its count, and past `max_chars`
/// characters cut in the middle, so that its end, where a path names what
/// is touched, always shows. `[confirm]` messages show their arguments so.
///
/// ```
/// let shown = toolmetadata_core::ask::visible("ok;    rm -rf ~\n", 200);
/// assert_eq!(shown, "ok;[4 spaces]rm -rf ~\\n");
/// ```
pub fn visible(value: &str, max_chars: usize) -> String {
    crate::text::visible(value, max_chars)
}

/// A question for the person: a message and the fields of a form (none for a
/// plain yes/no confirmation).
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    message: String,
    fields: Vec<Field>,
    key: Option<String>,
}

impl Question {
    /// A question with this message and no fields: accepting it means yes.
    pub fn new(message: impl Into<String>) -> Self {
        Question {
            message: message.into(),
            fields: Vec::new(),
            key: None,
        }
    }

    /// The key the question goes by in a 2026-07-28 `InputRequiredResult`
    /// (`inputRequests`, `inputResponses`), for a client or a log to tell
    /// questions apart; `ask-1`, `ask-2`… in the order asked otherwise. A
    /// key is 1 to 100 bytes, not starting with `ask-`, and the keys of one
    /// call differ: asking with another is [`AskError::Failed`].
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The key given with [`key`](Self::key).
    pub fn given_key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Adds a field to the form.
    pub fn field(mut self, field: Field) -> Self {
        self.fields.push(field);
        self
    }

    /// The message shown to the person.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The form's `requestedSchema`: a flat object of primitive fields, as
    /// MCP form elicitation allows.
    // The server's: only it sends questions.
    #[doc(hidden)]
    pub fn schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for field in &self.fields {
            properties.insert(field.name.clone(), field.schema());
            if field.required {
                required.push(Value::from(field.name.as_str()));
            }
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }
}

/// The type of a form field.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    String,
    Number,
    Integer,
    Boolean,
    OneOf(Vec<String>),
    OneOfTitled(Vec<(String, String)>),
    OneOfEnumNames(Vec<(String, String)>),
    ManyOf(Vec<String>),
    ManyOfTitled(Vec<(String, String)>),
}

/// One field of a [`Question`]'s form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    name: String,
    kind: Kind,
    title: Option<String>,
    description: Option<String>,
    default: Option<Value>,
    required: bool,
}

impl Field {
    fn new(name: impl Into<String>, kind: Kind) -> Self {
        Field {
            name: name.into(),
            kind,
            title: None,
            description: None,
            default: None,
            required: false,
        }
    }

    /// A text field.
    pub fn string(name: impl Into<String>) -> Self {
        Self::new(name, Kind::String)
    }

    /// A number field.
    pub fn number(name: impl Into<String>) -> Self {
        Self::new(name, Kind::Number)
    }

    /// A whole-number field.
    pub fn integer(name: impl Into<String>) -> Self {
        Self::new(name, Kind::Integer)
    }

    /// A yes/no field.
    pub fn boolean(name: impl Into<String>) -> Self {
        Self::new(name, Kind::Boolean)
    }

    /// A choice among `values`.
    pub fn one_of(
        name: impl Into<String>,
        values: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self::new(
            name,
            Kind::OneOf(values.into_iter().map(Into::into).collect()),
        )
    }

    /// A choice among values, each shown by its title (`oneOf` of
    /// `const`/`title`, SEP-1330): `[("eu", "Europe"), ("us", "United States")]`.
    /// The answer is the chosen value.
    pub fn one_of_titled(
        name: impl Into<String>,
        choices: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>,
    ) -> Self {
        Self::new(name, Kind::OneOfTitled(pairs(choices)))
    }

    /// [`one_of_titled`](Self::one_of_titled) written the way before
    /// SEP-1330 (`enum` with `enumNames`, deprecated), for clients that
    /// read only that.
    pub fn one_of_enum_names(
        name: impl Into<String>,
        choices: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>,
    ) -> Self {
        Self::new(name, Kind::OneOfEnumNames(pairs(choices)))
    }

    /// Any number of `values` (an array of an `enum`, SEP-1330); the answer
    /// is an array of the chosen ones.
    pub fn many_of(
        name: impl Into<String>,
        values: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self::new(
            name,
            Kind::ManyOf(values.into_iter().map(Into::into).collect()),
        )
    }

    /// Any number of values, each shown by its title (an array of an
    /// `anyOf` of `const`/`title`, SEP-1330).
    pub fn many_of_titled(
        name: impl Into<String>,
        choices: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>,
    ) -> Self {
        Self::new(name, Kind::ManyOfTitled(pairs(choices)))
    }

    /// The label the client shows.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// A longer explanation.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The value the form starts with.
    pub fn default(mut self, value: impl Into<Value>) -> Self {
        self.default = Some(value.into());
        self
    }

    /// The person must fill it in to accept.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    fn schema(&self) -> Value {
        let mut schema = match &self.kind {
            Kind::String => json!({"type": "string"}),
            Kind::Number => json!({"type": "number"}),
            Kind::Integer => json!({"type": "integer"}),
            Kind::Boolean => json!({"type": "boolean"}),
            Kind::OneOf(values) => json!({"type": "string", "enum": values}),
            Kind::OneOfTitled(choices) => json!({"type": "string", "oneOf": titled(choices)}),
            Kind::OneOfEnumNames(choices) => {
                let (values, names): (Vec<&String>, Vec<&String>) =
                    choices.iter().map(|(value, name)| (value, name)).unzip();
                json!({"type": "string", "enum": values, "enumNames": names})
            }
            Kind::ManyOf(values) => {
                json!({"type": "array", "items": {"type": "string", "enum": values}})
            }
            Kind::ManyOfTitled(choices) => {
                json!({"type": "array", "items": {"anyOf": titled(choices)}})
            }
        };
        if let Some(title) = &self.title {
            schema["title"] = Value::from(title.as_str());
        }
        if let Some(description) = &self.description {
            schema["description"] = Value::from(description.as_str());
        }
        if let Some(default) = &self.default {
            schema["default"] = default.clone();
        }
        schema
    }
}

fn pairs(
    choices: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>,
) -> Vec<(String, String)> {
    choices
        .into_iter()
        .map(|(value, title)| (value.into(), title.into()))
        .collect()
}

/// `[{"const": value, "title": title}, …]`.
fn titled(choices: &[(String, String)]) -> Value {
    choices
        .iter()
        .map(|(value, title)| json!({"const": value, "title": title}))
        .collect()
}

/// What the person did with a [`Question`].
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// They accepted, with the form's values.
    Accept(Answers),
    /// They said no.
    Decline,
    /// They dismissed the question without deciding.
    Cancel,
}

impl Answer {
    /// The answer of an `ElicitResult` as JSON (`action`, `content`).
    // The server's: only it receives answers.
    #[doc(hidden)]
    pub fn from_result(result: &Value) -> Result<Answer, AskError> {
        match result.get("action").and_then(Value::as_str) {
            Some("accept") => Ok(Answer::Accept(Answers {
                values: match result.get("content") {
                    Some(Value::Object(values)) => values.clone(),
                    _ => Map::new(),
                },
            })),
            Some("decline") => Ok(Answer::Decline),
            Some("cancel") => Ok(Answer::Cancel),
            _ => Err(AskError::Failed(format!(
                "the client's answer has no valid action: {}",
                crate::text::shorten(&result.to_string(), 120)
            ))),
        }
    }
}

/// The values of an accepted form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answers {
    values: Map<String, Value>,
}

impl Answers {
    /// The value of field `name` as a `T`; an error naming the field when the
    /// person left it empty or the client sent another type.
    pub fn get<T: FromArg>(&self, name: &str) -> Result<T, ArgError> {
        match self.values.get(name) {
            Some(value) => T::from_arg(value).map_err(|p| ArgError::new(name, p)),
            None => Err(ArgError::other(
                Some(name),
                format!("the answer has no field `{name}`"),
            )),
        }
    }

    /// Every value, as the client sent them.
    pub fn values(&self) -> &Map<String, Value> {
        &self.values
    }
}

/// Why a question got no [`Answer`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AskError {
    /// The client cannot ask the person (it declared no form elicitation)
    /// or its model (no sampling), or the call has no client (a direct
    /// [`ToolSet::call`](crate::ToolSet::call)).
    Unsupported,
    /// 2026-07-28: the question goes back to the client with the call's
    /// result, and the call will be retried with the answer. Return this
    /// error (`?`) without doing anything else.
    InputRequired,
    /// The person did not answer within the server's ask timeout.
    TimedOut,
    /// The question could not be asked or its answer not read.
    Failed(String),
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::Unsupported => f.write_str(
                "the client cannot ask the user (no form elicitation) or its model (no sampling) this",
            ),
            AskError::InputRequired => f.write_str(
                "the request was sent to the client; the call is retried with the answer",
            ),
            AskError::TimedOut => f.write_str("the user or the model did not answer in time"),
            AskError::Failed(why) => write!(f, "the request could not be made: {why}"),
        }
    }
}

impl std::error::Error for AskError {}

/// Why [`Context::confirm`](crate::Context::confirm) did not get a yes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum NotConfirmed {
    /// The person said no.
    Declined,
    /// The person dismissed the question.
    Cancelled,
    /// The client cannot ask (no form elicitation, or no client at all), and
    /// the confirmation was required ([`Unsupported::Refuse`](crate::metadata::Unsupported::Refuse)).
    CannotAsk,
    /// Asking failed.
    Failed(AskError),
}

impl fmt::Display for NotConfirmed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotConfirmed::Declined => f.write_str("the user declined"),
            NotConfirmed::Cancelled => f.write_str("the user cancelled the confirmation"),
            NotConfirmed::CannotAsk => AskError::Unsupported.fmt(f),
            NotConfirmed::Failed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for NotConfirmed {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_schema_is_flat_and_typed() {
        let question = Question::new("Deploy?")
            .field(
                Field::one_of("region", ["eu", "us"])
                    .title("Region")
                    .required(),
            )
            .field(Field::integer("replicas").default(2))
            .field(Field::boolean("dry_run"));
        assert_eq!(
            question.schema(),
            json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "enum": ["eu", "us"], "title": "Region"},
                    "replicas": {"type": "integer", "default": 2},
                    "dry_run": {"type": "boolean"}
                },
                "required": ["region"]
            })
        );
        assert_eq!(
            Question::new("Sure?").schema(),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn titled_and_multiple_choices_are_written_as_sep_1330_says() {
        let question = Question::new("Where?")
            .field(Field::one_of_titled(
                "region",
                [("eu", "Europe"), ("us", "United States")],
            ))
            .field(Field::one_of_enum_names(
                "size",
                [("s", "Small"), ("l", "Large")],
            ))
            .field(Field::many_of("zones", ["a", "b"]))
            .field(Field::many_of_titled(
                "tiers",
                [("gold", "Gold"), ("free", "Free")],
            ));
        assert_eq!(
            question.schema()["properties"],
            json!({
                "region": {"type": "string", "oneOf": [
                    {"const": "eu", "title": "Europe"}, {"const": "us", "title": "United States"}]},
                "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]},
                "zones": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                "tiers": {"type": "array", "items": {"anyOf": [
                    {"const": "gold", "title": "Gold"}, {"const": "free", "title": "Free"}]}}
            })
        );
        let Ok(Answer::Accept(answers)) =
            Answer::from_result(&json!({"action": "accept", "content": {"zones": ["a", "b"]}}))
        else {
            panic!("accepted")
        };
        assert_eq!(answers.get::<Vec<String>>("zones").unwrap(), ["a", "b"]);
    }

    #[test]
    fn answers_are_read_with_their_types() {
        let answer = Answer::from_result(
            &json!({"action": "accept", "content": {"replicas": 3, "region": "eu"}}),
        )
        .unwrap();
        let Answer::Accept(answers) = answer else {
            panic!("{answer:?}")
        };
        assert_eq!(answers.get::<i64>("replicas").unwrap(), 3);
        assert!(answers.get::<i64>("region").is_err());
        assert!(
            answers
                .get::<bool>("missing")
                .unwrap_err()
                .to_string()
                .contains("missing")
        );
        assert_eq!(
            Answer::from_result(&json!({"action": "decline"})).unwrap(),
            Answer::Decline
        );
        assert!(Answer::from_result(&json!({"action": "maybe"})).is_err());
    }
}
