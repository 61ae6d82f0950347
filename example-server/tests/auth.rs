//! example-server's `--auth-*` flags make it an OAuth resource server: a
//! request without a token is refused with a challenge that points at the
//! protected resource metadata, and that document names the issuer, the
//! resource and the scopes the tools' metadata uses.

use serde_json::Value;
use toolmetadata_tests::mcp::http_server;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auth_flags_protect_the_server_and_publish_its_metadata() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let audience = "https://mcp.example.test/mcp";
    let server = http_server(
        BIN,
        &[
            "--root",
            &root,
            "--auth-issuer",
            "https://idp.example.test",
            "--auth-audience",
            audience,
            // Loopback http is allowed for a JWKS; no token comes, so it is
            // never fetched.
            "--auth-jwks",
            "http://127.0.0.1:9/jwks",
        ],
    )
    .await;
    let client = reqwest::Client::new();
    let refused = client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#)
        .send()
        .await
        .expect("request");
    assert_eq!(refused.status(), 401);
    let challenge = refused
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let metadata = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp";
    assert!(
        challenge.starts_with("Bearer")
            && challenge.contains(&format!("resource_metadata=\"{metadata}\"")),
        "{challenge}"
    );

    // The document, served where the challenge says (on this server's address).
    let base = server.url.trim_end_matches("/mcp");
    let document = client
        .get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
        .send()
        .await
        .expect("request")
        .text()
        .await
        .expect("body");
    let document: Value = serde_json::from_str(&document).expect("JSON");
    assert_eq!(document["resource"], audience, "{document}");
    assert_eq!(
        document["authorization_servers"],
        serde_json::json!(["https://idp.example.test"]),
        "{document}"
    );
    let scopes: Vec<&str> = document["scopes_supported"]
        .as_array()
        .expect("scopes_supported")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for scope in ["workspace:write", "workspace:exec"] {
        assert!(scopes.contains(&scope), "{scope} in {document}");
    }
}
