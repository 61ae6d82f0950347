//! What changed between two entries of a tool, each change classified as a
//! compiler would: breaking (a caller or a consumer of the result that
//! worked before may fail now), compatible (everything that worked still
//! does), or wording (what a model reads, not what the schema accepts).
//!
//! Arguments and results change in opposite directions: a narrower input
//! (a parameter removed or newly required, a bound raised, an enum value
//! gone) breaks callers; a wider output (a field that may be absent, a new
//! enum value) breaks consumers.

use serde_json::{Map, Value};

use toolmetadata_load::metadata::group::GROUPS_META;

use super::{Change, Class};

/// Which side of the call a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

impl Side {
    /// The class of a change that narrows what this side holds.
    fn narrowed(self) -> Class {
        match self {
            Side::Input => Class::Breaking,
            Side::Output => Class::Compatible,
        }
    }

    /// The class of a change that widens it.
    fn widened(self) -> Class {
        match self {
            Side::Input => Class::Compatible,
            Side::Output => Class::Breaking,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Side::Input => "parameter",
            Side::Output => "output field",
        }
    }
}

/// Collects what changed from `old` to `new`, two entries of `tool`. An
/// entry that differs in a way no rule below names is still a change:
/// breaking when a schema differs (what it accepts cannot be told), wording
/// otherwise, so that no change passes unseen.
pub(super) fn entry(tool: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let before = out.len();
    classified(tool, old, new, out);
    if out.len() == before && old != new {
        let schema_differs = ["inputSchema", "outputSchema"]
            .iter()
            .any(|k| old.get(*k) != new.get(*k));
        let (class, what) = if schema_differs {
            (
                Class::Breaking,
                "the schema changed in a way not classified",
            )
        } else {
            (Class::Wording, "the entry changed")
        };
        out.push(Change {
            tool: tool.to_owned(),
            class,
            param: None,
            what: what.to_owned(),
            old: None,
            new: None,
        });
    }
}

fn classified(tool: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let mut changes = Changes { tool, out };
    let empty = Value::Object(Map::new());
    for (key, side) in [("inputSchema", Side::Input), ("outputSchema", Side::Output)] {
        match (old.get(key), new.get(key)) {
            (None, None) => {}
            (Some(a), Some(b)) => changes.object(side, "", a, b),
            (None, Some(b)) => {
                // A result schema where there was none: a promise added.
                changes.object(side, "", &empty, b);
            }
            (Some(a), None) => changes.push(
                Class::Breaking,
                None,
                format!("`{key}` removed"),
                Some(a.clone()),
                None,
            ),
        }
    }
    let keys: std::collections::BTreeSet<&String> = object(old)
        .keys()
        .chain(object(new).keys())
        .filter(|k| !matches!(k.as_str(), "inputSchema" | "outputSchema" | "name"))
        .collect();
    for key in keys {
        let (mut a, mut b) = (
            old.get(key.as_str()).cloned(),
            new.get(key.as_str()).cloned(),
        );
        if key == "_meta" {
            groups(&mut changes, a.as_mut(), b.as_mut());
            // A `_meta` that held only groups is as if absent.
            let empty = |v: &Value| v.as_object().is_some_and(Map::is_empty);
            a = a.filter(|v| !empty(v));
            b = b.filter(|v| !empty(v));
        }
        if a == b {
            continue;
        }
        // How a call runs (as a task or not) is behaviour; the rest is
        // what a model or a host reads.
        let class = if key == "execution" {
            Class::Breaking
        } else {
            Class::Wording
        };
        changes.push(class, None, format!("`{key}` changed"), a, b);
    }
}

