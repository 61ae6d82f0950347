//! Argument decoding: the generated decoder against `serde_json::from_value`
//! into a `#[derive(Deserialize)]` struct, on the same arguments.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde::Deserialize;
use serde_json::json;
use std::hint::black_box;
use toolmetadata::args::{Conversion, FromArguments};
use toolmetadata_bench::decode_target::BenchToolArgs;

#[derive(Deserialize)]
#[allow(dead_code)]
struct SerdeArgs {
    query: String,
    scope: String,
    limit: Option<i64>,
    ratio: Option<f64>,
    verbose: Option<bool>,
    tags: Option<Vec<String>>,
}

fn decode(c: &mut Criterion) {
    let valid = json!({"query": "needle", "scope": "haystack", "limit": 10, "ratio": 0.5, "verbose": true, "tags": ["a", "b"]});
    let invalid =
        json!({"query": "needle", "limit": "ten", "ratio": 0.5, "verbose": true, "tags": ["a", 2]});
    let valid_map = valid.as_object().cloned().unwrap_or_default();
    let invalid_map = invalid.as_object().cloned().unwrap_or_default();

    let mut group = c.benchmark_group("decode");
    // Both sides own the arguments, as the server hands them over: the copy is
    // setup, not measured.
    group.bench_function("ours/valid", |b| {
        b.iter_batched(
            || valid_map.clone(),
            |m| BenchToolArgs::from_arguments(black_box(m), Conversion::Lenient),
            BatchSize::SmallInput,
        )
    });
    // rmcp's Parameters<T> takes the arguments by value: the clone is setup.
    group.bench_function("serde/valid", |b| {
        b.iter_batched(
            || valid.clone(),
            |v| serde_json::from_value::<SerdeArgs>(black_box(v)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("serde/valid_borrowed", |b| {
        b.iter(|| SerdeArgs::deserialize(black_box(&valid)))
    });
    group.bench_function("ours/invalid", |b| {
        b.iter_batched(
            || invalid_map.clone(),
            |m| BenchToolArgs::from_arguments(black_box(m), Conversion::Lenient),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("serde/invalid", |b| {
        b.iter_batched(
            || invalid.clone(),
            |v| serde_json::from_value::<SerdeArgs>(black_box(v)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
