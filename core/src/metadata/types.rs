//! The format as data: what a checked metadata file says.

use std::fmt;
use std::str::FromStr;

pub use super::policy::{DeclaredFailure, FailureClass, Limits, Rate, Source};

/// One tool, as described by one metadata file, checked.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolMetadata {
    /// The tool name (the file stem).
    pub name: String,
    /// The description as written; [`ToolMetadata::listed_description`] gives the
    /// whitespace-collapsed form that `tools/list` shows.
    pub description: String,
    /// The display name, when given and non-empty.
    pub title: Option<String>,
    /// Words `tool_search` matches, besides the name and description.
    pub keywords: Vec<String>,
    /// Hidden from a plain `tools/list`, found through `tool_search`.
    pub discoverable: bool,
    /// The arguments, in declaration order.
    pub parameters: Vec<ToolParameter>,
    /// The fields of the structured result (ext), when the tool declares one.
    pub output: Option<Vec<ToolParameter>>,
    /// `outputText` (ext): the template the structured result's text is
    /// rendered from ([`output_text`](super::output_text)), checked against `output`.
    pub output_text: Option<String>,
    /// Behaviour hints, each absent unless set.
    pub hints: Hints,
    /// The MCP Apps UI resource the tool links to.
    pub ui: Option<UiMeta>,
    /// Icons for the tool's `tools/list` entry.
    pub icons: Vec<Icon>,
    /// `[confirm]` (ext): the question the server asks the person before the
    /// handler runs.
    pub confirm: Option<Confirm>,
    /// Whether a call may, must or must not run as a task (ext, `task`).
    pub task: TaskSupport,
    /// `scopes`: the OAuth scopes a caller needs to see and call the tool
    /// over authorized HTTP.
    pub scopes: Vec<String>,
    /// `toolVersion` (ext): the tool's semantic version, as written (checked
    /// to parse as a [`Version`](super::Version)); the catalog lock compares
    /// it to tell whether a change was bumped enough.
    pub version: Option<String>,
    /// `toolGroups` (ext): the groups the tool belongs to, each a path
    /// segment; a server serves each group's tools at an endpoint of its own.
    pub groups: Vec<String>,
    /// `[limits]` (ext): how long a call may run, how many run at once, how
    /// often one caller may call; the server enforces them.
    pub limits: Limits,
    /// `[[failures]]` (ext): the failures the tool declares, which its
    /// handler returns by code and clients can act on.
    pub failures: Vec<DeclaredFailure>,
    /// `[lints]` (ext): the level of the build's findings about this tool,
    /// by rule (`quality-confirm = "allow"` for a tool whose handler asks
    /// the person itself), in the order written.
    pub lints: Vec<(String, LintLevel)>,
}

/// What a tool's `[lints]` makes of one rule's findings about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LintLevel {
    /// Not reported.
    Allow,
    /// A warning: reported, the build goes on.
    Warn,
    /// An error: the build fails.
    Deny,
}

impl LintLevel {
    /// Every level, in documentation order.
    pub const ALL: [LintLevel; 3] = [LintLevel::Allow, LintLevel::Warn, LintLevel::Deny];

    /// The spelling in the format, as Cargo's `[lints]` spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            LintLevel::Allow => "allow",
            LintLevel::Warn => "warn",
            LintLevel::Deny => "deny",
        }
    }
}

