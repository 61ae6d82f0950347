//! The classes of changes, one test per kind of change.

use super::*;
use serde_json::json;

fn tool(input: Value, output: Option<Value>) -> Value {
    let mut entry = json!({"name": "t", "description": "d", "inputSchema": input});
    if let Some(output) = output {
        entry["outputSchema"] = output;
    }
    entry
}

fn schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn classes(old: &Value, new: &Value) -> Vec<(Class, String)> {
    let mut out = Vec::new();
    entry("t", old, new, &mut out);
    out.into_iter().map(|c| (c.class, c.what)).collect()
}

#[test]
fn inputs_narrowed_break_and_widened_are_compatible() {
    let old = tool(
        schema(
            json!({
                "q": {"type": "string", "maxLength": 10},
                "n": {"type": "integer", "minimum": 1, "enum": [1, 2, 3]},
                "gone": {"type": "boolean"},
                "opt": {"type": "string"}
            }),
            &["q"],
        ),
        None,
    );
    let new = tool(
        schema(
            json!({
                "q": {"type": "string", "maxLength": 20},
                "n": {"type": "integer", "minimum": 2, "enum": [1, 2, 4]},
                "opt": {"type": "integer"},
                "must": {"type": "string"},
                "may": {"type": "string"}
            }),
            &["q", "must"],
        ),
        None,
    );
    assert_eq!(
        classes(&old, &new),
        [
            (
                Class::Breaking,
                "parameter `gone` removed (or renamed)".into()
            ),
            (Class::Breaking, "parameter `n`: enum values removed".into()),
            (Class::Compatible, "parameter `n`: enum values added".into()),
            (Class::Breaking, "parameter `n`: `minimum` narrowed".into()),
            (Class::Breaking, "parameter `opt` changed type".into()),
            (
                Class::Compatible,
                "parameter `q`: `maxLength` widened".into()
            ),
            (Class::Compatible, "parameter `may` added, optional".into()),
            (Class::Breaking, "parameter `must` added, required".into()),
        ]
    );
}

#[test]
fn outputs_change_the_other_way() {
    let old = tool(
        schema(json!({}), &[]),
        Some(schema(
            json!({"id": {"type": "string"}, "kind": {"type": "string", "enum": ["a"]}}),
            &["id"],
        )),
    );
    let new = tool(
        schema(json!({}), &[]),
        Some(schema(
            json!({"id": {"type": "string"}, "kind": {"type": "string", "enum": ["a", "b"]}, "extra": {"type": "number"}}),
            &[],
        )),
    );
    assert_eq!(
        classes(&old, &new),
        [
            (
                Class::Breaking,
                "output field `id` may now be absent".into()
            ),
            (
                Class::Breaking,
                "output field `kind`: enum values added".into()
            ),
            (Class::Compatible, "output field `extra` added".into()),
        ]
    );
}

#[test]
fn wording_and_nested_items_and_defaults() {
    let old = tool(
        schema(
            json!({"tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "description": "a"},
                   "mode": {"type": "string", "default": "fast"}}),
            &[],
        ),
        None,
    );
    let mut new = tool(
        schema(
            json!({"tags": {"type": "array", "items": {"type": "string", "maxLength": 4}, "description": "b"},
                   "mode": {"type": "string", "default": "slow"}}),
            &[],
        ),
        None,
    );
    new["description"] = json!("new words");
    new["annotations"] = json!({"readOnlyHint": true});
    assert_eq!(
        classes(&old, &new),
        [
            (
                Class::Breaking,
                "parameter `mode`: `default` changed".into()
            ),
            (
                Class::Wording,
                "parameter `tags`: `description` changed".into()
            ),
            (
                Class::Breaking,
                "parameter `tags[]`: `maxLength` narrowed".into()
            ),
            (Class::Wording, "`annotations` changed".into()),
            (Class::Wording, "`description` changed".into()),
        ]
    );
    assert!(classes(&old, &old).is_empty());
}

#[test]
fn nothing_passes_unseen() {
    let old = tool(
        schema(
            json!({"n": {"type": "integer", "maximum": 9_007_199_254_740_993_u64}}),
            &[],
        ),
        None,
    );
    let new = tool(
        schema(
            json!({"n": {"type": "integer", "maximum": 9_007_199_254_740_992_u64}}),
            &[],
        ),
        None,
    );
    assert_eq!(
        classes(&old, &new),
        [(Class::Breaking, "parameter `n`: `maximum` narrowed".into())]
    );
    let mut odd = old.clone();
    odd["inputSchema"]["properties"]["n"]["multipleOf"] = json!(2);
    assert_eq!(
        classes(&old, &odd),
        [(
            Class::Breaking,
            "the schema changed in a way not classified".into()
        )]
    );
    let mut items = tool(schema(json!({"l": {"type": "array"}}), &[]), None);
    let before = items.clone();
    items["inputSchema"]["properties"]["l"]["items"] = json!({"type": "string"});
    assert_eq!(
        classes(&before, &items),
        [(Class::Breaking, "parameter `l`: `items` changed".into())]
    );
}

/// `outputText` lives in the entry's `_meta`: rewording it is a wording
/// change, which the lock sees.
#[test]
fn an_output_text_change_is_wording() {
    let mut old = tool(schema(json!({}), &[]), None);
    old["_meta"] = json!({"io.toolmetadata/outputText": "{count} notes"});
    let mut new = old.clone();
    new["_meta"] = json!({"io.toolmetadata/outputText": "Found {count} notes"});
    assert_eq!(
        classes(&old, &new),
        [(Class::Wording, "`_meta` changed".into())]
    );
}

#[test]
fn leaving_a_group_breaks_and_joining_one_is_compatible() {
    let input = schema(json!({}), &[]);
    let with = |groups: Value, ui: Option<Value>| {
        let mut entry = tool(input.clone(), None);
        let mut meta = json!({"io.toolmetadata/groups": groups});
        if let Some(ui) = ui {
            meta["ui"] = ui;
        }
        entry["_meta"] = meta;
        entry
    };
    let old = with(json!(["edit", "read"]), None);
    let new = with(json!(["admin", "read"]), None);
    assert_eq!(
        classes(&old, &new),
        [
            (
                Class::Breaking,
                "left the group `edit`: a client of its endpoint no longer finds the tool"
                    .to_owned()
            ),
            (Class::Compatible, "joined the group `admin`".to_owned()),
        ]
    );
    // A `_meta` that held only groups is no other change; the rest of it
    // is still wording.
    let plain = tool(input.clone(), None);
    assert_eq!(
        classes(&with(json!(["read"]), None), &plain),
        [(
            Class::Breaking,
            "left the group `read`: a client of its endpoint no longer finds the tool".to_owned()
        )]
    );
    let ui = with(json!(["read"]), Some(json!({"resourceUri": "ui://a"})));
    assert_eq!(
        classes(&with(json!(["read"]), None), &ui),
        [(Class::Wording, "`_meta` changed".to_owned())]
    );
}
