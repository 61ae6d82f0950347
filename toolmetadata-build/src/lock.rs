//! The catalog lock: what each tool was when its change was last accepted,
//! so that the next change is seen, classified and made on purpose.
//!
//! A lock records, per tool, its declared `version`, the fingerprint of its
//! rendered `tools/list` entry and of each part of it (schema, description,
//! annotations), and the entry itself, from which the next build tells
//! what changed. It is JSON, written canonically (keys sorted, one tool per
//! key), so the same catalog always gives the same bytes and a reformatted
//! tool file gives none different.

mod change;
mod classify;
pub(crate) mod gate;
pub mod version;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use toolmetadata_core::fingerprint::fingerprint;
use toolmetadata_load::metadata::ToolMetadata;

pub use change::{Change, Class};

/// The lock format's version, the first key of every lock file.
const FORMAT: u64 = 1;

/// A lock: each tool of a catalog as its change was last accepted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lock {
    tools: BTreeMap<String, Locked>,
}

/// What a lock holds of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Locked {
    /// The tool's declared `version`, if any.
    pub version: Option<String>,
    /// Its rendered `tools/list` entry.
    pub entry: Value,
}

/// The parts of an entry that are fingerprinted on their own.
const PARTS: [(&str, &[&str]); 3] = [
    ("schema", &["inputSchema", "outputSchema", "execution"]),
    ("description", &["title", "description"]),
    ("annotations", &["annotations", "icons", "_meta"]),
];

impl Locked {
    /// The fingerprint of the whole entry.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.entry)
    }

    /// The fingerprint of one part (`schema`, `description`, `annotations`):
    /// of the entry's keys that make it up.
    pub fn part_fingerprint(&self, part: &str) -> Option<String> {
        let (_, keys) = PARTS.iter().find(|(name, _)| *name == part)?;
        let picked: Map<String, Value> = keys
            .iter()
            .filter_map(|k| Some(((*k).to_owned(), self.entry.get(*k)?.clone())))
            .collect();
        Some(fingerprint(&Value::Object(picked)))
    }
}

impl Lock {
    /// The lock of these tools as they are.
    pub fn of<'a>(tools: impl IntoIterator<Item = &'a ToolMetadata>) -> Self {
        let tools = tools
            .into_iter()
            .map(|tool| {
                let locked = Locked {
                    version: tool.version.clone(),
                    entry: tool.to_tools_list_entry(),
                };
                (tool.name.clone(), locked)
            })
            .collect();
        Lock { tools }
    }

    /// The tools, by name.
    pub fn tools(&self) -> &BTreeMap<String, Locked> {
        &self.tools
    }

    /// The lock file's text: canonical JSON, indented, ending in a newline.
    pub fn to_text(&self) -> String {
        let tools: Map<String, Value> = self
            .tools
            .iter()
            .map(|(name, locked)| {
                let mut record = Map::new();
                if let Some(version) = &locked.version {
                    record.insert("version".into(), json!(version));
                }
                record.insert("fingerprint".into(), json!(locked.fingerprint()));
                let parts: Map<String, Value> = PARTS
                    .iter()
                    .filter_map(|(part, _)| {
                        Some(((*part).to_owned(), json!(locked.part_fingerprint(part)?)))
                    })
                    .collect();
                record.insert("parts".into(), Value::Object(parts));
                record.insert("entry".into(), sorted(&locked.entry));
                (name.clone(), Value::Object(record))
            })
            .collect();
        let lock = json!({"lock": FORMAT, "tools": tools});
        let mut text = serde_json::to_string_pretty(&sorted(&lock)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a lock file's text.
    ///
    /// # Errors
    ///
    /// Text that is not a lock of this format, saying where.
    pub fn parse(text: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        match value.get("lock").and_then(Value::as_u64) {
            Some(FORMAT) => {}
            Some(other) => {
                return Err(format!(
                    "lock format {other}, which this version does not read (it reads {FORMAT})"
                ));
            }
            None => return Err("no `\"lock\": 1` at its top".into()),
        }
        let tools = value
            .get("tools")
            .and_then(Value::as_object)
            .ok_or("no `tools` object")?;
        let mut lock = Lock::default();
        for (name, record) in tools {
            let entry = record
                .get("entry")
                .filter(|e| e.is_object())
                .ok_or_else(|| format!("tool `{name}` has no `entry` object"))?
                .clone();
            let version = match record.get("version") {
                None => None,
                Some(Value::String(v)) => Some(v.clone()),
                Some(_) => return Err(format!("tool `{name}`: `version` is not a string")),
            };
            lock.tools.insert(name.clone(), Locked { version, entry });
        }
        Ok(lock)
    }

    /// What changed from `self` (the lock) to `now`, tool by tool, in name
    /// order, each change classified.
    pub fn changes(&self, now: &Lock) -> Vec<Change> {
        let mut changes = Vec::new();
        for (name, old) in &self.tools {
            match now.tools.get(name) {
                None => changes.push(Change::tool_removed(name)),
                Some(new) => classify::entry(name, &old.entry, &new.entry, &mut changes),
            }
        }
        for name in now.tools.keys() {
            if !self.tools.contains_key(name) {
                changes.push(Change::tool_added(name));
            }
        }
        changes
    }
}

/// `value` with every object's keys in sorted order (serde_json keeps
/// insertion order when another crate turns on `preserve_order`).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}