impl ToolMetadata {
    /// The description with runs of Unicode whitespace collapsed to one space and
    /// trimmed, as the Go package does.
    pub fn listed_description(&self) -> String {
        self.description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The level `[lints]` gives `rule` (its code, such as
    /// `quality-confirm`), when it gives one.
    pub fn lint(&self, rule: &str) -> Option<LintLevel> {
        self.lints
            .iter()
            .find(|(r, _)| r == rule)
            .map(|(_, level)| *level)
    }

    /// The parameter called `name`.
    pub fn parameter(&self, name: &str) -> Option<&ToolParameter> {
        self.parameters.iter().find(|p| p.name == name)
    }
}

/// Whether a tool's calls run as tasks (`task`, rendered as
/// `execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TaskSupport {
    /// Never a task (the default, and what a tool without `task` says).
    #[default]
    Forbidden,
    /// A task when the client asks for or supports one, a plain call otherwise.
    Optional,
    /// Only as a task: a client that cannot use tasks is refused.
    Required,
}

impl TaskSupport {
    /// Every value, in documentation order.
    pub const ALL: [TaskSupport; 3] = [
        TaskSupport::Forbidden,
        TaskSupport::Optional,
        TaskSupport::Required,
    ];

    /// The spelling in the format and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }

    /// The value spelled `s` exactly, if any.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// The behaviour hints (`annotations` in `tools/list`). Hints, never access control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hints {
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only: Option<bool>,
    /// `destructiveHint`: it may perform destructive updates.
    pub destructive: Option<bool>,
    /// `idempotentHint`: repeating a call has no further effect.
    pub idempotent: Option<bool>,
    /// `openWorldHint`: it interacts with external entities.
    pub open_world: Option<bool>,
}

impl Hints {
    /// True when no hint is set (the entry then has no `annotations`).
    pub fn is_empty(&self) -> bool {
        *self == Hints::default()
    }
}

/// One parameter (or one field of the output).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolParameter {
    /// The JSON name, used in arguments and the schema.
    pub name: String,
    /// The type.
    pub ty: ParamType,
    /// The description, verbatim; left out of the schema when empty.
    pub description: String,
    /// Whether the argument must be given (for output: always present).
    pub required: bool,
    /// The allowed values (ext), on `string` and `array:string` only.
    pub enum_values: Option<Vec<String>>,
    /// The value used when the argument is absent (ext).
    pub default: Option<Literal>,
    /// Constraints (ext).
    pub constraints: Constraints,
    /// The HTTP header the argument is mirrored into (ext, `header`): rendered
    /// as `x-mcp-header`, sent by clients as `Mcp-Param-<header>`.
    pub header: Option<String>,
    /// Where the value comes from instead of the model (ext, `from`): a
    /// claim of the verified token or a header of the request. Such a
    /// parameter is left out of the `inputSchema`, a call that sets it is
    /// refused, and the server fills it in before the arguments decode.
    pub from: Option<Source>,
}

/// A parameter type: a scalar or an array of scalars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// One value.
    Scalar(ScalarType),
    /// An array of values of one type.
    Array(ScalarType),
}

impl Default for ParamType {
    fn default() -> Self {
        ParamType::Scalar(ScalarType::String)
    }
}

/// The scalar types of the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `string`: a Rust `String`.
    String,
    /// `int`/`integer`: a Rust `i64`.
    Integer,
    /// `float`/`number`: a Rust `f64`.
    Number,
    /// `bool`/`boolean`: a Rust `bool`.
    Boolean,
}

impl ScalarType {
    /// The JSON Schema type name.
    pub fn json_type(self) -> &'static str {
        match self {
            ScalarType::String => "string",
            ScalarType::Integer => "integer",
            ScalarType::Number => "number",
            ScalarType::Boolean => "boolean",
        }
    }

    /// The canonical short spelling in the format (`int`, `float`, `bool`).
    pub fn short_name(self) -> &'static str {
        match self {
            ScalarType::String => "string",
            ScalarType::Integer => "int",
            ScalarType::Number => "float",
            ScalarType::Boolean => "bool",
        }
    }

    /// True for `int` and `float`.
    pub fn is_numeric(self) -> bool {
        matches!(self, ScalarType::Integer | ScalarType::Number)
    }
}