/// The groups a tool left (breaking: a client of that group's endpoint no
/// longer finds it) and joined (compatible), taken out of the two `_meta`s
/// so that the rest of them is compared as wording.
fn groups(changes: &mut Changes<'_>, old: Option<&mut Value>, new: Option<&mut Value>) {
    let take = |meta: Option<&mut Value>| -> Vec<String> {
        let Some(Value::Object(map)) = meta else {
            return Vec::new();
        };
        map.remove(GROUPS_META)
            .as_ref()
            .and_then(Value::as_array)
            .map(|g| {
                g.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (was, is) = (take(old), take(new));
    for group in was.iter().filter(|g| !is.contains(g)) {
        changes.push(
            Class::Breaking,
            None,
            format!("left the group `{group}`: a client of its endpoint no longer finds the tool"),
            Some(Value::from(group.clone())),
            None,
        );
    }
    for group in is.iter().filter(|g| !was.contains(g)) {
        changes.push(
            Class::Compatible,
            None,
            format!("joined the group `{group}`"),
            None,
            Some(Value::from(group.clone())),
        );
    }
}

fn object(value: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    value
        .as_object()
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

struct Changes<'a> {
    tool: &'a str,
    out: &'a mut Vec<Change>,
}

impl Changes<'_> {
    fn push(
        &mut self,
        class: Class,
        param: Option<&str>,
        what: String,
        old: Option<Value>,
        new: Option<Value>,
    ) {
        self.out.push(Change {
            tool: self.tool.to_owned(),
            class,
            param: param.map(str::to_owned),
            what,
            old,
            new,
        });
    }

    /// The properties of two object schemas at `path`.
    fn object(&mut self, side: Side, path: &str, old: &Value, new: &Value) {
        let (old_props, new_props) = (
            object(old.get("properties").unwrap_or(&Value::Null)),
            object(new.get("properties").unwrap_or(&Value::Null)),
        );
        let (old_req, new_req) = (required(old), required(new));
        let noun = side.noun();
        for (name, a) in sorted(old_props) {
            let at = join(path, name);
            let Some(b) = new_props.get(name) else {
                self.push(
                    Class::Breaking,
                    Some(&at),
                    format!("{noun} `{at}` removed (or renamed)"),
                    Some(a.clone()),
                    None,
                );
                continue;
            };
            let (was, is) = (
                old_req.contains(&name.as_str()),
                new_req.contains(&name.as_str()),
            );
            if was != is {
                // Required narrows an input (callers must send it) and
                // widens nothing of an output (it is always there).
                let (class, what) = match (side, is) {
                    (Side::Input, true) => (Class::Breaking, "is now required"),
                    (Side::Input, false) => (Class::Compatible, "is no longer required"),
                    (Side::Output, true) => (Class::Compatible, "is now always present"),
                    (Side::Output, false) => (Class::Breaking, "may now be absent"),
                };
                self.push(
                    class,
                    Some(&at),
                    format!("{noun} `{at}` {what}"),
                    None,
                    None,
                );
            }
            self.property(side, &at, a, b);
        }
        for (name, b) in sorted(new_props) {
            if old_props.contains_key(name) {
                continue;
            }
            let at = join(path, name);
            let (class, what) = match (side, new_req.contains(&name.as_str())) {
                (Side::Input, true) => (Class::Breaking, "added, required"),
                (Side::Input, false) => (Class::Compatible, "added, optional"),
                (Side::Output, _) => (Class::Compatible, "added"),
            };
            self.push(
                class,
                Some(&at),
                format!("{noun} `{at}` {what}"),
                None,
                Some(b.clone()),
            );
        }
    }

    /// One property's schema at `path`.
    fn property(&mut self, side: Side, path: &str, old: &Value, new: &Value) {
        if old == new {
            return;
        }
        let noun = side.noun();
        let fragment = |v: &Value, key: &str| v.get(key).cloned();
        if old.get("type") != new.get("type") {
            self.push(
                Class::Breaking,
                Some(path),
                format!("{noun} `{path}` changed type"),
                fragment(old, "type"),
                fragment(new, "type"),
            );
            return;
        }
        self.enumeration(side, path, old, new);
        for (key, raising_narrows) in [
            ("minimum", true),
            ("exclusiveMinimum", true),
            ("minLength", true),
            ("minItems", true),
            ("maximum", false),
            ("exclusiveMaximum", false),
            ("maxLength", false),
            ("maxItems", false),
        ] {
            let narrowed = match (old.get(key), new.get(key)) {
                (None, None) => continue,
                (Some(a), Some(b)) if a == b => continue,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(a), Some(b)) => match compare(a, b) {
                    Some(std::cmp::Ordering::Equal) => continue,
                    Some(order) => (order == std::cmp::Ordering::Less) == raising_narrows,
                    // Not numbers: what they bound cannot be told.
                    None => true,
                },
            };
            let (class, how) = if narrowed {
                (side.narrowed(), "narrowed")
            } else {
                (side.widened(), "widened")
            };
            self.push(
                class,
                Some(path),
                format!("{noun} `{path}`: `{key}` {how}"),
                fragment(old, key),
                fragment(new, key),
            );
        }
        if old.get("pattern") != new.get("pattern") {
            // Whether one pattern admits more than another is not decided
            // here: a new or changed one may refuse what passed.
            let class = match (old.get("pattern"), new.get("pattern")) {
                (Some(_), None) => side.widened(),
                (None, Some(_)) => side.narrowed(),
                _ => Class::Breaking,
            };
            self.push(
                class,
                Some(path),
                format!("{noun} `{path}`: `pattern` changed"),
                fragment(old, "pattern"),
                fragment(new, "pattern"),
            );
        }
        for key in ["default", "x-mcp-header", "format"] {
            if old.get(key) != new.get(key) {
                // A default is what a call without the argument does; a
                // header is what HTTP clients send.
                self.push(
                    Class::Breaking,
                    Some(path),
                    format!("{noun} `{path}`: `{key}` changed"),
                    fragment(old, key),
                    fragment(new, key),
                );
            }
        }
        for key in ["description", "title"] {
            if old.get(key) != new.get(key) {
                self.push(
                    Class::Wording,
                    Some(path),
                    format!("{noun} `{path}`: `{key}` changed"),
                    fragment(old, key),
                    fragment(new, key),
                );
            }
        }
        match (old.get("items"), new.get("items")) {
            (Some(a), Some(b)) => self.property(side, &format!("{path}[]"), a, b),
            (None, None) => {}
            (a, b) => self.push(
                Class::Breaking,
                Some(path),
                format!("{noun} `{path}`: `items` changed"),
                a.cloned(),
                b.cloned(),
            ),
        }
        if old.get("properties").is_some() || new.get("properties").is_some() {
            self.object(side, path, old, new);
        }
    }

    fn enumeration(&mut self, side: Side, path: &str, old: &Value, new: &Value) {
        let values = |v: &Value| v.get("enum").and_then(Value::as_array).cloned();
        let (a, b) = (values(old), values(new));
        if a == b {
            return;
        }
        let noun = side.noun();
        match (a, b) {
            (Some(a), Some(b)) => {
                let gone: Vec<Value> = a.iter().filter(|v| !b.contains(v)).cloned().collect();
                let added: Vec<Value> = b.iter().filter(|v| !a.contains(v)).cloned().collect();
                if !gone.is_empty() {
                    self.push(
                        side.narrowed(),
                        Some(path),
                        format!("{noun} `{path}`: enum values removed"),
                        Some(Value::Array(gone)),
                        None,
                    );
                }
                if !added.is_empty() {
                    self.push(
                        side.widened(),
                        Some(path),
                        format!("{noun} `{path}`: enum values added"),
                        None,
                        Some(Value::Array(added)),
                    );
                }
            }
            (None, Some(b)) => self.push(
                side.narrowed(),
                Some(path),
                format!("{noun} `{path}`: now limited to an enum"),
                None,
                Some(Value::Array(b)),
            ),
            (Some(a), None) => self.push(
                side.widened(),
                Some(path),
                format!("{noun} `{path}`: no longer limited to an enum"),
                Some(Value::Array(a)),
                None,
            ),
            (None, None) => {}
        }
    }
}

/// How two JSON numbers compare, exactly for integers (whatever their size)
/// and as floats otherwise; `None` when either is not a number.
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    let (a, b) = (a.as_number()?, b.as_number()?);
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// The entries of `map` by key, whatever order it keeps.
fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

#[cfg(test)]
mod tests;
