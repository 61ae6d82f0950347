use std::path::Path;

use super::*;
use toolmetadata_load::metadata::Load;

const CARGO_TOML: &str = r#"[package]
name = "notes-server"
version = "1.2.0"

[package.metadata.mcp]
name = "io.github.example/notes"
title = "Notes"
description = "Search and archive notes"
author = "Ada"

[[package.metadata.mcp.remotes]]
type = "streamable-http"
url = "https://notes.example/mcp"
protocol-versions = ["2025-11-25", "2026-07-28"]

[[package.metadata.mcp.arguments]]
name = "--root"
description = "A directory of notes"
kind = "directory"
required = true
repeated = true

[[package.metadata.mcp.arguments]]
name = "--read-only"
description = "Change nothing"
kind = "boolean"
default = false

[[package.metadata.mcp.env]]
name = "NOTES_TOKEN"
description = "The notes service's token"
secret = true
"#;

fn package() -> Package {
    Package {
        name: "notes-server".into(),
        version: "1.2.0".into(),
        description: Some("Notes".into()),
        repository: Some("https://github.com/example/notes".into()),
        homepage: None,
        authors: Vec::new(),
        license: Some("MIT".into()),
        target_os: "linux".into(),
    }
}

fn tool() -> ToolMetadata {
    ToolMetadata::from_toml_str("search_notes", "description = \"Search the notes\"\n")
        .expect("a tool")
}

fn manifests(text: &str) -> Result<Manifests, Diagnostics> {
    let tool = tool();
    Manifests::new(&package(), Path::new("Cargo.toml"), text, [&tool])
}

#[test]
fn the_registry_entry_runs_the_crate_over_stdio_with_its_inputs() {
    let m = manifests(CARGO_TOML).expect("manifests");
    let entry = &m.server_json;
    assert_eq!(entry["$schema"], SERVER_JSON_SCHEMA);
    assert_eq!(entry["name"], "io.github.example/notes");
    assert_eq!(entry["description"], "Search and archive notes");
    assert_eq!(
        entry["repository"],
        json!({"url": "https://github.com/example/notes", "source": "github"})
    );
    let package = &entry["packages"][0];
    assert_eq!(package["registryType"], "cargo");
    assert_eq!(package["identifier"], "notes-server");
    assert_eq!(package["version"], "1.2.0");
    assert_eq!(package["transport"], json!({"type": "stdio"}));
    assert_eq!(
        package["packageArguments"][0],
        json!({"type": "named", "name": "--root", "description": "A directory of notes",
               "isRequired": true, "format": "filepath", "isRepeated": true})
    );
    assert_eq!(package["packageArguments"][1]["default"], "false");
    assert_eq!(
        package["environmentVariables"][0],
        json!({"name": "NOTES_TOKEN", "description": "The notes service's token",
               "isRequired": false, "format": "string", "isSecret": true})
    );
    assert_eq!(
        entry["remotes"],
        json!([{"type": "streamable-http", "url": "https://notes.example/mcp"}])
    );
}

#[test]
fn the_bundle_passes_the_user_configuration_to_the_binary() {
    let m = manifests(CARGO_TOML).expect("manifests");
    let bundle = &m.bundle;
    assert_eq!(bundle["manifest_version"], "0.3");
    assert_eq!(bundle["author"], json!({"name": "Ada"}));
    assert_eq!(bundle["server"]["entry_point"], "server/notes-server");
    assert_eq!(
        bundle["server"]["mcp_config"],
        json!({
            "command": "${__dirname}/server/notes-server",
            "args": ["--root", "${user_config.root}", "--read-only=${user_config.read_only}"],
            "env": {"NOTES_TOKEN": "${user_config.notes_token}"},
        })
    );
    assert_eq!(
        bundle["user_config"]["root"],
        json!({"type": "directory", "title": "Root", "description": "A directory of notes",
               "required": true, "multiple": true})
    );
    assert_eq!(bundle["user_config"]["read_only"]["default"], false);
    assert_eq!(bundle["user_config"]["notes_token"]["sensitive"], true);
    // Unset, it is passed empty rather than as its placeholder.
    assert_eq!(bundle["user_config"]["notes_token"]["default"], "");
    assert_eq!(
        bundle["tools"],
        json!([{"name": "search_notes", "description": "Search the notes"}])
    );
    assert_eq!(bundle["compatibility"], json!({"platforms": ["linux"]}));
}

#[test]
fn the_card_describes_the_remote_server() {
    let m = manifests(CARGO_TOML).expect("manifests");
    assert_eq!(
        m.server_card,
        json!({
            "$schema": SERVER_CARD_SCHEMA,
            "name": "io.github.example/notes",
            "title": "Notes",
            "description": "Search and archive notes",
            "version": "1.2.0",
            "repository": {"url": "https://github.com/example/notes", "source": "github"},
            "remotes": [{"type": "streamable-http", "url": "https://notes.example/mcp",
                         "supportedProtocolVersions": ["2025-11-25", "2026-07-28"]}],
        })
    );
}