impl ParamType {
    /// Every type string the format accepts, in documentation order.
    pub const SPELLINGS: &'static [&'static str] = &[
        "string",
        "int",
        "integer",
        "float",
        "number",
        "bool",
        "boolean",
        "array:string",
        "array:int",
        "array:integer",
        "array:float",
        "array:number",
        "array:bool",
        "array:boolean",
    ];

    /// The scalar type, or the item type of an array.
    pub fn scalar(self) -> ScalarType {
        match self {
            ParamType::Scalar(s) | ParamType::Array(s) => s,
        }
    }

    /// True for arrays.
    pub fn is_array(self) -> bool {
        matches!(self, ParamType::Array(_))
    }
}

/// The error of parsing a type string that the format does not define.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownType(pub String);

impl fmt::Display for UnknownType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown parameter type {:?}", self.0)
    }
}

impl std::error::Error for UnknownType {}

impl FromStr for ParamType {
    type Err = UnknownType;

    /// Parses a type string exactly (case-sensitive, no spaces), as the format does.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (array, scalar) = match s.strip_prefix("array:") {
            Some(item) => (true, item),
            None => (false, s),
        };
        let scalar = match scalar {
            "string" => ScalarType::String,
            "int" | "integer" => ScalarType::Integer,
            "float" | "number" => ScalarType::Number,
            "bool" | "boolean" => ScalarType::Boolean,
            _ => return Err(UnknownType(s.to_owned())),
        };
        Ok(if array {
            ParamType::Array(scalar)
        } else {
            ParamType::Scalar(scalar)
        })
    }
}

impl fmt::Display for ParamType {
    /// The canonical short spelling: `int`, `array:string`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamType::Scalar(s) => f.write_str(s.short_name()),
            ParamType::Array(s) => write!(f, "array:{}", s.short_name()),
        }
    }
}

/// A number as written for a bound: an integer for `int` parameters, a float for
/// `float` ones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// A whole number.
    Integer(i64),
    /// Any number.
    Float(f64),
}

impl Number {
    /// The value as an `f64`.
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Integer(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Integer(i) => write!(f, "{i}"),
            Number::Float(x) => f.write_str(&format_float(*x)),
        }
    }
}

/// A default value, already of its parameter's type.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// A string.
    String(String),
    /// An integer.
    Integer(i64),
    /// A number.
    Number(f64),
    /// A boolean.
    Boolean(bool),
    /// An array of literals of one type.
    Array(Vec<Literal>),
}

impl Literal {
    /// The literal as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Literal::String(s) => serde_json::Value::from(s.as_str()),
            Literal::Integer(i) => serde_json::Value::from(*i),
            Literal::Number(x) => serde_json::Value::from(*x),
            Literal::Boolean(b) => serde_json::Value::from(*b),
            Literal::Array(items) => items.iter().map(Literal::to_json).collect(),
        }
    }
}

/// The constraints (ext) of a parameter; each appears in the schema and is
/// enforced on arguments.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constraints {
    /// Lowest value (of the parameter, or of each item of an array).
    pub minimum: Option<Number>,
    /// Highest value (of the parameter, or of each item of an array).
    pub maximum: Option<Number>,
    /// Fewest characters of a string.
    pub min_length: Option<u64>,
    /// Most characters of a string.
    pub max_length: Option<u64>,
    /// A regular expression a string must match somewhere (JSON Schema semantics).
    pub pattern: Option<String>,
    /// Fewest items of an array.
    pub min_items: Option<u64>,
    /// Most items of an array.
    pub max_items: Option<u64>,
}

impl Constraints {
    /// True when no constraint is set.
    pub fn is_empty(&self) -> bool {
        *self == Constraints::default()
    }
}

/// The MCP Apps UI resource a tool links to (`_meta.ui`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UiMeta {
    /// A `ui://` URI; `None` when absent or empty.
    pub resource_uri: Option<String>,
    /// Who the tool is visible to; empty when not given.
    pub visibility: Vec<Visibility>,
}

