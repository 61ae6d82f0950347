//! The quality check as `toolmetadata check --quality` runs it on 200 and
//! 1,000 tools: load and check the files, run the rules, count every entry's
//! tokens and the whole list's (issue 48's bound: 200 tools in under 1 s).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolmetadata_build::tokens::Counts;
use toolmetadata_build::{Builder, Severity};

fn quality(c: &mut Criterion) {
    let mut group = c.benchmark_group("quality");
    group.sample_size(10);
    for n in [200, 1000] {
        let dir = tempfile::tempdir().expect("tempdir");
        toolmetadata_bench::write_metadata(dir.path(), n).expect("metadata");
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let checked = Builder::new()
                    .dir(dir.path().join("tools"))
                    .emit_cargo_directives(false)
                    .quality(Some(Severity::Warning))
                    .check()
                    .expect("checked");
                Counts::of(&checked)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, quality);
criterion_main!(benches);
