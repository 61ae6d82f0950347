//! What `[package.metadata.mcp]` says, checked: the server's table, its
//! remotes, arguments and variables, and how each is written into the
//! registry's entry and a bundle's configuration.

use serde_json::{Map, Value, json};
use toolmetadata_load::Span;

/// A value and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

impl<T> Located<T> {
    pub(crate) fn new(value: T, span: Span) -> Self {
        Located { value, span }
    }
}

/// The table, checked.
#[derive(Debug, Clone)]
pub(crate) struct ServerTable {
    /// Where the table is (its key), for problems of the whole table.
    pub(crate) span: Span,
    /// The registry name, `namespace/name` (`io.github.owner/server`).
    pub(crate) name: Located<String>,
    pub(crate) title: Option<Located<String>>,
    pub(crate) description: Option<Located<String>>,
    pub(crate) author: Option<Located<String>>,
    /// The binary's name, when it is not the package's.
    pub(crate) bin: Option<Located<String>>,
    pub(crate) remotes: Vec<Remote>,
    pub(crate) arguments: Vec<Argument>,
    pub(crate) env: Vec<Variable>,
}

/// A deployment of the server reachable over HTTP.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    /// `streamable-http` or `sse`.
    pub(crate) transport: Located<String>,
    pub(crate) url: Located<String>,
    pub(crate) protocol_versions: Vec<String>,
}

/// What a value is, for the people who configure it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    String,
    Number,
    Boolean,
    Directory,
    File,
}

impl Kind {
    pub(crate) const NAMES: [&'static str; 5] =
        ["string", "number", "boolean", "directory", "file"];

    pub(crate) fn of(name: &str) -> Option<Kind> {
        Some(match name {
            "string" => Kind::String,
            "number" => Kind::Number,
            "boolean" => Kind::Boolean,
            "directory" => Kind::Directory,
            "file" => Kind::File,
            _ => return None,
        })
    }

    /// The registry's `format`.
    fn registry(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Directory | Kind::File => "filepath",
        }
    }

    /// A bundle's `user_config` type.
    pub(crate) fn bundle(self) -> &'static str {
        Kind::NAMES[self as usize]
    }
}

/// A command-line argument: named (`--root`) or positional.
#[derive(Debug, Clone)]
pub(crate) struct Argument {
    pub(crate) name: String,
    pub(crate) setting: Setting,
    /// It may be given more than once.
    pub(crate) repeated: bool,
    /// For a positional argument, what its value is (the registry's
    /// `valueHint`).
    pub(crate) value_hint: Option<String>,
}

/// An environment variable the server reads.
#[derive(Debug, Clone)]
pub(crate) struct Variable {
    pub(crate) name: String,
    pub(crate) setting: Setting,
}

/// What arguments and variables share: how the person sets the value.
#[derive(Debug, Clone)]
pub(crate) struct Setting {
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) required: bool,
    pub(crate) secret: bool,
    pub(crate) kind: Kind,
    pub(crate) default: Option<Value>,
}

impl Setting {
    /// The registry's input fields.
    fn registry(&self, into: &mut Value) {
        into["description"] = json!(self.description);
        into["isRequired"] = json!(self.required);
        into["format"] = json!(self.kind.registry());
        if self.secret {
            into["isSecret"] = json!(true);
        }
        if let Some(default) = &self.default {
            into["default"] = json!(scalar_text(default));
        }
    }

    /// A bundle's `user_config` entry.
    fn bundle(&self, key: &str, multiple: bool) -> Value {
        let mut entry = json!({
            "type": self.kind.bundle(),
            "title": self.title.clone().unwrap_or_else(|| title_of(key)),
            "description": self.description,
            "required": self.required,
        });
        if multiple {
            entry["multiple"] = json!(true);
        }
        if self.secret {
            entry["sensitive"] = json!(true);
        }
        // The host substitutes only values it has: an optional value
        // without a default would reach the binary as its `${…}` text, so
        // it defaults to empty (false for a flag).
        match (&self.default, self.required, self.kind) {
            (Some(default), _, _) => entry["default"] = default.clone(),
            (None, false, Kind::Boolean) => entry["default"] = json!(false),
            (None, false, _) if !multiple => entry["default"] = json!(""),
            _ => {}
        }
        entry
    }
}

impl Argument {
    fn named(&self) -> bool {
        self.name.starts_with('-')
    }

    /// The argument's key in a bundle's `user_config`: its name without
    /// dashes, in snake case.
    pub(crate) fn key(&self) -> String {
        self.name.trim_start_matches('-').replace('-', "_")
    }

    /// The registry's argument.
    pub(crate) fn registry(&self) -> Value {
        let mut argument = if self.named() {
            json!({"type": "named", "name": self.name})
        } else {
            json!({
                "type": "positional",
                "valueHint": self.value_hint.clone().unwrap_or_else(|| self.name.clone()),
            })
        };
        self.setting.registry(&mut argument);
        if self.repeated {
            argument["isRepeated"] = json!(true);
        }
        argument
    }

    /// Its place in a bundle's `mcp_config.args` and `user_config`: a
    /// flag is `--name=VALUE` (empty when an optional value is not set), a
    /// repeated one the name followed by its values (the host expands one
    /// argument into several), a positional argument its value.
    pub(crate) fn bundle(&self, args: &mut Vec<Value>, user_config: &mut Map<String, Value>) {
        let key = self.key();
        let value = format!("${{user_config.{key}}}");
        match (self.named(), self.repeated) {
            (true, false) => args.push(json!(format!("{}={value}", self.name))),
            (true, true) => {
                args.push(json!(self.name));
                args.push(json!(value));
            }
            (false, _) => args.push(json!(value)),
        }
        user_config.insert(key.clone(), self.setting.bundle(&key, self.repeated));
    }
}

impl Variable {
    /// Its key in a bundle's `user_config`.
    pub(crate) fn key(&self) -> String {
        self.name.to_ascii_lowercase()
    }

    /// The registry's environment variable.
    pub(crate) fn registry(&self) -> Value {
        let mut variable = json!({"name": self.name});
        self.setting.registry(&mut variable);
        variable
    }

    /// Its place in a bundle's `mcp_config.env` and `user_config`.
    pub(crate) fn bundle(
        &self,
        env: &mut Map<String, Value>,
        user_config: &mut Map<String, Value>,
    ) {
        let key = self.key();
        env.insert(self.name.clone(), json!(format!("${{user_config.{key}}}")));
        user_config.insert(key.clone(), self.setting.bundle(&key, false));
    }
}

/// `read_only` → `Read only`.
fn title_of(key: &str) -> String {
    let words = key.replace('_', " ");
    let mut chars = words.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// A default as the registry writes it: text.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
