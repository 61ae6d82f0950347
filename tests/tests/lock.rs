//! The catalog lock through `Builder`: written once, unchanged by a tool
//! file reformatted, and every change of a tool let through only with the
//! `toolVersion` bump its class needs, each refusal a located diagnostic
//! (snapshots) that shows what changed and the version it needs.

use std::path::{Path, PathBuf};

use toolmetadata_build::{Builder, Severity};

const BASE: &str = r#"description = "Search the index"
toolVersion = "1.0.0"

[[parameters]]
name = "query"
type = "string"
required = true

[[parameters]]
name = "kind"
type = "string"
enum = ["doc", "code"]

[[parameters]]
name = "limit"
type = "int"
minimum = 1
maximum = 100
"#;

struct Catalog {
    dir: tempfile::TempDir,
}

impl Catalog {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("tools")).expect("mkdir");
        Catalog { dir }
    }

    fn tools(&self) -> PathBuf {
        self.dir.path().join("tools")
    }

    fn lock_path(&self) -> PathBuf {
        self.tools().join("tools.lock")
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.tools().join(name), text).expect("write");
    }

    fn lock_text(&self) -> String {
        std::fs::read_to_string(self.lock_path()).expect("the lock")
    }

    fn builder(&self) -> Builder {
        Builder::new()
            .dir(self.tools())
            .out_dir(self.dir.path().join("out"))
            .emit_cargo_directives(false)
            // What the lock says, alone.
            .quality(None)
            .lock(self.lock_path())
            .locked(false)
    }

    /// Builds; the rendered error with the temporary directory taken out.
    fn build_with(&self, builder: Builder) -> Result<(), String> {
        builder.compile().map_err(|e| {
            e.to_string()
                .replace(&format!("{}/", self.dir.path().display()), "")
        })
    }

    fn build(&self) -> Result<(), String> {
        self.build_with(self.builder())
    }
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/lock");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn the_lock_is_written_once_and_reformatting_changes_nothing() {
    let c = Catalog::new();
    c.write("search.toml", BASE);
    c.build().expect("the first build writes the lock");
    let first = c.lock_text();
    assert!(first.contains("\"version\": \"1.0.0\""), "{first}");
    assert!(first.contains("\"fingerprint\": \"sha256:"), "{first}");
    for part in ["\"schema\"", "\"description\"", "\"annotations\""] {
        assert!(first.contains(part), "{part} in {first}");
    }
    // The same tool, its keys in another order, spaced otherwise, as JSON.
    std::fs::remove_file(c.tools().join("search.toml")).expect("rm");
    c.write(
        "search.json",
        r#"{"toolVersion":"1.0.0","parameters":[
            {"type":"string","name":"query","required":true},
            {"enum":["doc","code"],"name":"kind","type":"string"},
            {"maximum":100,"name":"limit","minimum":1,"type":"int"}],
           "description":"Search the index"}"#,
    );
    c.build().expect("nothing changed");
    assert_eq!(
        c.lock_text(),
        first,
        "a reformatted file changes no fingerprint"
    );
}

/// A change made to a tool file's text.
type Edit = dyn Fn(&str) -> String;

#[test]
fn each_class_of_change_needs_its_bump() {
    let cases: [(&str, &Edit, &str); 7] = [
        (
            "breaking_parameter_removed",
            &|t| {
                t.replace("[[parameters]]\nname = \"limit\"\ntype = \"int\"\nminimum = 1\nmaximum = 100\n", "")
            },
            "2.0.0",
        ),
        (
            "breaking_enum_narrowed",
            &|t| t.replace("enum = [\"doc\", \"code\"]", "enum = [\"doc\"]"),
            "2.0.0",
        ),
        (
            "breaking_newly_required",
            &|t| {
                t.replace(
                    "name = \"kind\"\ntype = \"string\"\n",
                    "name = \"kind\"\ntype = \"string\"\nrequired = true\n",
                )
                .replace("enum = [\"doc\", \"code\"]\n", "")
            },
            "2.0.0",
        ),
        (
            "breaking_type_changed",
            &|t| {
                t.replace(
                    "name = \"limit\"\ntype = \"int\"",
                    "name = \"limit\"\ntype = \"float\"",
                )
            },
            "2.0.0",
        ),
        (
            "compatible_optional_added",
            &|t| format!("{t}\n[[parameters]]\nname = \"page\"\ntype = \"int\"\n"),
            "1.1.0",
        ),
        (
            "compatible_bounds_widened",
            &|t| t.replace("maximum = 100", "maximum = 500"),
            "1.1.0",
        ),
        (
            "wording_description",
            &|t| t.replace("Search the index", "Search the whole index"),
            "1.0.1",
        ),
    ];
    for (name, change, needed) in cases {
        let c = Catalog::new();
        c.write("search.toml", BASE);
        c.build().expect("the lock is written");
        let locked = c.lock_text();
        let changed = change(BASE);
        assert_ne!(changed, BASE, "{name}: the change applies");
        c.write("search.toml", &changed);
        let refused = c.build().expect_err(name);
        assert!(
            refused.contains(&format!("needs {needed} or above")),
            "{name}: {refused}"
        );
        snapshot(name, &refused);
        assert_eq!(
            c.lock_text(),
            locked,
            "{name}: a refused change leaves the lock"
        );
        // A bump too small is refused the same; the one needed passes.
        c.write("search.toml", &changed.replace("\"1.0.0\"", "\"1.0.1\""));
        if needed != "1.0.1" {
            assert!(c.build().is_err(), "{name}: 1.0.1 is not enough");
        }
        c.write(
            "search.toml",
            &changed.replace("\"1.0.0\"", &format!("\"{needed}\"")),
        );
        c.build()
            .unwrap_or_else(|e| panic!("{name}: {needed} is enough: {e}"));
        assert!(
            c.lock_text()
                .contains(&format!("\"version\": \"{needed}\"")),
            "{name}: the lock records the accepted change"
        );
    }
}

