//! Snapshots of the rendered diagnostics of every corpus file that has errors:
//! what a user sees in `cargo build` and `toolmetadata check`.

use toolmetadata::metadata::Load as _;
use toolmetadata::metadata::{Format, Loader, tool_name};
use toolmetadata_tests::conformance;

#[test]
fn rendered_diagnostics_of_every_error_file() {
    // The snapshots are of this crate's corpus, whatever corpus the
    // conformance tests are pointed at.
    let dir = conformance::own_dir();
    let _guard = snapshots().bind_to_scope();

    let mut count = 0;
    for expected in conformance::expectations(&dir) {
        if expected["outcome"] != "error" {
            continue;
        }
        let file = expected["file"].as_str().expect("file");
        let path = dir.join("corpus").join(file);
        let bytes = std::fs::read(&path).expect("corpus file");
        let format = Format::from_path(&path).expect("toml or json");
        let shown = format!("tools/{file}");
        let diagnostics = Loader::new()
            .load_bytes(&shown, &tool_name(&path), format, &bytes)
            .expect_err("an error file fails to load");
        let name: String = file
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        insta::assert_snapshot!(name, diagnostics.render(false));
        count += 1;
    }
    assert!(count >= 30, "only {count} error files");
}

/// The policy extensions' mistakes (FORMAT.md "Limits", "Bound parameters",
/// "Declared failures"), each as `cargo build` renders it: located at its
/// line and column, with the source line and the fix.
#[test]
fn policy_extension_diagnostics_are_located_and_say_the_fix() {
    let cases = [
        (
            "bound_and_from_the_model",
            "description = \"Report\"\n\n[[parameters]]\nname = \"tenant\"\ntype = \"string\"\ndescription = \"The caller's tenant\"\nfrom = \"claim:tenant_id\"\nheader = \"Tenant\"\n",
        ),
        (
            "bound_twice_named",
            "description = \"Report\"\n\n[[parameters]]\nname = \"tenant\"\ntype = \"string\"\ndescription = \"From the model\"\nrequired = true\n\n[[parameters]]\nname = \"tenant\"\ntype = \"string\"\ndescription = \"The caller's tenant\"\nfrom = \"claim:tenant_id\"\n",
        ),
        (
            "unknown_source",
            "description = \"Report\"\n\n[[parameters]]\nname = \"tenant\"\ntype = \"string\"\ndescription = \"The caller's tenant\"\nfrom = \"cookie:tenant\"\n",
        ),
        (
            "malformed_limit",
            "description = \"Report\"\n\n[limits]\ntimeout = \"soon\"\nrate = \"10 per minute\"\n",
        ),
        (
            "failure_declared_twice",
            "description = \"Report\"\n\n[[failures]]\ncode = \"not_allowed\"\nclass = \"governance\"\ndescription = \"Not on the list\"\n\n[[failures]]\ncode = \"not_allowed\"\nclass = \"capability\"\ndescription = \"Again\"\n",
        ),
    ];
    let _guard = snapshots().bind_to_scope();
    for (name, text) in cases {
        let (shown, rendered) = rendered_toml(name, text);
        assert!(rendered.contains(&format!("--> {shown}:")), "{rendered}");
        insta::assert_snapshot!(format!("policy-{name}"), rendered);
    }
}

