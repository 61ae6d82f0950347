//! `[package.metadata.mcp]` of `Cargo.toml`, read with its spans and
//! checked against what the registry, bundles and server cards accept, into
//! the model of `inputs`.

use std::sync::Arc;

use serde_json::{Value, json};
use toml::de::{DeTable, DeValue};
use toolmetadata_load::{Diagnostic, Diagnostics, Rule, SourceFile, Span};

use super::inputs::{Argument, Kind, Located, Remote, ServerTable, Setting, Variable};

/// The keys of each table, for unknown-key diagnostics.
const SERVER_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "author",
    "bin",
    "remotes",
    "arguments",
    "env",
];
const REMOTE_KEYS: &[&str] = &["type", "url", "protocol-versions"];
const ARGUMENT_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "required",
    "repeated",
    "secret",
    "kind",
    "default",
    "value-hint",
];
const VARIABLE_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "required",
    "secret",
    "kind",
    "default",
];

/// Reads the table of `file` (a `Cargo.toml`).
pub(crate) fn read(file: &Arc<SourceFile>) -> Result<ServerTable, Diagnostics> {
    let mut reader = Reader {
        file: file.clone(),
        problems: Vec::new(),
    };
    let document = match DeTable::parse(file.text()) {
        Ok(document) => document,
        Err(e) => {
            let span = e
                .span()
                .map_or(Span::new(0, 0), |r| Span::new(r.start, r.end));
            reader.problem(
                span,
                format!("Cargo.toml is not valid TOML: {}", e.message()),
                None,
            );
            return Err(Diagnostics::new(reader.problems));
        }
    };
    let mcp = ["package", "metadata", "mcp"].iter().try_fold(
        (document.get_ref(), Span::new(0, 0)),
        |(table, _), key| {
            let (k, v) = table.get_key_value(*key)?;
            match v.get_ref() {
                DeValue::Table(inner) => Some((inner, span_of(k.span()))),
                _ => None,
            }
        },
    );
    let Some((table, span)) = mcp else {
        reader.problem(
            Span::new(0, 0),
            "the manifests are written from a [package.metadata.mcp] table, and there is none".to_owned(),
            Some("add one with at least the registry name: `[package.metadata.mcp]` and `name = \"io.github.owner/server\"` (the `toolmetadata_build::manifest` docs list every key)"),
        );
        return Err(Diagnostics::new(reader.problems));
    };
    reader.unknown_keys(table, SERVER_KEYS, "[package.metadata.mcp]");
    let name = reader.string(table, "name");
    if let Some(name) = &name {
        reader.check_name(name);
    }
    let title = reader.string(table, "title");
    if let Some(title) = &title {
        reader.check_length(title, "title", 1, 100);
    }
    let server = ServerTable {
        span,
        name: name.unwrap_or_else(|| {
            reader.problem(
                span,
                "[package.metadata.mcp] has no `name`".to_owned(),
                Some("the registry name: `name = \"io.github.owner/server\"`"),
            );
            Located::new(String::new(), span)
        }),
        title,
        description: reader.string(table, "description"),
        author: reader.string(table, "author"),
        bin: reader
            .string(table, "bin")
            .filter(|bin| reader.check_bin(bin)),
        remotes: reader
            .tables(table, "remotes")
            .into_iter()
            .filter_map(|(t, s)| reader.remote(t, s))
            .collect(),
        arguments: reader
            .tables(table, "arguments")
            .into_iter()
            .filter_map(|(t, s)| reader.argument(t, s))
            .collect(),
        env: reader
            .tables(table, "env")
            .into_iter()
            .filter_map(|(t, s)| reader.variable(t, s))
            .collect(),
    };
    reader.check_keys_unique(table, &server);
    if reader.problems.is_empty() {
        Ok(server)
    } else {
        Err(Diagnostics::new(reader.problems))
    }
}

struct Reader {
    file: Arc<SourceFile>,
    problems: Vec<Diagnostic>,
}

impl Reader {
    fn problem(&mut self, span: Span, message: String, help: Option<&str>) {
        let mut diagnostic = Diagnostic::error(Rule::ServerManifest, self.file.clone(), message)
            .with_primary(span, "here");
        if let Some(help) = help {
            diagnostic = diagnostic.with_help(help);
        }
        self.problems.push(diagnostic);
    }

    fn unknown_keys(&mut self, table: &DeTable<'_>, known: &[&str], what: &str) {
        for key in table.keys() {
            if !known.contains(&key.get_ref().as_ref()) {
                self.problem(
                    span_of(key.span()),
                    format!("unknown key `{}` in {what}", key.get_ref()),
                    Some(&format!("the keys are {}", known.join(", "))),
                );
            }
        }
    }

