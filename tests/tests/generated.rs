//! Snapshots of the generated code for several tool sets, each then compiled by
//! trybuild under `#![deny(warnings)]`.

use std::path::{Path, PathBuf};

use toolmetadata_build::Builder;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_owned()
}

/// The tool sets: a name and the builder that generates it.
fn sets() -> Vec<(&'static str, Builder)> {
    let corpus = root().join("conformance/corpus");
    let quiet = || Builder::new().emit_cargo_directives(false);
    vec![
        (
            "fixture_tools",
            quiet().dir(root().join("fixture/tools")).param_type(
                "get_user",
                "user_id",
                "::toolmetadata::args::Id",
            ),
        ),
        (
            "fixture_strict",
            quiet()
                .dir(root().join("fixture/strict-tools"))
                .strict_arguments(true),
        ),
        ("empty", quiet().dir(root().join("codegen/empty"))),
        ("discovery", quiet().dir(root().join("codegen/discovery"))),
        (
            "corpus",
            [
                "search_issues.toml",
                "create_invoice.json",
                "weather.forecast.json",
                "deploy-service.toml",
                "ext_enum_keyword_values.toml",
                "rust_keywords.toml",
                "rust_keyword_Self.json",
                "param_names_valid_edge.json",
                "ext_output.json",
                "all_types.toml",
                "ui_and_icons.toml",
                "hints_canonical.toml",
                "api.v1.get-user.toml",
                "ext_default_arrays.toml",
            ]
            .iter()
            .fold(quiet(), |b, f| b.file(corpus.join(f))),
        ),
    ]
}

/// Paths in the header depend on where the repository is; snapshots show them
/// relative to `tests/`.
fn portable(source: &str) -> String {
    source.replace(&format!("{}/", root().display()), "")
}

#[test]
fn generated_code_snapshots_compile_under_deny_warnings() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("generated");
    std::fs::create_dir_all(&out).unwrap();
    let cases = trybuild::TestCases::new();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/generated");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let _guard = settings.bind_to_scope();
    for (name, builder) in sets() {
        let source = builder.generate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let source = portable(&source);
        insta::assert_snapshot!(name, source);
        let generated = out.join(format!("{name}.generated.rs"));
        std::fs::write(&generated, &source).unwrap();
        let wrapper = out.join(format!("{name}.rs"));
        std::fs::write(
            &wrapper,
            format!(
                "#![deny(warnings)]\n\nmod tools {{\n    include!({:?});\n}}\n\nfn main() {{}}\n",
                generated.display().to_string()
            ),
        )
        .unwrap();
        cases.pass(&wrapper);
    }
}

/// rustdoc shows a code span as written, so an array default must not be
/// escaped inside its backticks (`` `\[1,2\]` `` would show the backslashes).
#[test]
fn array_defaults_are_documented_unescaped() {
    let corpus = root().join("conformance/corpus");
    let source = Builder::new()
        .emit_cargo_directives(false)
        .file(corpus.join("ext_default_arrays.toml"))
        .generate()
        .unwrap();
    assert!(source.contains("(default: `[1,2,3]`)"), "{source}");
    assert!(source.contains(r#"(default: `["a","b"]`)"#), "{source}");
    assert!(!source.contains("\\["), "{source}");
}

#[test]
fn generation_is_deterministic() {
    for (name, builder) in sets() {
        let first = builder.generate().unwrap();
        let second = builder.clone().generate().unwrap();
        assert_eq!(first, second, "{name}");
    }
}

/// Generated code goes through one door: every path of this crate it names is
/// under `toolmetadata::codegen`, except the types a build script chose
/// itself (`param_type`).
#[test]
fn generated_code_names_the_runtime_only_through_codegen() {
    let chosen = "::toolmetadata::args::Id";
    for (name, builder) in sets() {
        let source = builder.generate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let code: String = source
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for (at, _) in code.match_indices("::toolmetadata::") {
            let path = &code[at..];
            assert!(
                path.starts_with("::toolmetadata::codegen::") || path.starts_with(chosen),
                "{name}: {}",
                &path[..path.len().min(80)]
            );
        }
        assert!(
            !code.contains(" toolmetadata::"),
            "{name}: a path without the leading `::`"
        );
    }
}