/// `outputText`'s mistakes (FORMAT.md "Results a model can read"): each
/// placeholder that names no output field, or shows a field in a way its
/// type cannot be shown, located at the placeholder with the fix.
#[test]
fn output_text_diagnostics_are_located_and_say_the_fix() {
    const OUTPUT: &str = "\n[[output]]\nname = \"count\"\ntype = \"int\"\nrequired = true\n\n[[output]]\nname = \"folder\"\ntype = \"string\"\n\n[[output]]\nname = \"tags\"\ntype = \"array:string\"\n";
    let cases = [
        (
            "no_output",
            "description = \"Count\"\noutputText = \"Found {count}\"\n".to_owned(),
        ),
        (
            "unknown_field",
            format!(
                "description = \"Count\"\noutputText = \"Found {{cuont}} notes in {{folder}}\"\n{OUTPUT}"
            ),
        ),
        (
            "count_of_a_scalar",
            format!("description = \"Count\"\noutputText = \"{{folder:count}} folders\"\n{OUTPUT}"),
        ),
        (
            "decimals_of_an_int",
            format!("description = \"Count\"\noutputText = \"{{count:.2}} notes\"\n{OUTPUT}"),
        ),
        (
            "unknown_format",
            format!("description = \"Count\"\noutputText = \"{{tags:join}}\"\n{OUTPUT}"),
        ),
        (
            "unclosed_brace",
            format!("description = \"Count\"\noutputText = \"Found {{count\"\n{OUTPUT}"),
        ),
    ];
    let _guard = snapshots().bind_to_scope();
    for (name, text) in cases {
        let (shown, rendered) = rendered_toml(name, &text);
        assert!(rendered.contains("error[output-text]"), "{rendered}");
        assert!(rendered.contains(&format!("--> {shown}:2:")), "{rendered}");
        insta::assert_snapshot!(format!("output-text-{name}"), rendered);
    }
    // A good one loads, and its entry carries the template in `_meta`.
    let good = format!(
        "description = \"Count\"\noutputText = \"Found {{count}} notes in {{folder}} ({{tags:count}} tags: {{tags}})\"\n{OUTPUT}"
    );
    let tool = toolmetadata::ToolMetadata::from_toml_str("count", &good).expect("loads");
    assert_eq!(
        tool.to_tools_list_entry()["_meta"]["io.toolmetadata/outputText"],
        "Found {count} notes in {folder} ({tags:count} tags: {tags})"
    );
}

/// `toolGroups`' mistakes (FORMAT.md "Tool groups"): a group that cannot
/// be a path segment, or is listed twice, located at the group with the
/// rule for a name.
#[test]
fn group_diagnostics_are_located_and_say_the_rule() {
    let cases = [
        (
            "slash",
            "description = \"Read\"\ntoolGroups = [\"read/only\"]\n",
        ),
        (
            "space",
            "description = \"Read\"\ntoolGroups = [\"read\", \"read only\"]\n",
        ),
        ("dot_dot", "description = \"Read\"\ntoolGroups = [\"..\"]\n"),
        (
            "percent",
            "description = \"Read\"\ntoolGroups = [\"read%2F\"]\n",
        ),
        (
            "server_card",
            "description = \"Read\"\ntoolGroups = [\"server-card\"]\n",
        ),
        ("empty", "description = \"Read\"\ntoolGroups = [\"\"]\n"),
        (
            "twice",
            "description = \"Read\"\ntoolGroups = [\"read\", \"read\"]\n",
        ),
    ];
    let _guard = snapshots().bind_to_scope();
    for (name, text) in cases {
        let (shown, rendered) = rendered_toml(name, text);
        assert!(rendered.contains("error[bad-group]"), "{rendered}");
        assert!(rendered.contains(&format!("--> {shown}:2:")), "{rendered}");
        insta::assert_snapshot!(format!("group-{name}"), rendered);
    }
    // Good names load, and the entry lists them sorted in `_meta`.
    let good = "description = \"Read\"\ntoolGroups = [\"read\", \"admin-v2\", \"a.b~c\"]\n";
    let tool = toolmetadata::ToolMetadata::from_toml_str("read_note", good).expect("loads");
    assert_eq!(tool.groups, ["read", "admin-v2", "a.b~c"]);
    assert_eq!(
        tool.to_tools_list_entry()["_meta"]["io.toolmetadata/groups"],
        serde_json::json!(["a.b~c", "admin-v2", "read"])
    );
}

/// The diagnostics of `text`, read as `tools/{name}.toml`, which must fail
/// to load: where it was shown, and the rendering.
fn rendered_toml(name: &str, text: &str) -> (String, String) {
    let shown = format!("tools/{name}.toml");
    let diagnostics = Loader::new()
        .load_bytes(&shown, name, Format::Toml, text.as_bytes())
        .expect_err(name);
    (shown, diagnostics.render(false))
}

/// Snapshots in `snapshots/diagnostics`, named as given.
fn snapshots() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/diagnostics");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}