    fn value<'t>(&self, table: &'t DeTable<'t>, key: &str) -> Option<(&'t DeValue<'t>, Span)> {
        table.get(key).map(|v| (v.get_ref(), span_of(v.span())))
    }

    fn string(&mut self, table: &DeTable<'_>, key: &str) -> Option<Located<String>> {
        let (value, span) = self.value(table, key)?;
        match value {
            DeValue::String(s) => Some(Located::new(s.to_string(), span)),
            _ => {
                self.problem(span, format!("`{key}` must be a string"), None);
                None
            }
        }
    }

    fn boolean(&mut self, table: &DeTable<'_>, key: &str) -> bool {
        match self.value(table, key) {
            None => false,
            Some((DeValue::Boolean(b), _)) => *b,
            Some((_, span)) => {
                self.problem(span, format!("`{key}` must be true or false"), None);
                false
            }
        }
    }

    /// The tables of the array `key` (`[[package.metadata.mcp.key]]`).
    fn tables<'t>(&mut self, table: &'t DeTable<'t>, key: &str) -> Vec<(&'t DeTable<'t>, Span)> {
        let Some((value, span)) = self.value(table, key) else {
            return Vec::new();
        };
        let DeValue::Array(items) = value else {
            self.problem(span, format!("`{key}` must be an array of tables"), None);
            return Vec::new();
        };
        let mut tables = Vec::new();
        for item in items.iter() {
            match item.get_ref() {
                DeValue::Table(t) => tables.push((t, span_of(item.span()))),
                _ => self.problem(
                    span_of(item.span()),
                    format!("each of `{key}` must be a table"),
                    None,
                ),
            }
        }
        tables
    }

    fn required_string(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        span: Span,
        what: &str,
    ) -> Option<Located<String>> {
        let found = self.string(table, key);
        if found.is_none() && table.get(key).is_none() {
            self.problem(span, format!("{what} has no `{key}`"), None);
        }
        found
    }

    fn check_name(&mut self, name: &Located<String>) {
        let valid = name.value.split_once('/').is_some_and(|(space, rest)| {
            !space.is_empty()
                && !rest.is_empty()
                && space
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
        });
        if !valid {
            self.problem(
                name.span,
                format!("the registry name `{}` is not `namespace/name`", name.value),
                Some("a reverse-DNS namespace, one slash and a name, such as `io.github.owner/server` (letters, digits, `.` and `-`; `_` too after the slash)"),
            );
        }
        self.check_length(name, "name", 3, 200);
    }

    /// A binary's name is a Cargo target name: it is a path in the bundle.
    fn check_bin(&mut self, bin: &Located<String>) -> bool {
        let valid = !bin.value.is_empty()
            && bin
                .value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            self.problem(
                bin.span,
                format!("`{}` is not a binary's name", bin.value),
                Some("letters, digits, `-` and `_`, as Cargo names a [[bin]]"),
            );
        }
        valid
    }

    fn check_length(&mut self, value: &Located<String>, key: &str, min: usize, max: usize) {
        let chars = value.value.chars().count();
        if chars < min || chars > max {
            self.problem(
                value.span,
                format!("`{key}` is {chars} characters; it takes {min} to {max}"),
                None,
            );
        }
    }

    fn remote(&mut self, table: &DeTable<'_>, span: Span) -> Option<Remote> {
        self.unknown_keys(table, REMOTE_KEYS, "a remote");
        let transport = self.required_string(table, "type", span, "a remote")?;
        if !["streamable-http", "sse"].contains(&transport.value.as_str()) {
            self.problem(
                transport.span,
                format!(
                    "a remote's `type` is `streamable-http` or `sse`, not `{}`",
                    transport.value
                ),
                None,
            );
        }
        let url = self.required_string(table, "url", span, "a remote")?;
        let scheme = url
            .value
            .strip_prefix("https://")
            .or_else(|| url.value.strip_prefix("http://"));
        if !scheme.is_some_and(|rest| !rest.is_empty() && !rest.contains(char::is_whitespace)) {
            self.problem(
                url.span,
                format!("`{}` is not an http(s) URL", url.value),
                None,
            );
        }
        let mut protocol_versions = Vec::new();
        if let Some((value, span)) = self.value(table, "protocol-versions") {
            match value {
                DeValue::Array(items)
                    if items
                        .iter()
                        .all(|i| matches!(i.get_ref(), DeValue::String(_))) =>
                {
                    protocol_versions = items
                        .iter()
                        .filter_map(|i| match i.get_ref() {
                            DeValue::String(s) => Some(s.to_string()),
                            _ => None,
                        })
                        .collect();
                }
                _ => self.problem(
                    span,
                    "`protocol-versions` must be an array of strings".to_owned(),
                    None,
                ),
            }
        }
        Some(Remote {
            transport,
            url,
            protocol_versions,
        })
    }

    fn setting(&mut self, table: &DeTable<'_>, span: Span, what: &str) -> Option<Setting> {
        let description = self.required_string(table, "description", span, what);
        let kind = match self.string(table, "kind") {
            None => Kind::String,
            Some(kind) => Kind::of(&kind.value).unwrap_or_else(|| {
                self.problem(
                    kind.span,
                    format!("unknown kind `{}`", kind.value),
                    Some(&format!("the kinds are {}", Kind::NAMES.join(", "))),
                );
                Kind::String
            }),
        };
        let default = self.value(table, "default").and_then(|(value, span)| {
            let json = default_of(value, kind);
            if json.is_none() {
                self.problem(
                    span,
                    format!(
                        "this `default` is not a {} value{}",
                        kind.bundle(),
                        if kind == Kind::Number {
                            " (a finite number, an integer in 64 bits)"
                        } else {
                            ""
                        }
                    ),
                    None,
                );
            }
            json
        });
        let setting = Setting {
            title: self.string(table, "title").map(|t| t.value),
            description: description?.value,
            required: self.boolean(table, "required"),
            secret: self.boolean(table, "secret"),
            kind,
            default,
        };
        if setting.secret
            && setting.default.is_some()
            && let Some((_, span)) = self.value(table, "default")
        {
            self.problem(
                span,
                "a secret's `default` would be published in server.json and compiled into the binary".to_owned(),
                Some("leave the default out: the person gives the secret"),
            );
        }
        Some(setting)
    }

    fn argument(&mut self, table: &DeTable<'_>, span: Span) -> Option<Argument> {
        self.unknown_keys(table, ARGUMENT_KEYS, "an argument");
        let name = self.required_string(table, "name", span, "an argument")?;
        let word = name.value.trim_start_matches('-');
        if word.is_empty()
            || !word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            self.problem(
                name.span,
                format!(
                    "the argument name `{}` is not a flag (`--root`) or a word (`path`)",
                    name.value
                ),
                None,
            );
        }
        let setting = self.setting(table, span, "an argument");
        let repeated = self.boolean(table, "repeated");
        let value_hint = self.string(table, "value-hint").map(|v| v.value);
        let positional = !name.value.starts_with('-');
        if let Some(setting) = &setting
            && !setting.required
            && setting.default.is_none()
            && (repeated || positional)
        {
            self.problem(
                name.span,
                format!(
                    "`{}` is optional with no default, which an MCP bundle cannot pass: the host would give the binary {} text",
                    name.value,
                    if repeated { "a bare flag, or the placeholder's" } else { "the placeholder's" }
                ),
                Some("make it `required = true`, or give it a `default`"),
            );
        }
        Some(Argument {
            name: name.value,
            setting: setting?,
            repeated,
            value_hint,
        })
    }

    fn variable(&mut self, table: &DeTable<'_>, span: Span) -> Option<Variable> {
        self.unknown_keys(table, VARIABLE_KEYS, "an environment variable");
        let name = self.required_string(table, "name", span, "an environment variable")?;
        if name.value.is_empty()
            || name.value.starts_with(|c: char| c.is_ascii_digit())
            || !name
                .value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.problem(
                name.span,
                format!("`{}` is not an environment variable's name", name.value),
                Some("letters, digits and `_`, not starting with a digit"),
            );
        }
        let setting = self.setting(table, span, "an environment variable")?;
        Some(Variable {
            name: name.value,
            setting,
        })
    }

    /// Two arguments or variables with one bundle key would share one value.
    fn check_keys_unique(&mut self, table: &DeTable<'_>, server: &ServerTable) {
        let mut seen = std::collections::BTreeSet::new();
        let keys = server
            .arguments
            .iter()
            .map(Argument::key)
            .chain(server.env.iter().map(Variable::key));
        for key in keys {
            if !seen.insert(key.clone()) {
                let span = table
                    .get_key_value("arguments")
                    .or_else(|| table.get_key_value("env"))
                    .map_or(server.span, |(k, _)| span_of(k.span()));
                self.problem(
                    span,
                    format!("two arguments or variables are both `{key}` in a bundle's user configuration"),
                    Some("an argument's key is its name without dashes, `-` as `_`; a variable's, its name in lower case"),
                );
            }
        }
    }
}

/// A `default` as JSON, when it is a value of `kind`.
fn default_of(value: &DeValue<'_>, kind: Kind) -> Option<Value> {
    match (value, kind) {
        (DeValue::String(s), Kind::String | Kind::Directory | Kind::File) => {
            Some(json!(s.to_string()))
        }
        (DeValue::Boolean(b), Kind::Boolean) => Some(json!(b)),
        (DeValue::Integer(i), Kind::Number) => i64::from_str_radix(i.as_str(), i.radix())
            .ok()
            .map(|n| json!(n)),
        (DeValue::Float(x), Kind::Number) => x
            .as_str()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(|f| json!(f)),
        _ => None,
    }
}

fn span_of(range: std::ops::Range<usize>) -> Span {
    Span::new(range.start, range.end)
}
