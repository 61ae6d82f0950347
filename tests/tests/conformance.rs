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