/// A `visibility` value of `[ui]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visibility {
    /// `model`: the model may call the tool.
    Model,
    /// `app`: the UI app may call the tool.
    App,
}

impl Visibility {
    /// The spelling in the format and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Model => "model",
            Visibility::App => "app",
        }
    }
}

/// An icon of the tool.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Icon {
    /// An `https:` URL or a `data:` URI.
    pub src: String,
    /// The image's MIME type.
    pub mime_type: Option<String>,
    /// Sizes such as `48x48` or `any`.
    pub sizes: Vec<String>,
    /// The theme the icon is drawn for.
    pub theme: Option<Theme>,
}

/// The theme an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Theme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

impl Theme {
    /// The spelling in the format and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// `[confirm]` (ext): ask the person before the handler runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    /// The question; `{name}` stands for the argument `name` (`{{` and `}}`
    /// for literal braces).
    pub message: String,
    /// What happens when the client cannot ask.
    pub unsupported: Unsupported,
}

/// What a confirmed tool does when the client cannot ask the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unsupported {
    /// Run the handler anyway (the default).
    #[default]
    Proceed,
    /// Refuse the call, saying that it needs a confirmation.
    Refuse,
}

impl Unsupported {
    /// The value as the metadata writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Unsupported::Proceed => "proceed",
            Unsupported::Refuse => "refuse",
        }
    }
}

/// One piece of a confirmation message: text, or a placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessagePart<'a> {
    /// Literal text (braces unescaped).
    Text(&'a str),
    /// `{name}`: the argument `name`.
    Placeholder(&'a str),
}

/// Splits a confirmation message into text and placeholders; an error says
/// which brace does not pair up. `{{` and `}}` are literal braces.
pub fn message_parts(message: &str) -> Result<Vec<MessagePart<'_>>, String> {
    let mut parts = Vec::new();
    let mut rest = message;
    while !rest.is_empty() {
        let Some(at) = rest.find(['{', '}']) else {
            parts.push(MessagePart::Text(rest));
            break;
        };
        if at > 0 {
            parts.push(MessagePart::Text(&rest[..at]));
        }
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("{{") {
            parts.push(MessagePart::Text("{"));
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            parts.push(MessagePart::Text("}"));
            rest = after;
        } else if tail.starts_with('}') {
            return Err("a `}` closes no placeholder (write `}}` for a brace)".to_owned());
        } else {
            let inner = &tail[1..];
            match inner.find(['{', '}']) {
                Some(end) if inner[end..].starts_with('}') => {
                    parts.push(MessagePart::Placeholder(&inner[..end]));
                    rest = &inner[end + 1..];
                }
                _ => {
                    return Err(
                        "a `{` opens a placeholder that is not closed (write `{{` for a brace)"
                            .to_owned(),
                    );
                }
            }
        }
    }
    Ok(parts)
}

/// A float as TOML and JSON write it: `1.0`, not `1`.
pub fn format_float(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_strings_parse_exactly() {
        for s in ParamType::SPELLINGS {
            assert!(s.parse::<ParamType>().is_ok(), "{s}");
        }
        for s in [
            "String",
            "array:",
            "array:array:int",
            " string",
            "",
            "object",
            "array:object",
        ] {
            assert!(s.parse::<ParamType>().is_err(), "{s}");
        }
        assert_eq!(
            "integer".parse(),
            Ok(ParamType::Scalar(ScalarType::Integer))
        );
        assert_eq!(
            "array:number".parse::<ParamType>().unwrap().to_string(),
            "array:float"
        );
    }

    #[test]
    fn description_whitespace_collapses_like_go() {
        let tool = ToolMetadata {
            confirm: None,
            description: " a\u{2003}b\u{85}c\u{a0} d\u{200b}e\u{1f}f ".into(),
            ..Default::default()
        };
        assert_eq!(tool.listed_description(), "a b c d\u{200b}e\u{1f}f");
    }
}
