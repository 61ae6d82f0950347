//! Every corpus file loaded on its own through the library, checked against
//! `expected.jsonl`: no skips, no allow-list.

use toolmetadata_tests::conformance;

#[test]
fn every_corpus_file_meets_its_expectation() {
    let dir = conformance::dir();
    let expectations = conformance::expectations(&dir);
    assert!(
        !expectations.is_empty(),
        "no expectations in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    for expected in &expectations {
        let file = expected["file"].as_str().expect("file name");
        let record = conformance::library_record(&dir.join("corpus").join(file), file);
        if let Err(why) = conformance::check(expected, &record) {
            failures.push(format!("{file}: {why}"));
        }
    }
    let corpus_files = std::fs::read_dir(dir.join("corpus"))
        .expect("corpus dir")
        .count();
    assert_eq!(
        corpus_files,
        expectations.len(),
        "every corpus file has an expectation"
    );
    assert!(
        failures.is_empty(),
        "{} of {} corpus files fail:\n{}",
        failures.len(),
        expectations.len(),
        failures.join("\n")
    );
}

/// A YAML twin (`x.yaml` beside `x.toml`) has its TOML file's outcome, and
/// for errors the same rules and names; only the lines are its own.
#[test]
fn yaml_twins_expect_what_their_toml_files_expect() {
    let dir = conformance::dir();
    let expectations = conformance::expectations(&dir);
    let by_file: std::collections::HashMap<&str, &serde_json::Value> = expectations
        .iter()
        .filter_map(|e| e["file"].as_str().map(|f| (f, e)))
        .collect();
    let without_lines = |e: &serde_json::Value| {
        let mut e = e.clone();
        for key in ["file", "go", "message", "line"] {
            e.as_object_mut().map(|o| o.remove(key));
        }
        if let Some(also) = e["also"].as_array_mut() {
            for a in also {
                for key in ["message", "line"] {
                    a.as_object_mut().map(|o| o.remove(key));
                }
            }
        }
        if let Some(tool) = e["tool"].as_object_mut() {
            tool.remove("name");
        }
        e
    };
    let mut twins = 0;
    for (file, yaml) in &by_file {
        let Some(stem) = file.strip_suffix(".yaml") else {
            continue;
        };
        let Some(toml) = by_file.get(format!("{stem}.toml").as_str()) else {
            continue;
        };
        assert!(
            conformance::json_eq(&without_lines(yaml), &without_lines(toml)),
            "{file}: {yaml}\nits TOML file: {toml}"
        );
        twins += 1;
    }
    if conformance::dir() == conformance::own_dir() {
        assert!(twins >= 100, "only {twins} YAML twins");
    }
}
