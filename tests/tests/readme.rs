//! The README's code is compiled: each code block marked
//! `<!-- file: PATH -->` must be the content of PATH, a file of the crate
//! `tests/tutorial` (its build script, library, binaries and examples), which the workspace
//! builds and tests.

use std::path::Path;
use toolmetadata::metadata::Load as _;

/// Checks each block of `text` marked `<!-- file: PATH -->` against PATH;
/// how many there were.
fn check_file_blocks(text: &str, root: &Path, shown_in: &str) -> usize {
    let mut checked = 0;
    let mut rest = text;
    while let Some(at) = rest.find("<!-- file: ") {
        rest = &rest[at + "<!-- file: ".len()..];
        let (path, after) = rest.split_once(" -->").expect("a closed marker");
        let fence = after.find("```").expect("a code block after the marker");
        let body_start = after[fence..].find('\n').expect("fence line") + fence + 1;
        let body_len = after[body_start..].find("\n```").expect("closing fence") + 1;
        let block = &after[body_start..body_start + body_len];
        let file =
            std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(
            block, file,
            "the block of {shown_in} for {path} differs from the file"
        );
        checked += 1;
        rest = &after[body_start + body_len..];
    }
    checked
}

#[test]
fn tutorial_blocks_are_the_compiled_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    assert_eq!(
        check_file_blocks(&readme, root, "README.md"),
        13,
        "the tutorial's four tool files, build script, library, binary and test, its two examples, the mounted server, the Python client and a store's contract test"
    );
}

/// The runtime's crate documentation shows the tutorial too: its doc
/// comment's blocks, with the `//! ` prefixes taken off, are the files.
#[test]
fn the_crate_documentation_shows_the_compiled_tutorial() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace");
    let source = std::fs::read_to_string(root.join("runtime/src/lib.rs")).expect("lib.rs");
    let doc: String = source
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
        .collect();
    assert_eq!(
        check_file_blocks(&doc, root, "runtime/src/lib.rs"),
        4,
        "the tool file, build script, library and binary"
    );
}

#[test]
fn the_diagnostic_shown_in_the_readme_is_what_the_build_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let good = std::fs::read_to_string(root.join("tests/tutorial/tools/search_notes.toml"))
        .expect("tool file");
    let bad = good.replace("type = \"int\"", "type = \"integr\"");
    let error =
        toolmetadata::ToolMetadata::from_toml_str("search_notes", &bad).expect_err("bad type");
    let rendered = error
        .iter()
        .next()
        .expect("one diagnostic")
        .render(false)
        .replace("search_notes.toml", "tools/search_notes.toml");
    // The README shortens the list of valid types, and shows the diagnostic
    // as cargo does: in the build script's stderr, indented by two spaces.
    let shown = rendered.split(", array:int").next().expect("help line");
    let unindented: String = readme
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect();
    assert!(
        unindented.contains(shown),
        "README should show:\n{rendered}"
    );
    assert!(readme.contains("error: failed to run custom build command for `notes"));
}

