//! Snapshots of the rendered diagnostics of every corpus file that has errors:
//! what a user sees in `cargo build` and `toolmetadata check`.

use toolmetadata::metadata::{Format, Loader, tool_name};
use toolmetadata_tests::conformance;

#[test]
fn rendered_diagnostics_of_every_error_file() {
    // The snapshots are of this crate's corpus, whatever corpus the
    // conformance tests are pointed at.
    let dir = conformance::own_dir();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/diagnostics");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let _guard = settings.bind_to_scope();

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