/// The card names the tool groups, each with its tools and where each
/// Streamable HTTP remote serves it.
#[test]
fn the_card_names_the_groups_and_their_endpoints() {
    let tool = |name: &str, groups: &str| {
        ToolMetadata::from_toml_str(
            name,
            &format!("description = \"{name}\"\ntoolGroups = [{groups}]\n"),
        )
        .expect("a tool")
    };
    let tools = [
        tool("search_notes", "\"read\""),
        tool("archive_note", "\"edit\", \"read\""),
        tool("stats", ""),
    ];
    let m =
        Manifests::new(&package(), Path::new("Cargo.toml"), CARGO_TOML, &tools).expect("manifests");
    assert_eq!(
        m.server_card["_meta"],
        json!({"io.toolmetadata/groups": [
            {"name": "edit", "tools": ["archive_note"],
             "urls": ["https://notes.example/mcp/edit"]},
            {"name": "read", "tools": ["archive_note", "search_notes"],
             "urls": ["https://notes.example/mcp/read"]},
        ]})
    );
    // No groups, no `_meta`.
    assert!(
        manifests(CARGO_TOML)
            .expect("manifests")
            .server_card
            .get("_meta")
            .is_none()
    );
}

/// Each problem is located in Cargo.toml, with what was expected.
#[test]
fn problems_are_located_in_cargo_toml() {
    // (replaced, by, the message, the text on the line it points at)
    let cases = [
        (
            "name = \"io.github.example/notes\"",
            "name = \"notes\"",
            "is not `namespace/name`",
            "name = \"notes\"",
        ),
        (
            "type = \"streamable-http\"",
            "type = \"websocket\"",
            "`streamable-http` or `sse`",
            "websocket",
        ),
        (
            "url = \"https://notes.example/mcp\"",
            "url = \"ftp://x\"",
            "is not an http(s) URL",
            "ftp://x",
        ),
        (
            "kind = \"directory\"",
            "kind = \"folder\"",
            "unknown kind `folder`",
            "folder",
        ),
        (
            "default = false",
            "default = \"no\"",
            "is not a boolean value",
            "\"no\"",
        ),
        (
            "secret = true",
            "secret = true\nsecrett = 1",
            "unknown key `secrett`",
            "secrett",
        ),
        (
            "description = \"Search and archive notes\"",
            "description = \"\"",
            "description is 0 characters",
            "description = \"\"",
        ),
        (
            "required = true\nrepeated = true",
            "repeated = true",
            "optional with no default",
            "name = \"--root\"",
        ),
        (
            "secret = true",
            "secret = true\ndefault = \"s3cret\"",
            "a secret's `default`",
            "s3cret",
        ),
        (
            "author = \"Ada\"",
            "author = \"Ada\"\nbin = \"../x\"",
            "is not a binary's name",
            "../x",
        ),
        (
            "default = false",
            "default = 1e999",
            "is not a boolean value",
            "1e999",
        ),
    ];
    for (good, bad, expected, marker) in cases {
        assert!(CARGO_TOML.contains(good), "{good}");
        let text = CARGO_TOML.replacen(good, bad, 1);
        let line = text
            .lines()
            .position(|l| l.contains(marker))
            .expect("the marker")
            + 1;
        let problems = manifests(&text).expect_err(bad);
        let found = problems
            .iter()
            .find(|d| d.message().contains(expected))
            .unwrap_or_else(|| panic!("{bad}: {}", problems.render(false)));
        assert_eq!(found.rule(), Rule::ServerManifest);
        assert_eq!(
            found.line_column().map(|(l, _)| l),
            Some(line),
            "{bad}: {}",
            found.render(false)
        );
    }
}

#[test]
fn an_optional_flag_is_passed_with_its_value_attached() {
    let text = CARGO_TOML.replace(
        "[[package.metadata.mcp.env]]",
        "[[package.metadata.mcp.arguments]]\nname = \"--profile\"\ndescription = \"A profile\"\n\n[[package.metadata.mcp.env]]",
    );
    let m = manifests(&text).expect("manifests");
    let args = &m.bundle["server"]["mcp_config"]["args"];
    assert_eq!(args[3], "--profile=${user_config.profile}");
    assert_eq!(m.bundle["user_config"]["profile"]["default"], "");
}

#[test]
fn repository_sources_are_read_from_http_urls_only() {
    assert_eq!(
        repository_source("https://gitlab.com/a/b").as_deref(),
        Some("gitlab")
    );
    assert_eq!(
        repository_source("https://www.github.com/a/b").as_deref(),
        Some("github")
    );
    assert_eq!(repository_source("git@github.com:o/r"), None);
}

#[test]
fn no_table_no_manifests() {
    let problems = manifests("[package]\nname = \"x\"\n").expect_err("no table");
    assert!(problems.render(false).contains("[package.metadata.mcp]"));
}
