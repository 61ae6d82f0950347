//! example-server's manifests, written from `Cargo.toml`'s
//! `[package.metadata.mcp]` and `tools/`, checked by the published schema or
//! tool of each: `server.json` against the MCP registry's JSON Schema
//! (2025-12-11, shipped in the `skillsaw` wheel on PyPI), the bundle manifest
//! with `mcpb validate` and `mcpb pack` (`@anthropic-ai/mcpb`, npm, pinned in
//! `example-server/bundle`), and the server card against the extension's
//! rules (its schema is on no registry: `tests/manifests/server-card.schema.json`
//! writes them out). The card is also served, at `/mcp/server-card`.
//!
//! Needs Python (with pip) and Node with npm; they are installed on first use
//! under `target/tmp` and in `example-server/bundle/node_modules`, and the
//! tests fail, never skip, when they cannot be had.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use toolmetadata_build::manifest::{Manifests, Package};
use toolmetadata_tests::mcp::http_server;
use toolmetadata_tests::python;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");
const REGISTRY_SCHEMA_WHEEL: &str = "skillsaw==0.22.0";
const REGISTRY_SCHEMA_MEMBER: &str = "skillsaw/schemas/mcp_registry/v2025_12_11/server.schema.json";

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The manifests as the build writes them (through the library the build
/// and `toolmetadata manifest` share).
fn manifests() -> Manifests {
    let cargo_toml = crate_dir().join("Cargo.toml");
    let checked = toolmetadata_build::Builder::new()
        .dir(crate_dir().join("../tools"))
        .check()
        .expect("the tools load");
    assert!(!checked.has_errors());
    let tools = checked.files().iter().filter_map(|f| checked.tool(f));
    let text = std::fs::read_to_string(&cargo_toml).expect("Cargo.toml");
    let package = Package::from_cargo_metadata(&cargo_toml).expect("cargo metadata");
    Manifests::new(&package, &cargo_toml, &text, tools)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
}

fn write_json(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).expect("JSON")).expect("write");
    path
}

/// `validate.py SCHEMA DOCUMENT`: its violations, none when valid.
fn violations(schema: &str, document: &Path) -> Vec<String> {
    let output = Command::new(python::jsonschema_python())
        .arg(crate_dir().join("tests/manifests/validate.py"))
        .arg(schema)
        .arg(document)
        .output()
        .expect("run validate.py");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "validate.py failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout.lines().map(str::to_owned).collect()
}

/// The official file's digest (modelcontextprotocol/static, a9ba437), which
/// the wheel's copy must have.
const REGISTRY_SCHEMA_SHA256: &str =
    "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";

fn registry_schema() -> String {
    let wheel = python::wheel(REGISTRY_SCHEMA_WHEEL);
    let digest = python::run(
        Command::new(python::jsonschema_python())
            .args([
                "-c",
                "import hashlib, sys, zipfile; print(hashlib.sha256(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2])).hexdigest())",
            ])
            .arg(&wheel)
            .arg(REGISTRY_SCHEMA_MEMBER),
    );
    assert_eq!(
        String::from_utf8_lossy(&digest.stdout).trim(),
        REGISTRY_SCHEMA_SHA256,
        "the registry's schema in {}",
        wheel.display()
    );
    format!("{}!{REGISTRY_SCHEMA_MEMBER}", wheel.display())
}

#[test]
fn server_json_passes_the_registry_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server_json = manifests().server_json;
    let schema = registry_schema();
    let valid = write_json(dir.path(), "server.json", &server_json);
    assert_eq!(violations(&schema, &valid), Vec::<String>::new());
    // The validator is live: an entry the registry refuses is refused.
    let mut broken = server_json.clone();
    broken["name"] = json!("no slash");
    broken["packages"][0]["transport"] = json!({"type": "streamable-http"});
    let broken = write_json(dir.path(), "broken.json", &broken);
    let found = violations(&schema, &broken);
    assert!(found.iter().any(|v| v.starts_with("name:")), "{found:?}");
    assert!(
        found.iter().any(|v| v.starts_with("packages/0/transport")),
        "{found:?}"
    );
}

#[test]
fn the_server_card_passes_the_extension_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = manifests().server_card;
    let schema = crate_dir().join("tests/manifests/server-card.schema.json");
    let schema = schema.to_str().expect("UTF-8 path");
    let valid = write_json(dir.path(), "card.json", &card);
    assert_eq!(violations(schema, &valid), Vec::<String>::new());
    let mut broken = card.clone();
    broken["$schema"] =
        json!("https://static.modelcontextprotocol.io/schemas/2025-12-11/server-card.schema.json");
    let broken = write_json(dir.path(), "broken.json", &broken);
    assert!(!violations(schema, &broken).is_empty());
    // Formats are checked too.
    let mut broken = card.clone();
    broken["websiteUrl"] = json!("not a URI");
    let broken = write_json(dir.path(), "broken-uri.json", &broken);
    let found = violations(schema, &broken);
    assert!(
        found.iter().any(|v| v.starts_with("websiteUrl:")),
        "{found:?}"
    );
}