#[test]
fn a_removed_tool_and_an_unversioned_change_are_refused() {
    let c = Catalog::new();
    c.write("search.toml", BASE);
    c.write("fetch.toml", "description = \"Fetch a page\"\n");
    c.build().expect("the lock is written");
    std::fs::remove_file(c.tools().join("search.toml")).expect("rm");
    let refused = c.build().expect_err("a removed tool");
    assert!(refused.contains("tool `search` was removed"), "{refused}");
    snapshot("breaking_tool_removed", &refused);
    c.write("search.toml", BASE);
    c.write("fetch.toml", "description = \"Fetch one page\"\n");
    let refused = c.build().expect_err("no version to bump");
    assert!(
        refused.contains("has no `toolVersion` to bump"),
        "{refused}"
    );
    snapshot("unversioned_change", &refused);
    // A new tool is an addition: let through.
    c.write("fetch.toml", "description = \"Fetch a page\"\n");
    c.write("list.toml", "description = \"List pages\"\n");
    c.build().expect("a new tool");
}

#[test]
fn warnings_let_a_change_through_and_a_frozen_lock_refuses_any() {
    let c = Catalog::new();
    c.write("search.toml", BASE);
    c.build().expect("the lock is written");
    let changed = BASE.replace("Search the index", "Search everything");
    c.write("search.toml", &changed);
    c.build_with(c.builder().lock_changes(Severity::Warning))
        .expect("a warning only");
    assert!(c.lock_text().contains("Search everything"), "recorded");
    // Frozen: even a change bumped right fails, the lock left as it was.
    let locked = c.lock_text();
    c.write(
        "search.toml",
        &changed
            .replace("\"1.0.0\"", "\"1.0.1\"")
            .replace("everything", "it all"),
    );
    let refused = c.build_with(c.builder().locked(true)).expect_err("frozen");
    assert!(refused.contains("is stale"), "{refused}");
    assert_eq!(c.lock_text(), locked);
    // Frozen, a change without its bump is an error even where it would
    // otherwise only warn.
    c.write(
        "search.toml",
        &BASE.replace("Search the index", "Search it all"),
    );
    let refused = c
        .build_with(c.builder().locked(true).lock_changes(Severity::Warning))
        .expect_err("frozen and unbumped");
    assert!(refused.contains("error[catalog-change]"), "{refused}");
    // The lock checked out with other line endings is the same lock.
    c.write("search.toml", &changed);
    std::fs::write(c.lock_path(), locked.replace('\n', "\r\n")).expect("write");
    c.build_with(c.builder().locked(true))
        .expect("the same lock, written otherwise");
    std::fs::remove_file(c.lock_path()).expect("rm");
    let refused = c
        .build_with(c.builder().locked(true))
        .expect_err("frozen, no lock");
    assert!(refused.contains("there is no lock file yet"), "{refused}");
    assert!(!Path::new(&c.lock_path()).exists());
}

#[test]
fn a_renamed_parameter_and_a_narrowed_output_break() {
    let with_output = format!(
        "{BASE}\n[[output]]\nname = \"hits\"\ntype = \"int\"\nrequired = true\n\n[[output]]\nname = \"took_ms\"\ntype = \"int\"\nrequired = true\n"
    );
    for (name, changed) in [
        (
            "breaking_parameter_renamed",
            with_output.replace("name = \"limit\"", "name = \"max\""),
        ),
        (
            "breaking_output_narrowed",
            with_output.replace(
                "[[output]]\nname = \"took_ms\"\ntype = \"int\"\nrequired = true\n",
                "[[output]]\nname = \"took_ms\"\ntype = \"int\"\n",
            ),
        ),
    ] {
        let c = Catalog::new();
        c.write("search.toml", &with_output);
        c.build().expect("the lock is written");
        assert_ne!(changed, with_output, "{name}: the change applies");
        c.write("search.toml", &changed);
        let refused = c.build().expect_err(name);
        assert!(
            refused.contains("needs 2.0.0 or above"),
            "{name}: {refused}"
        );
        snapshot(name, &refused);
    }
}
