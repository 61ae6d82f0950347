//! The official MCP Python SDK client (`mcp` 2.3.0 from PyPI) lists and calls
//! the test server's tools over stdio and Streamable HTTP, in its `auto` and
//! `legacy` modes. The harness installs the package into a venv under
//! `target/` (toolmetadata_tests::python); when Python or the package cannot
//! be had, the test fails.

use std::path::Path;

use toolmetadata_tests::mcp::*;
use toolmetadata_tests::python;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");
use serde_json::{Value, json};

fn client(mode: &str, target: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/client.py");
    let mut args = vec![mode];
    args.extend_from_slice(target);
    python::run_client(&script, &args)
}

fn expected() -> Value {
    json!({
        "tools": ["archive", "boom", "cancellations", "crash_job", "deploy", "echo", "execute_tool", "export", "fail", "greet", "info", "job", "progress", "remove", "route", "slow", "stats", "survey", "throttled", "tool_search", "whoami"],
        "echo": {"text": "hi hi", "is_error": false},
        "stats": {"structured": {"count": 3, "mean": 3.0}, "text": "3 numbers, mean 3.00", "is_error": false},
        "greet": "hello Py",
        "bad": {
            "text": "invalid arguments for tool `echo` (2 errors):\n- missing required argument `text`\n- `times`: expected an integer, got string \"many\"",
            "is_error": true
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_over_stdio_and_http_in_both_modes() {
    for mode in ["auto", "legacy"] {
        let report = client(mode, &["stdio", BIN]);
        assert_eq!(report, expected(), "stdio, {mode}");
    }
    let server = http_server(BIN, &[]).await;
    for mode in ["auto", "legacy"] {
        let report = client(mode, &["http", &server.url]);
        assert_eq!(report, expected(), "http, {mode}");
    }
}
