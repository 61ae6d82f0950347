//! The official MCP conformance suite's generic scenarios against
//! example-server: what any server must do whatever its tools (the
//! lifecycle, sessions, ping, `tools/list`, DNS rebinding protection, the
//! level of logs, SSE streams, the 2026-07-28 headers and caching), each
//! at the protocol revision it belongs to. The scenarios that call the
//! suite's own test tools run against `tests/conformance-server`.

use std::path::Path;

use toolmetadata_tests::mcp::http_server;
use toolmetadata_tests::official_suite;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generic_scenarios_pass() {
    let root = tempfile::tempdir().expect("tempdir");
    let server = http_server(BIN, &["--root", root.path().to_str().expect("utf-8")]).await;
    let baseline =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/expected-failures.yml");
    let scenarios = [
        ("server-initialize", "2025-11-25"),
        ("server-session-lifecycle", "2025-11-25"),
        ("ping", "2025-11-25"),
        ("logging-set-level", "2025-11-25"),
        ("tools-list", "2025-11-25"),
        ("dns-rebinding-protection", "2025-11-25"),
        ("server-sse-multiple-streams", "2025-11-25"),
        ("tools-list", "2026-07-28"),
        ("dns-rebinding-protection", "2026-07-28"),
        ("http-header-validation", "2026-07-28"),
        ("caching", "2026-07-28"),
        ("server-sse-multiple-streams", "2026-07-28"),
    ];
    for (scenario, revision) in scenarios {
        official_suite::run(
            &server.url,
            &["--scenario", scenario, "--spec-version", revision],
            &baseline,
        )
        .await;
    }
}