/// `mcpb` from `example-server/bundle`, installed there on first use.
fn mcpb() -> PathBuf {
    let bundle = crate_dir().join("bundle");
    let bin = bundle.join("node_modules/.bin/mcpb");
    if !bin.exists() {
        python::run(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&bundle),
        );
    }
    bin
}

#[test]
fn the_bundle_validates_and_packs_with_the_binary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = manifests().bundle;
    let entry = bundle["server"]["entry_point"]
        .as_str()
        .expect("entry_point")
        .to_owned();
    let root = dir.path().join("example-server");
    std::fs::create_dir_all(root.join("server")).expect("mkdir");
    let manifest = write_json(&root, "manifest.json", &bundle);
    std::fs::copy(BIN, root.join(&entry)).expect("the binary in the bundle");
    let mcpb = mcpb();
    let validated = python::run(Command::new(&mcpb).arg("validate").arg(&manifest));
    assert!(
        String::from_utf8_lossy(&validated.stdout).contains("validation passes"),
        "{validated:?}"
    );
    let packed = dir.path().join("example-server.mcpb");
    python::run(
        Command::new(&mcpb)
            .arg("pack")
            .arg(&root)
            .arg(&packed)
            .stdin(std::process::Stdio::null()),
    );
    // The bundle is a zip of the manifest and the binary, still executable.
    let listing = python::run(
        Command::new(python::jsonschema_python())
            .args([
                "-c",
                "import sys, zipfile; [print(i.filename, oct(i.external_attr >> 16)) for i in zipfile.ZipFile(sys.argv[1]).infolist()]",
            ])
            .arg(&packed),
    );
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(
        listing.lines().any(|l| l.starts_with("manifest.json ")),
        "{listing}"
    );
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with(&format!("{entry} ")) && l.ends_with("755")),
        "{listing}"
    );
    // A bundle the tool refuses is refused: the validator is live.
    let mut broken = bundle.clone();
    broken["server"]["type"] = json!("rust");
    let broken = write_json(&root, "manifest.json", &broken);
    let refused = Command::new(&mcpb)
        .arg("validate")
        .arg(&broken)
        .output()
        .expect("mcpb");
    assert!(!refused.status.success());
}

/// The binary takes the command line a host builds from the bundle (mcpb's
/// own resolution, `bundle/resolve.mjs`): several roots, the read-only
/// setting given, or left to its default.
#[test]
fn the_binary_takes_the_command_line_the_bundle_makes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).expect("mkdir");
    std::fs::create_dir_all(&b).expect("mkdir");
    let manifest = write_json(dir.path(), "manifest.json", &manifests().bundle);
    let _ = mcpb();
    let roots = json!([a, b]);
    for (settings, writes) in [
        (json!({"root": roots}), true),
        (json!({"root": roots, "read_only": true}), false),
        (json!({"root": roots, "read_only": false}), true),
    ] {
        let resolved = python::run(
            Command::new("node")
                .arg(crate_dir().join("bundle/resolve.mjs"))
                .arg(&manifest)
                .arg(dir.path())
                .arg(settings.to_string()),
        );
        let config: Value = serde_json::from_slice(&resolved.stdout).expect("JSON");
        let args: Vec<&str> = config["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| a.as_str().expect("text"))
            .collect();
        assert!(!args.iter().any(|a| a.contains("${")), "{args:?}");
        let output = Command::new(BIN)
            .args(&args)
            .arg("--list")
            .output()
            .expect("run");
        assert!(output.status.success(), "{args:?}: {output:?}");
        let listed = String::from_utf8_lossy(&output.stdout);
        assert_eq!(listed.contains("write_file"), writes, "{args:?}: {listed}");
    }
    // A registry client passes a named value as the next argument.
    for (value, writes) in [("false", true), ("true", false)] {
        let output = Command::new(BIN)
            .args(["--read-only", value, "--list"])
            .output()
            .expect("run");
        assert!(output.status.success(), "{output:?}");
        let listed = String::from_utf8_lossy(&output.stdout);
        assert_eq!(listed.contains("write_file"), writes, "{listed}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_is_served_then_not_modified() {
    let server = http_server(BIN, &[]).await;
    let url = format!("{}/server-card", server.url);
    let client = reqwest::Client::new();
    let first = client
        .get(&url)
        .header("origin", "https://elsewhere.example")
        .send()
        .await
        .expect("GET");
    assert_eq!(first.status(), 200);
    let headers = first.headers().clone();
    assert_eq!(headers["content-type"], "application/mcp-server-card+json");
    assert_eq!(headers["access-control-allow-origin"], "*");
    let etag = headers["etag"].to_str().expect("ETag").to_owned();
    let served: Value = serde_json::from_slice(&first.bytes().await.expect("body")).expect("JSON");
    assert_eq!(served, manifests().server_card);
    let second = client
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("GET");
    assert_eq!(second.status(), 304);
    assert_eq!(second.headers()["etag"].to_str().expect("ETag"), etag);
}
