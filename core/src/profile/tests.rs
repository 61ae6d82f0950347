use serde_json::json;

use super::*;

fn entry() -> Value {
    json!({
        "name": "api.v1/get user",
        "description": "Get a user",
        "inputSchema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "minLength": 1, "x-mcp-header": "User"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 2, "maxItems": 5, "uniqueItems": true},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "when": {"type": "string", "format": "uri"}
            },
            "required": ["id"]
        }
    })
}

#[test]
fn every_profile_exports_what_it_validates() {
    for profile in Profile::ALL {
        let export = profile.export(&entry());
        let violations = profile.validate(&export);
        assert!(
            violations.is_empty() || *profile == Profile::McpHosts,
            "{profile}: {violations:#?}\n{:#?}",
            export.parameters
        );
    }
}

#[test]
fn openai_strict_requires_everything_and_makes_the_optional_nullable() {
    let export = Profile::OpenAiStrict.export(&entry());
    let schema = export.parameters.expect("parameters");
    assert_eq!(
        schema["required"],
        json!(["id", "limit", "mode", "tags", "when"])
    );
    assert_eq!(schema["properties"]["id"]["type"], "string");
    assert_eq!(
        schema["properties"]["mode"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        schema["properties"]["mode"]["enum"],
        json!(["fast", "slow", null])
    );
    assert!(schema["properties"]["limit"].get("default").is_none());
    assert_eq!(schema["properties"]["limit"]["description"], "default 10");
    assert!(schema["properties"]["id"].get("x-mcp-header").is_none());
    assert!(export.strict);
    assert_eq!(export.name, "api_v1_get_user");
    assert_eq!(export.mcp_name, "api.v1/get user");
}

#[test]
fn anthropic_strict_moves_the_bounds_into_the_description() {
    let export = Profile::AnthropicStrict.export(&entry());
    let schema = export.parameters.clone().expect("parameters");
    let limit = &schema["properties"]["limit"];
    assert!(limit.get("minimum").is_none() && limit.get("maximum").is_none());
    assert_eq!(limit["description"], "minimum 1; maximum 50");
    let moved: Vec<&str> = export.moved.iter().map(|m| m.parameter.as_str()).collect();
    assert!(
        moved.contains(&"limit") && moved.contains(&"id") && moved.contains(&"tags"),
        "{moved:?}"
    );
    // No array keyword but `minItems` 0 or 1: the rest said in words.
    let tags = &schema["properties"]["tags"];
    for key in ["minItems", "maxItems", "uniqueItems"] {
        assert!(tags.get(key).is_none(), "{key} kept: {tags}");
    }
    let said = tags["description"].as_str().unwrap_or_default();
    for words in ["at least 2 items", "at most 5 items", "items unique"] {
        assert!(said.contains(words), "{said}");
    }
    assert!(Profile::AnthropicStrict.validate(&export).is_empty());
}

#[test]
fn gemini_takes_the_openapi_subset_and_no_empty_parameters() {
    let export = Profile::Gemini.export(&entry());
    let schema = export.parameters.expect("parameters");
    assert!(schema.get("additionalProperties").is_none());
    assert!(schema["properties"]["when"].get("format").is_none());
    assert_eq!(export.name, "api.v1_get_user");
    let bare = json!({"name": "ping", "description": "Ping", "inputSchema": {"type": "object", "properties": {}}});
    assert_eq!(Profile::Gemini.export(&bare).parameters, None);
    assert!(
        Profile::Gemini
            .validate(&Profile::Gemini.export(&bare))
            .is_empty()
    );
}

#[test]
fn names_are_made_legal_distinct_and_mapped_back() {
    let long = "a".repeat(80);
    let entries = [
        json!({"name": "a.b", "inputSchema": {"type": "object", "properties": {}}}),
        json!({"name": "a_b", "inputSchema": {"type": "object", "properties": {}}}),
        json!({"name": long, "inputSchema": {"type": "object", "properties": {}}}),
    ];
    let exports = Profile::OpenAi.export_set(&entries);
    let names: Vec<&str> = exports.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names[1], "a_b");
    assert_ne!(names[0], "a_b");
    assert!(names.iter().all(|n| n.len() <= 64), "{names:?}");
    assert_eq!(exports[2].mcp_name, long);
    for export in &exports {
        assert!(Profile::OpenAi.validate(export).is_empty(), "{export:?}");
    }
}

