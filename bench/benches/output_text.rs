//! `outputText`: what rendering a result's text from its template costs a
//! `tools/call`, against the JSON text copy a result without one gets (issue
//! 48's bound: at most 2 µs more). Both own the output, as a handler's
//! result is owned: the clone is setup, not measured.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use toolmetadata::ToolOutput;

fn output_text(c: &mut Criterion) {
    let value = json!({"count": 42, "folder": "inbox", "mean": 7.25,
        "titles": ["buy milk", "call Ada", "milk the cow", "book the hall"]});
    let template = "Found {count} notes in {folder} (mean length {mean:.2}): {titles}";
    let mut group = c.benchmark_group("output_text");
    group.bench_function("json_copy", |b| {
        b.iter_batched(
            || value.clone(),
            |v| ToolOutput::structured(black_box(v)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("template", |b| {
        b.iter_batched(
            || value.clone(),
            |v| ToolOutput::structured_as_text(black_box(v), black_box(template)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, output_text);
criterion_main!(benches);
