//! Argument errors: each names the argument, what was expected and what came,
//! so a model can correct its call; all of a call's errors are reported at once.

use std::fmt;

/// What is wrong with one argument value, before it is tied to the argument's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgProblem {
    message: String,
}

impl ArgProblem {
    /// A value of the wrong type: "expected an integer, got string "abc"".
    pub fn expected(expected: &str, got: &serde_json::Value) -> Self {
        ArgProblem {
            message: format!("expected {expected}, got {}", describe(got)),
        }
    }

    /// Any other problem, in words.
    pub fn new(message: impl Into<String>) -> Self {
        ArgProblem {
            message: message.into(),
        }
    }

    /// The problem in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ArgProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArgProblem {}

/// One bad argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    argument: Option<String>,
    message: String,
}

impl ArgError {
    /// A problem with the argument `argument`.
    pub fn new(argument: &str, problem: ArgProblem) -> Self {
        ArgError {
            argument: Some(argument.to_owned()),
            message: format!("`{argument}`: {}", problem.message),
        }
    }

    /// A problem with the arguments as a whole, or an argument that is not in
    /// the schema; `message` says it all.
    pub fn other(argument: Option<&str>, message: impl Into<String>) -> Self {
        ArgError {
            argument: argument.map(str::to_owned),
            message: message.into(),
        }
    }

    /// The argument's JSON name, when the error is about one argument.
    pub fn argument(&self) -> Option<&str> {
        self.argument.as_deref()
    }

    /// The error in words, naming the argument.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::error::Error for ArgError {}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Every bad argument of one call; `Display` lists them for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgErrors {
    tool: String,
    errors: Vec<ArgError>,
}

impl ArgErrors {
    /// The errors of a call of `tool`.
    pub fn new(tool: &str, errors: Vec<ArgError>) -> Self {
        ArgErrors {
            tool: tool.to_owned(),
            errors,
        }
    }

    /// The tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The errors, in the order of the parameters (unknown arguments first).
    pub fn errors(&self) -> &[ArgError] {
        &self.errors
    }
}

impl fmt::Display for ArgErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        let plural = if n == 1 { "" } else { "s" };
        write!(
            f,
            "invalid arguments for tool `{}` ({n} error{plural}):",
            self.tool
        )?;
        for e in &self.errors {
            write!(f, "\n- {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgErrors {}

/// A value as an error message shows it: its JSON type and (shortened) text.
pub fn describe(value: &serde_json::Value) -> String {
    use serde_json::Value;
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    format!("{kind} {}", crate::text::shorten(&value.to_string(), 60))
}
