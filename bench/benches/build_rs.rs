//! What a build script costs: load, check, generate, format and write the
//! module for 10, 50, 200 and 1,000 tools.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolmetadata_build::Builder;

fn build_rs(c: &mut Criterion) {
    let mut group = c.benchmark_group("build_rs");
    group.sample_size(10);
    for n in [10, 50, 200, 1000] {
        let dir = tempfile::tempdir().expect("tempdir");
        toolmetadata_bench::write_metadata(dir.path(), n).expect("metadata");
        let out = tempfile::tempdir().expect("tempdir");
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                // A fresh output file each time, as a build script's first run.
                let _ = std::fs::remove_file(out.path().join("tools.rs"));
                Builder::new()
                    .dir(dir.path().join("tools"))
                    .out_dir(out.path())
                    .emit_cargo_directives(false)
                    .compile()
                    .expect("compiles")
            });
        });
    }
    group.finish();
}

criterion_group!(benches, build_rs);
criterion_main!(benches);
