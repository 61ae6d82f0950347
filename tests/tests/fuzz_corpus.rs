//! The fuzz targets' kept corpora (`fuzz/corpus/<target>/`) and the inputs
//! that once crashed them (`fuzz/regressions/<target>/`), replayed through the
//! targets' own code on stable: what fuzzing found stays found.

use std::path::{Path, PathBuf};

#[allow(unreachable_pub)]
#[path = "../../fuzz/src/targets.rs"]
mod targets;

type Target = fn(&[u8]);

const TARGETS: &[(&str, Target)] = &[
    ("json_reader", targets::json_reader),
    ("toml_loader", targets::toml_loader),
    ("yaml_loader", targets::yaml_loader),
    ("check", targets::check),
    ("decode_args", targets::decode_args),
];

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn every_kept_fuzz_input_runs_without_a_panic() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut failures = Vec::new();
    for (name, target) in TARGETS {
        let corpus = inputs(&fuzz.join("corpus").join(name));
        assert!(!corpus.is_empty(), "no corpus for {name}");
        for path in corpus
            .iter()
            .chain(&inputs(&fuzz.join("regressions").join(name)))
        {
            let data = std::fs::read(path).expect("read a fuzz input");
            if std::panic::catch_unwind(|| target(&data)).is_err() {
                failures.push(format!("{name}: {}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "panicked:\n{}", failures.join("\n"));
}