#[test]
fn the_hosts_prefix_counts_against_the_name_budget() {
    let name = "x".repeat(50);
    let entry = json!({"name": name, "inputSchema": {"type": "object", "properties": {}}});
    let export = Profile::McpHosts.export(&entry);
    assert!(Profile::McpHosts.validate(&export).is_empty());
    let found = Profile::McpHosts.validate_for_server(&export, "workspace-server");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule.id, "mcp-hosts/prefixed-name");
    assert_eq!(Profile::McpHosts.validate_set(129).len(), 1);
}

#[test]
fn every_rule_cites_its_source() {
    for profile in Profile::ALL {
        assert_eq!(Profile::from_name(profile.name()), Some(*profile));
        for rule in profile.rules() {
            assert!(
                !rule.source.is_empty() && !rule.says.is_empty(),
                "{}",
                rule.id
            );
        }
    }
}

/// Schemas MCP allows that generated entries never have (run-time tools,
/// other servers' entries): nested objects, definitions, unions, `oneOf`,
/// non-string enums, arrays without `items`, values of any type, `const`.
fn unusual() -> Value {
    json!({
        "name": "2fa:reset",
        "description": "Unusual",
        "inputSchema": {
            "type": "object",
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "properties": {
                "where": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "near": {"type": "object", "properties": {"lat": {"type": "number", "minimum": -90}}, "required": ["lat"]}
                    },
                    "required": ["city", "ghost"]
                },
                "id": {"type": ["string", "integer"]},
                "maybe": {"type": ["string", "null"], "format": "uri"},
                "shape": {"oneOf": [{"type": "string"}, {"type": "number"}]},
                "level": {"type": "integer", "enum": [1, 2, 3]},
                "list": {"type": "array"},
                "anything": {},
                "fixed": {"const": "v1"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "uniqueItems": true}
            },
            "required": ["where"]
        }
    })
}

#[test]
fn unusual_schemas_export_to_what_each_profile_takes() {
    for profile in Profile::ALL.iter().filter(|p| **p != Profile::McpHosts) {
        let export = profile.export(&unusual());
        let violations = profile.validate(&export);
        assert!(
            violations.is_empty(),
            "{profile}: {violations:#?}\n{}",
            serde_json::to_string_pretty(&export.parameters).unwrap_or_default()
        );
    }
    // What strict grammars cannot say leaves the tool not strict, and says why.
    let openai = Profile::OpenAiStrict.export(&unusual());
    assert!(!openai.strict);
    assert!(
        openai
            .moved
            .iter()
            .any(|m| m.what.starts_with("not strict")),
        "{:?}",
        openai.moved
    );
    assert_eq!(Profile::Gemini.export(&unusual()).name, "_2fa:reset");
}

#[test]
fn a_map_cannot_be_said_to_gemini_and_the_check_says_so() {
    let entry = json!({"name": "tag", "inputSchema": {"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}
    }}});
    for profile in [
        Profile::OpenAi,
        Profile::OpenAiStrict,
        Profile::Anthropic,
        Profile::AnthropicStrict,
        Profile::GeminiJson,
    ] {
        let export = profile.export(&entry);
        assert!(
            profile.validate(&export).is_empty(),
            "{profile}: {:?}",
            profile.validate(&export)
        );
    }
    let gemini = Profile::Gemini.export(&entry);
    let found = Profile::Gemini.validate(&gemini);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule.id, "gemini/nonempty-properties");
    assert_eq!(found[0].at, "/properties/labels");
}

#[test]
fn a_default_is_said_but_not_lost() {
    let export = Profile::OpenAiStrict.export(&entry());
    assert!(
        !export.moved.iter().any(|m| m.what.starts_with("default")),
        "{:?}",
        export.moved
    );
}