/// The README's `Cargo.toml` for the tutorial names the dependencies of
/// `tests/tutorial/Cargo.toml`, with the same features, at versions the
/// workspace's match.
#[test]
fn the_tutorials_cargo_toml_in_the_readme_is_the_tutorials() {
    use toml::de::{DeTable, DeValue};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let (_, after) = readme
        .split_once("<!-- cargo-toml: tests/tutorial/Cargo.toml -->\n```toml\n")
        .expect("the tutorial's Cargo.toml in the README");
    let (shown, _) = after.split_once("\n```").expect("closing fence");
    let shown = DeTable::parse(shown).expect("the README's Cargo.toml");
    let text = |path: &str| std::fs::read_to_string(root.join(path)).expect(path);
    let (tutorial, workspace) = (text("tests/tutorial/Cargo.toml"), text("Cargo.toml"));
    let tutorial = DeTable::parse(&tutorial).expect("the tutorial's Cargo.toml");
    let workspace = DeTable::parse(&workspace).expect("the workspace's Cargo.toml");
    fn table<'a>(t: &'a DeTable<'a>, key: &str) -> Option<&'a DeTable<'a>> {
        match t.get(key)?.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => None,
        }
    }
    let (shown, tutorial, workspace) = (shown.get_ref(), tutorial.get_ref(), workspace.get_ref());
    let workspace_deps = table(
        table(workspace, "workspace").expect("[workspace]"),
        "dependencies",
    )
    .expect("[workspace.dependencies]");
    // A path in the README names the crate's directory in a checkout of
    // this repository beside the user's crate.
    let directories = [
        ("toolmetadata", "../toolmetadata-rs/runtime"),
        (
            "toolmetadata-build",
            "../toolmetadata-rs/toolmetadata-build",
        ),
    ];
    // (version, features) of a dependency written either way.
    let spec = |value: &DeValue<'_>| -> (Option<String>, Vec<String>) {
        match value {
            DeValue::String(v) => (Some(v.to_string()), Vec::new()),
            DeValue::Table(t) => {
                let version = match t.get("version").map(|v| v.get_ref()) {
                    Some(DeValue::String(v)) => Some(v.to_string()),
                    _ => None,
                };
                let mut features: Vec<String> = match t.get("features").map(|v| v.get_ref()) {
                    Some(DeValue::Array(items)) => items
                        .iter()
                        .filter_map(|i| match i.get_ref() {
                            DeValue::String(s) => Some(s.to_string()),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                features.sort();
                (version, features)
            }
            _ => panic!("a dependency is a version or a table"),
        }
    };
    for section in ["dependencies", "build-dependencies", "dev-dependencies"] {
        let readme_deps = table(shown, section).expect(section);
        let tutorial_deps = table(tutorial, section).expect(section);
        let names = |t: &DeTable<'_>| {
            let mut names: Vec<String> = t.keys().map(|k| k.get_ref().to_string()).collect();
            names.sort();
            names
        };
        if section == "dev-dependencies" {
            // The tutorial's other tests use the workspace's test kit too.
            let theirs = names(tutorial_deps);
            assert!(
                names(readme_deps).iter().all(|n| theirs.contains(n)),
                "[{section}]"
            );
        } else {
            assert_eq!(names(readme_deps), names(tutorial_deps), "[{section}]");
        }
        for (name, value) in tutorial_deps.iter() {
            let name = name.get_ref().as_ref();
            let Some(shown_dep) = readme_deps.get(name) else {
                continue;
            };
            if let Some((_, directory)) = directories.iter().find(|(crate_, _)| *crate_ == name) {
                let path = match shown_dep.get_ref() {
                    DeValue::Table(t) => t.get("path").map(|p| p.get_ref().clone()),
                    _ => None,
                };
                assert!(
                    matches!(&path, Some(DeValue::String(p)) if p == directory),
                    "{name} in [{section}]: path = {directory:?}, not {path:?}"
                );
                assert!(
                    root.join(&directory["../toolmetadata-rs/".len()..])
                        .join("Cargo.toml")
                        .is_file()
                );
            }
            let (version, features) = spec(shown_dep.get_ref());
            let (_, tutorial_features) = spec(value.get_ref());
            assert_eq!(features, tutorial_features, "the features of {name}");
            let (used, _) = spec(
                workspace_deps
                    .get(name)
                    .expect("a workspace dependency")
                    .get_ref(),
            );
            let (version, used) = (version.expect("a version"), used.expect("a version"));
            assert!(
                used == version || used.starts_with(&format!("{version}.")),
                "{name}: the README says {version}, the workspace uses {used}"
            );
        }
    }
}

#[test]
fn the_header_and_task_example_renders_what_the_readme_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let (_, after) = readme
        .split_once("<!-- checked: tests/tests/readme.rs -->\n```toml\n")
        .expect("the header and task example");
    let (toml, _) = after.split_once("\n```").expect("closing fence");
    let tool = toolmetadata::ToolMetadata::from_toml_str("export_notes", toml).expect("loads");
    let entry = tool.to_tools_list_entry();
    assert_eq!(
        entry["inputSchema"]["properties"]["notebook"]["x-mcp-header"],
        "Notebook"
    );
    assert_eq!(entry["execution"]["taskSupport"], "optional");
}
