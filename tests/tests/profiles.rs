//! Provider profiles on real tool files: for every profile, the exported
//! definition of every tool of the conformance corpus and of example-server
//! keeps that provider's published rules (`toolmetadata::profile::rules`,
//! each citing its source), but for the names hosts show as they are, which
//! are named.

use std::path::Path;

use serde_json::Value;
use toolmetadata::profile::Profile;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
}

/// Every `tools/list` entry of the corpus's expectations and of `tools/`.
fn entries() -> Vec<(String, Value)> {
    let expected = std::fs::read_to_string(workspace().join("tests/conformance/expected.jsonl"))
        .expect("expected.jsonl");
    let mut entries: Vec<(String, Value)> = expected
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["outcome"] == "tool")
        .map(|r| (format!("corpus {}", r["file"]), r["tool"].clone()))
        .collect();
    let checked = toolmetadata_build::Builder::new()
        .dir(workspace().join("tools"))
        .emit_cargo_directives(false)
        .check()
        .expect("tools/");
    for file in checked.files() {
        let tool = checked.tool(file).expect("a tool");
        entries.push((format!("tools/{}", tool.name), tool.to_tools_list_entry()));
    }
    entries
}

#[test]
fn every_export_keeps_its_providers_rules() {
    let entries = entries();
    assert!(entries.len() > 90, "{} entries", entries.len());
    let mut broken = Vec::new();
    for profile in Profile::ALL {
        let all: Vec<Value> = entries.iter().map(|(_, e)| e.clone()).collect();
        let exports = profile.export_set(&all);
        for ((what, _), export) in entries.iter().zip(&exports) {
            for violation in profile.validate(export) {
                broken.push(format!("{profile} {what}: {violation}"));
            }
        }
    }
    // The corpus is no one server; example-server's tools are.
    let served = entries
        .iter()
        .filter(|(what, _)| what.starts_with("tools/"))
        .count();
    for profile in Profile::ALL {
        assert!(profile.validate_set(served).is_empty());
    }
    // Hosts show the MCP name itself, which no export can change: these
    // names cannot be made to pass, and the check names each one.
    let unfixable = [
        "api.v1.get-user.toml",
        "api.v1.get-user.yaml",
        "tool_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_123.toml",
        "tool_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_abcdefghi_123.yaml",
        "weather.forecast.json",
    ];
    let expected: Vec<String> = unfixable
        .iter()
        .map(|file| format!("mcp-hosts corpus \"{file}\": mcp-hosts/prefixed-name"))
        .collect();
    let found: Vec<&str> = broken
        .iter()
        .map(|b| b.split(" at name").next().unwrap_or(b))
        .collect();
    assert_eq!(found, expected, "{}", broken.join("\n"));
}

/// The rules bite: most of example-server's entries, as MCP serves them,
/// break each strict profile's rules, as the providers' documents say they
/// would (optional parameters for OpenAI, bounds for Anthropic,
/// `additionalProperties` for Gemini).
#[test]
fn the_entries_as_served_break_the_strict_rules() {
    let served: Vec<(String, Value)> = entries()
        .into_iter()
        .filter(|(what, _)| what.starts_with("tools/"))
        .collect();
    for profile in [
        Profile::OpenAiStrict,
        Profile::AnthropicStrict,
        Profile::Gemini,
    ] {
        let passing = served
            .iter()
            .filter(|(_, entry)| {
                let raw = toolmetadata::profile::Export {
                    name: entry["name"].as_str().unwrap_or_default().to_owned(),
                    mcp_name: entry["name"].as_str().unwrap_or_default().to_owned(),
                    description: String::new(),
                    parameters: Some(entry["inputSchema"].clone()),
                    strict: true,
                    moved: Vec::new(),
                };
                profile.validate(&raw).is_empty()
            })
            .count();
        assert!(
            passing * 2 < served.len(),
            "{profile}: {passing} of {} pass as served",
            served.len()
        );
    }
}
