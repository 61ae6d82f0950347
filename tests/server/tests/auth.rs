//! The server as an OAuth resource server: JWTs signed in the test (RS256 and
//! ES256, keys under `tests/keys`, test-only) checked against a JWKS served on
//! loopback; scopes filtering the tools; the refusals; key rotation; the JWKS
//! going down; the Protected Resource Metadata document.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use toolmetadata::metadata::Load as _;

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolmetadata::server::auth::{JwtVerifier, Principal, ProtectedResource};
use toolmetadata::server::{Arguments, HttpOptions, Server};
use toolmetadata::{Context, ContextExt, ToolMetadata, ToolResult};

const ISSUER: &str = "https://idp.test";
const RSA1: &[u8] = include_bytes!("keys/rsa1.pem");
const RSA2: &[u8] = include_bytes!("keys/rsa2.pem");
const RSA1_PUBLIC: &[u8] = include_bytes!("keys/rsa1.pub.pem");
const EC1: &[u8] = include_bytes!("keys/ec1.pem");

/// A JWKS endpoint on loopback whose document, availability and fetch count
/// the test controls.
#[derive(Clone)]
struct Jwks {
    body: Arc<Mutex<String>>,
    down: Arc<AtomicBool>,
    fetches: Arc<AtomicUsize>,
    url: String,
}

impl Jwks {
    async fn start(keys: &[(&[u8], Algorithm, &str)]) -> Jwks {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let jwks = Jwks {
            body: Arc::new(Mutex::new(jwk_set(keys))),
            down: Arc::new(AtomicBool::new(false)),
            fetches: Arc::new(AtomicUsize::new(0)),
            url: format!("http://{addr}/jwks.json"),
        };
        let served = jwks.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let served = served.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0; 4096];
                    let _ = stream.read(&mut buf).await;
                    served.fetches.fetch_add(1, Ordering::SeqCst);
                    let response = if served.down.load(Ordering::SeqCst) {
                        "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
                    } else {
                        let body = served.body.lock().expect("lock").clone();
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        )
                    };
                    let _ = stream.write_all(response.as_bytes()).await;
                });
            }
        });
        jwks
    }

    fn publish(&self, keys: &[(&[u8], Algorithm, &str)]) {
        *self.body.lock().expect("lock") = jwk_set(keys);
    }
}

fn encoding_key(pem: &[u8], alg: Algorithm) -> EncodingKey {
    match alg {
        Algorithm::ES256 => EncodingKey::from_ec_pem(pem).expect("EC key"),
        _ => EncodingKey::from_rsa_pem(pem).expect("RSA key"),
    }
}

fn jwk_set(keys: &[(&[u8], Algorithm, &str)]) -> String {
    let keys = keys
        .iter()
        .map(|(pem, alg, kid)| {
            let mut jwk = Jwk::from_encoding_key(&encoding_key(pem, *alg), *alg).expect("jwk");
            jwk.common.key_id = Some((*kid).to_owned());
            jwk
        })
        .collect();
    serde_json::to_string(&JwkSet { keys }).expect("JSON")
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("time")
        .as_secs()
}

fn claims(audience: &str, scope: &str) -> Value {
    json!({"iss": ISSUER, "aud": audience, "sub": "ada", "exp": now() + 300, "scope": scope})
}

fn sign(pem: &[u8], alg: Algorithm, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &encoding_key(pem, alg)).expect("signed")
}

fn b64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

const TOOLS: [(&str, &str); 3] = [
    ("read_notes", "description = \"Read the notes\"\n"),
    (
        "write_notes",
        "description = \"Write the notes\"\nscopes = [\"workspace:write\"]\n",
    ),
    (
        "run_command",
        "description = \"Run a command\"\nscopes = [\"workspace:exec\"]\n",
    ),
];

async fn who(_: Arguments, cx: Context) -> ToolResult {
    let subject = cx
        .extension::<Principal>()
        .and_then(|p| p.subject().map(str::to_owned))
        .unwrap_or_else(|| "nobody".to_owned());
    Ok(subject.into())
}

fn server() -> Server {
    server_of(&TOOLS)
}

fn server_of(tools: &[(&str, &str)]) -> Server {
    let mut builder = Server::builder().name("auth-test");
    for (name, text) in tools {
        let metadata = ToolMetadata::from_toml_str(name, text).expect("metadata");
        builder = builder.tool(metadata, who);
    }
    builder.build().expect("server")
}

/// A free loopback port, so that the resource identifier can name it.
fn free_addr() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("probe");
    probe.local_addr().expect("addr")
}

struct Running {
    url: String,
    resource: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn serve(jwks: &Jwks, refresh: Duration) -> Running {
    serve_server(jwks, refresh, server()).await
}

async fn serve_server(jwks: &Jwks, refresh: Duration, server: Server) -> Running {
    let addr = free_addr();
    let resource = format!("http://{addr}/mcp");
    let verifier = JwtVerifier::new(ISSUER, &resource, &jwks.url)
        .expect("verifier")
        .min_refresh_interval(refresh)
        .expect("interval")
        .fetch_timeout(Duration::from_secs(2))
        .expect("timeout");
    let options = HttpOptions::default()
        .addr(addr)
        .token_verifier(verifier)
        .protected_resource(ProtectedResource::new(&resource).authorization_server(ISSUER));
    let bound = server.bind_http(options).await.expect("bind");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(bound.run_until(async move {
        let _ = stopped.await;
    }));
    Running {
        url: resource.clone(),
        resource,
        stop: Some(stop),
    }
}

async fn post(url: &str, token: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request
        .body(body.to_string())
        .send()
        .await
        .expect("request")
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
}

async fn listed(url: &str, token: &str) -> Vec<String> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    let client =
        ().serve(StreamableHttpClientTransport::from_config(config))
            .await
            .expect("initialize with the token");
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    let _ = client.cancel().await;
    names
}

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_scopes_refusals_and_rotation() {
    let jwks = Jwks::start(&[
        (RSA1, Algorithm::RS256, "rsa1"),
        (EC1, Algorithm::ES256, "ec1"),
    ])
    .await;
    let server = serve(&jwks, Duration::from_millis(300)).await;
    let aud = server.resource.as_str();

    // No token: 401 pointing at the metadata, which has RFC 9728's fields.
    let missing = post(&server.url, None, initialize()).await;
    assert_eq!(missing.status(), 401);
    let metadata_url = format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        aud.trim_end_matches("/mcp")
    );
    assert_eq!(
        header(&missing, "www-authenticate"),
        format!("Bearer resource_metadata=\"{metadata_url}\"")
    );
    for url in [
        metadata_url.clone(),
        metadata_url.trim_end_matches("/mcp").to_owned(),
    ] {
        let document: Value = reqwest::get(&url)
            .await
            .expect("metadata")
            .json()
            .await
            .expect("JSON");
        assert_eq!(document["resource"], aud, "{url}");
        assert_eq!(document["authorization_servers"], json!([ISSUER]));
        assert_eq!(
            document["scopes_supported"],
            json!(["workspace:exec", "workspace:write"])
        );
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    }

    // Valid tokens list what their scopes allow, RS256 and ES256 alike.
    let writer = sign(
        RSA1,
        Algorithm::RS256,
        "rsa1",
        &claims(aud, "workspace:write"),
    );
    assert_eq!(
        listed(&server.url, &writer).await,
        ["read_notes", "write_notes"]
    );
    let reader = sign(EC1, Algorithm::ES256, "ec1", &claims(aud, ""));
    assert_eq!(listed(&server.url, &reader).await, ["read_notes"]);
    let admin = sign(
        EC1,
        Algorithm::ES256,
        "ec1",
        &claims(aud, "workspace:write workspace:exec"),
    );
    assert_eq!(
        listed(&server.url, &admin).await,
        ["read_notes", "run_command", "write_notes"]
    );

    // Calling a tool beyond the token's scopes: 403 insufficient_scope.
    let call = |name: &str| json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}});
    let refused = post(&server.url, Some(&writer), call("run_command")).await;
    assert_eq!(refused.status(), 403);
    let challenge = header(&refused, "www-authenticate");
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("scope=\"workspace:exec workspace:write\""),
        "{challenge}"
    );
    assert!(challenge.contains(&metadata_url), "{challenge}");
    // A permitted call passes the gate (rmcp then wants a session; not 403).
    let allowed = post(&server.url, Some(&writer), call("write_notes")).await;
    assert_ne!(allowed.status(), 403);

    // Each bad token is refused with 401 invalid_token.
    let mut expired = claims(aud, "workspace:write");
    expired["exp"] = json!(now() - 3600);
    let mut other_issuer = claims(aud, "");
    other_issuer["iss"] = json!("https://evil.test");
    let unsigned = format!(
        "{}.{}.",
        b64url(br#"{"alg":"none","typ":"JWT","kid":"rsa1"}"#),
        b64url(claims(aud, "workspace:write").to_string().as_bytes())
    );
    let hs256 = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("rsa1".to_owned());
        let key = EncodingKey::from_secret(RSA1_PUBLIC).expect("secret");
        jsonwebtoken::encode(&header, &claims(aud, "workspace:write"), &key).expect("signed")
    };
    let tampered = {
        let parts: Vec<&str> = writer.split('.').collect();
        let forged = b64url(claims(aud, "workspace:exec").to_string().as_bytes());
        format!("{}.{forged}.{}", parts[0], parts[2])
    };
    // The signature itself changed: one character of it, in the middle.
    let bad_signature = {
        let (signed, signature) = writer.rsplit_once('.').expect("a JWT");
        let mut bytes = signature.as_bytes().to_vec();
        let middle = bytes.len() / 2;
        bytes[middle] = if bytes[middle] == b'A' { b'B' } else { b'A' };
        format!("{signed}.{}", String::from_utf8(bytes).expect("base64url"))
    };
    let cases = [
        ("expired", sign(RSA1, Algorithm::RS256, "rsa1", &expired)),
        (
            "wrong issuer",
            sign(RSA1, Algorithm::RS256, "rsa1", &other_issuer),
        ),
        (
            "wrong audience",
            sign(
                RSA1,
                Algorithm::RS256,
                "rsa1",
                &claims("https://other/mcp", ""),
            ),
        ),
        ("alg none", unsigned),
        ("HS256 with the public key", hs256),
        (
            "unknown kid",
            sign(RSA2, Algorithm::RS256, "nobody", &claims(aud, "")),
        ),
        ("tampered", tampered),
        ("bad signature", bad_signature),
        ("garbage", "not.a.jwt".to_owned()),
    ];
    for (what, token) in &cases {
        let response = post(&server.url, Some(token), initialize()).await;
        assert_eq!(response.status(), 401, "{what}");
        let challenge = header(&response, "www-authenticate");
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{what}: {challenge}"
        );
        assert!(challenge.contains(&metadata_url), "{what}: {challenge}");
        let body = response.text().await.expect("body");
        assert!(
            !body.contains(token.as_str()),
            "{what}: the token is quoted"
        );
    }

    // Unknown kids do not make the server fetch the JWKS more than once per
    // interval.
    let tokens: Vec<String> = (0..20)
        .map(|i| sign(RSA2, Algorithm::RS256, &format!("k{i}"), &claims(aud, "")))
        .collect();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let before = jwks.fetches.load(Ordering::SeqCst);
    let started = std::time::Instant::now();
    for token in &tokens {
        assert_eq!(
            post(&server.url, Some(token), initialize()).await.status(),
            401
        );
    }
    let fetched = jwks.fetches.load(Ordering::SeqCst) - before;
    // One fetch now, then at most one per 300 ms interval that passed.
    let allowed = 1 + started.elapsed().as_millis() / 300;
    assert!(
        fetched >= 1 && fetched as u128 <= allowed,
        "{fetched} fetches for 20 unknown kids in {:?}",
        started.elapsed()
    );

    // Rotation: a new key is picked up without a restart.
    jwks.publish(&[
        (RSA2, Algorithm::RS256, "rsa2"),
        (EC1, Algorithm::ES256, "ec1"),
    ]);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let rotated = sign(
        RSA2,
        Algorithm::RS256,
        "rsa2",
        &claims(aud, "workspace:write"),
    );
    assert_eq!(
        listed(&server.url, &rotated).await,
        ["read_notes", "write_notes"]
    );

    // The JWKS going down: known keys still work, new ones are refused, and
    // the server keeps serving.
    jwks.down.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let new_key = sign(RSA1, Algorithm::RS256, "rsa3", &claims(aud, ""));
    let status = post(&server.url, Some(&new_key), initialize())
        .await
        .status();
    assert_eq!(status, 401, "an unknown key while the JWKS is down");
    assert_eq!(listed(&server.url, &reader).await, ["read_notes"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jwks_that_is_down_refuses_tokens_without_crashing() {
    let jwks = Jwks::start(&[(RSA1, Algorithm::RS256, "rsa1")]).await;
    jwks.down.store(true, Ordering::SeqCst);
    let server = serve(&jwks, Duration::from_millis(100)).await;
    let token = sign(
        RSA1,
        Algorithm::RS256,
        "rsa1",
        &claims(&server.resource, ""),
    );
    let refused = post(&server.url, Some(&token), initialize()).await;
    assert_eq!(refused.status(), 503, "cannot check the token: unavailable");
    assert!(refused.text().await.expect("body").contains("503"));
    // Back up: the same token is accepted, by the same process.
    jwks.down.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(listed(&server.url, &token).await, ["read_notes"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_principal_reaches_the_handler() {
    let jwks = Jwks::start(&[(EC1, Algorithm::ES256, "ec1")]).await;
    let server = serve(&jwks, Duration::from_secs(30)).await;
    let token = sign(EC1, Algorithm::ES256, "ec1", &claims(&server.resource, ""));
    let config =
        StreamableHttpClientTransportConfig::with_uri(server.url.clone()).auth_header(token);
    let client =
        ().serve(StreamableHttpClientTransport::from_config(config))
            .await
            .expect("initialize");
    let result = client
        .call_tool(rmcp::model::CallToolRequestParams::new("read_notes"))
        .await
        .expect("call");
    let text = serde_json::to_value(&result).expect("JSON");
    assert_eq!(text["content"][0]["text"], "ada");
    let _ = client.cancel().await;
}

/// Discovery answers by the caller's scopes too: `tool_search` does not find,
/// and `execute_tool` does not run, a tool the token may not call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_shows_only_what_the_scopes_allow() {
    use rmcp::model::CallToolRequestParams;
    let jwks = Jwks::start(&[(RSA1, Algorithm::RS256, "rsa1")]).await;
    let tools = [
        ("read_notes", "description = \"Read the notes\"\n"),
        (
            "run_command",
            "description = \"Run a command\"\ndiscoverable = true\nscopes = [\"workspace:exec\"]\n",
        ),
    ];
    let server = serve_server(&jwks, Duration::from_millis(300), server_of(&tools)).await;
    let aud = server.resource.as_str();
    let call = |name: &str, args: Value| {
        let Value::Object(args) = args else {
            unreachable!()
        };
        CallToolRequestParams::new(name.to_owned()).with_arguments(args)
    };
    for (scope, finds) in [("", false), ("workspace:exec", true)] {
        let token = sign(RSA1, Algorithm::RS256, "rsa1", &claims(aud, scope));
        let config =
            StreamableHttpClientTransportConfig::with_uri(server.url.clone()).auth_header(token);
        let client =
            ().serve(StreamableHttpClientTransport::from_config(config))
                .await
                .expect("initialize");
        let found = client
            .call_tool(call("tool_search", json!({"query": "command"})))
            .await
            .expect("tool_search");
        let text = found.content[0]
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default();
        assert_eq!(
            text.contains("run_command"),
            finds,
            "scope {scope:?}: {text}"
        );
        let run = client
            .call_tool(call("execute_tool", json!({"name": "run_command"})))
            .await
            .expect("execute_tool");
        let text = run.content[0]
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default();
        assert_eq!(run.is_error != Some(true), finds, "scope {scope:?}: {text}");
        if !finds {
            assert!(text.contains("there is no tool `run_command`"), "{text}");
        }
        let _ = client.cancel().await;
    }
}

/// A `tools/list` answer's tag fingerprints the tools the caller sees: a
/// caller whose scopes hide a tool gets the tag a server of only the tools
/// it sees gives everyone, and one who sees every tool another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_tag_is_of_the_tools_the_caller_sees() {
    let jwks = Jwks::start(&[(RSA1, Algorithm::RS256, "rsa1")]).await;
    let read = ("read_notes", "description = \"Read the notes\"\n");
    let write = (
        "write_notes",
        "description = \"Write the notes\"\nscopes = [\"notes:write\"]\n",
    );
    let both = serve_server(&jwks, Duration::from_millis(300), server_of(&[read, write])).await;
    let reads = serve_server(&jwks, Duration::from_millis(300), server_of(&[read])).await;
    let tag = async |server: &Running, scope: &str| {
        let token = sign(
            RSA1,
            Algorithm::RS256,
            "rsa1",
            &claims(&server.resource, scope),
        );
        let config =
            StreamableHttpClientTransportConfig::with_uri(server.url.clone()).auth_header(token);
        let client =
            ().serve(StreamableHttpClientTransport::from_config(config))
                .await
                .expect("initialize");
        let list = client.list_tools(None).await.expect("tools/list");
        let _ = client.cancel().await;
        let names: Vec<String> = list.tools.iter().map(|t| t.name.to_string()).collect();
        let tag = list
            .meta
            .and_then(|m| m.0.get("io.toolmetadata/etag").cloned())
            .and_then(|t| t.as_str().map(str::to_owned))
            .expect("a tag in the answer's _meta");
        (names, tag)
    };
    let (reader_sees, reader) = tag(&both, "").await;
    let (writer_sees, writer) = tag(&both, "notes:write").await;
    let (_, only_reads) = tag(&reads, "").await;
    assert_eq!(reader_sees, ["read_notes"]);
    assert_eq!(writer_sees, ["read_notes", "write_notes"]);
    assert_eq!(reader, only_reads, "the same tools seen, the same tag");
    assert_ne!(reader, writer, "more tools seen, another tag");
    assert_eq!(tag(&both, "notes:write other").await.1, writer);
}

/// A task is its starter's: to another principal its id is unknown, whether
/// it reads, waits for or cancels it, on 2026-07-28 and on a 2025-11-25
/// session alike; a token without `sub` is a principal too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_belongs_to_the_principal_that_started_it() {
    use toolmetadata_tests::mcp::message_of;
    let jwks = Jwks::start(&[(RSA1, Algorithm::RS256, "rsa1")]).await;
    let tools = [(
        "long_job",
        "description = \"A long job\"\ntask = \"optional\"\n",
    )];
    let server = serve_server(&jwks, Duration::from_secs(30), server_of(&tools)).await;
    let token_of = |subject: &str| {
        let mut claims = claims(&server.resource, "");
        claims["sub"] = json!(subject);
        sign(RSA1, Algorithm::RS256, "rsa1", &claims)
    };
    let (ada, bob) = (token_of("ada"), token_of("bob"));
    let request = |id: u64, method: &str, mut params: Value| {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":
                {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
        });
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    };
    let send = async |token: &str, method: &str, name: &str, body: Value| {
        let response = reqwest::Client::new()
            .post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .header("mcp-name", name)
            .header("authorization", format!("Bearer {token}"))
            .body(body.to_string())
            .send()
            .await
            .expect("request");
        message_of(&response.text().await.expect("body"))
    };
    let started = send(
        &ada,
        "tools/call",
        "long_job",
        request(
            1,
            "tools/call",
            json!({"name": "long_job", "arguments": {}}),
        ),
    )
    .await;
    let id = started["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {started}"))
        .to_owned();
    for method in ["tasks/get", "tasks/cancel"] {
        let refused = send(&bob, method, &id, request(2, method, json!({"taskId": id}))).await;
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("no task"), "{method} as bob: {refused}");
    }
    let seen = send(
        &ada,
        "tasks/get",
        &id,
        request(3, "tasks/get", json!({"taskId": id})),
    )
    .await;
    assert_eq!(seen["result"]["taskId"], id.as_str(), "{seen}");

    // The 2025-11-25 flow keeps the same owner.
    let session = async |token: &str| {
        let response = post(&server.url, Some(token), initialize()).await;
        let session = header(&response, "mcp-session-id");
        let _ = response.text().await;
        session
    };
    let in_session = async |token: &str, session: &str, body: Value| {
        let response = reqwest::Client::new()
            .post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", session)
            .header("authorization", format!("Bearer {token}"))
            .timeout(Duration::from_secs(30))
            .body(body.to_string())
            .send()
            .await
            .expect("request");
        message_of(&response.text().await.expect("body"))
    };
    let (bob_session, ada_session) = (session(&bob).await, session(&ada).await);
    // A task ada starts the old way is hers too.
    let old_way = in_session(
        &ada,
        &ada_session,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "long_job", "arguments": {}, "task": {}}}),
    )
    .await;
    let old_id = old_way["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {old_way}"))
        .to_owned();
    for task in [&id, &old_id] {
        for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
            let refused = in_session(
                &bob,
                &bob_session,
                json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": {"taskId": task}}),
            )
            .await;
            let message = refused["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("no task"), "{method} as bob: {refused}");
        }
    }
    let result = in_session(
        &ada,
        &ada_session,
        json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/result", "params": {"taskId": old_id}}),
    )
    .await;
    assert_eq!(result["result"]["content"][0]["text"], "ada", "{result}");
    let seen = in_session(
        &ada,
        &ada_session,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": {"taskId": id}}),
    )
    .await;
    assert_eq!(seen["result"]["taskId"], id.as_str(), "{seen}");
    assert_ne!(
        seen["result"]["status"], "cancelled",
        "bob's cancel reached it: {seen}"
    );

    // Tokens that name no subject own their tasks too: through their client
    // when they name one, else each token alone.
    let token_without_sub = |extra: Value| {
        let mut claims = claims(&server.resource, "");
        let object = claims.as_object_mut().expect("claims");
        object.remove("sub");
        object.extend(extra.as_object().cloned().unwrap_or_default());
        sign(RSA1, Algorithm::RS256, "rsa1", &claims)
    };
    let (one, other) = (
        token_without_sub(json!({"jti": "one"})),
        token_without_sub(json!({"jti": "two"})),
    );
    let (app, same_app) = (
        token_without_sub(json!({"jti": "three", "azp": "app"})),
        token_without_sub(json!({"jti": "four", "azp": "app"})),
    );
    for (owner, stranger, peer) in [(&one, &other, None), (&app, &one, Some(&same_app))] {
        let started = send(
            owner,
            "tools/call",
            "long_job",
            request(
                8,
                "tools/call",
                json!({"name": "long_job", "arguments": {}}),
            ),
        )
        .await;
        let task = started["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task handle: {started}"))
            .to_owned();
        let refused = send(
            stranger,
            "tasks/get",
            &task,
            request(9, "tasks/get", json!({"taskId": task})),
        )
        .await;
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("no task"),
            "another token without sub: {refused}"
        );
        for reader in std::iter::once(owner).chain(peer) {
            let seen = send(
                reader,
                "tasks/get",
                &task,
                request(10, "tasks/get", json!({"taskId": task})),
            )
            .await;
            assert_eq!(seen["result"]["taskId"], task.as_str(), "{seen}");
        }
    }
}

const TENANT_REPORT: &str = r#"description = "Report on the caller's tenant"

[[parameters]]
name = "tenant"
type = "string"
required = true
from = "claim:tenant_id"
description = "The caller's tenant"

[[parameters]]
name = "region"
type = "string"
from = "header:X-Region"
description = "The gateway's region"

[[parameters]]
name = "days"
type = "int"
default = 7
description = "How many days back"
"#;

async fn tenant_report(args: Arguments, _: Context) -> ToolResult {
    let tenant: String = args.get("tenant")?;
    let region: Option<String> = args.get("region").ok();
    let days: i64 = args.get("days")?;
    Ok(format!(
        "tenant={tenant} region={} days={days}",
        region.as_deref().unwrap_or("-")
    )
    .into())
}

/// Bound parameters (`from`): the claim's value reaches the handler, the
/// header's too; neither is in `tools/list`; a model that sets one is
/// refused, and so is a token without the required claim.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bound_parameters_come_from_the_token_and_the_request() {
    let jwks = Jwks::start(&[(EC1, Algorithm::ES256, "ec1")]).await;
    let tool = ToolMetadata::from_toml_str("tenant_report", TENANT_REPORT).expect("metadata");
    let server = Server::builder()
        .tool(tool, tenant_report)
        .build()
        .expect("server");
    let running = serve_server(&jwks, Duration::from_secs(30), server).await;
    let mut with_tenant = claims(&running.resource, "");
    with_tenant["tenant_id"] = json!("acme");
    let token = format!(
        "Bearer {}",
        sign(EC1, Algorithm::ES256, "ec1", &with_tenant)
    );
    let call = |args: Value, extra: Vec<(&'static str, String)>| {
        let url = running.url.clone();
        let token = token.clone();
        async move {
            let body = toolmetadata_tests::mcp::request_2026(
                1,
                "tools/call",
                json!({"name": "tenant_report", "arguments": args}),
            );
            let mut headers: Vec<(&str, &str)> = vec![("authorization", token.as_str())];
            headers.extend(extra.iter().map(|(k, v)| (*k, v.as_str())));
            let (status, text) = toolmetadata_tests::mcp::post_2026(
                &url,
                "tools/call",
                Some("tenant_report"),
                &headers,
                body,
            )
            .await;
            assert_eq!(status, 200, "{text}");
            let message = toolmetadata_tests::mcp::message_of(&text);
            (
                message["result"]["isError"] == json!(true),
                message["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        }
    };
    assert_eq!(
        call(json!({}), vec![]).await,
        (false, "tenant=acme region=- days=7".to_owned())
    );
    assert_eq!(
        call(json!({"days": 1}), vec![("x-region", "eu-west".to_owned())]).await,
        (false, "tenant=acme region=eu-west days=1".to_owned())
    );
    let (refused, why) = call(json!({"tenant": "someone-else"}), vec![]).await;
    assert!(
        refused && why.contains("`tenant` is not the caller's to give"),
        "{why}"
    );
    // A client adding its own header beside the gateway's is refused.
    let (refused, why) = call(
        json!({}),
        vec![("x-region", "eu".to_owned()), ("x-region", "us".to_owned())],
    )
    .await;
    assert!(refused && why.contains("given more than once"), "{why}");
    // The model does not see them.
    let body = toolmetadata_tests::mcp::request_2026(2, "tools/list", json!({}));
    let (_, listed) = toolmetadata_tests::mcp::post_2026(
        &running.url,
        "tools/list",
        None,
        &[("authorization", token.as_str())],
        body,
    )
    .await;
    let schema = &toolmetadata_tests::mcp::message_of(&listed)["result"]["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"],
        json!({"days": {"type": "integer", "description": "How many days back", "default": 7}}),
        "{schema}"
    );
    assert!(schema.get("required").is_none(), "{schema}");
    // A token without the claim.
    let bare = format!(
        "Bearer {}",
        sign(EC1, Algorithm::ES256, "ec1", &claims(&running.resource, ""))
    );
    let body = toolmetadata_tests::mcp::request_2026(
        3,
        "tools/call",
        json!({"name": "tenant_report", "arguments": {}}),
    );
    let (_, text) = toolmetadata_tests::mcp::post_2026(
        &running.url,
        "tools/call",
        Some("tenant_report"),
        &[("authorization", bare.as_str())],
        body,
    )
    .await;
    let message = toolmetadata_tests::mcp::message_of(&text);
    let why = message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        why.contains("needs `tenant` from the caller's token (claim `tenant_id`)"),
        "{why}"
    );
}

const REGIONAL_DEPLOY: &str = r#"description = "Deploy a service in the gateway's region"

[[parameters]]
name = "service"
type = "string"
required = true
description = "What to deploy"

[[parameters]]
name = "region"
type = "string"
required = true
from = "header:X-Region"
description = "The gateway's region"

[confirm]
message = "Deploy {service}?"
"#;

/// Finding 7 of the third red team: a `requestState` was bound to the
/// model's arguments only, before bound values were filled: a "yes" given
/// for a deployment in one region, retried with another region's header,
/// deployed there. The state now binds the bound values too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_holds_only_for_the_bound_values_it_was_given_for() {
    let tool = ToolMetadata::from_toml_str("regional_deploy", REGIONAL_DEPLOY).expect("metadata");
    let server = Server::builder()
        .tool(tool, |args: Arguments, _: Context| async move {
            let region: String = args.get("region").unwrap_or_default();
            ToolResult::Ok(toolmetadata::ToolOutput::from(format!(
                "deployed in {region}"
            )))
        })
        .build()
        .expect("server");
    let bound = server
        .bind_http(HttpOptions::default().addr(([127, 0, 0, 1], 0).into()))
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", bound.local_addr().expect("addr"));
    tokio::spawn(bound.run());
    let send = async |region: &str, params: Value| {
        let asks = json!({"elicitation": {"form": {}}});
        let body = toolmetadata_tests::mcp::request_2026_declaring(1, "tools/call", params, asks);
        let (_, text) = toolmetadata_tests::mcp::post_2026(
            &url,
            "tools/call",
            Some("regional_deploy"),
            &[("x-region", region)],
            body,
        )
        .await;
        toolmetadata_tests::mcp::message_of(&text)
    };
    let call = json!({"name": "regional_deploy", "arguments": {"service": "api"}});
    let asked = send("eu-west", call.clone()).await;
    let input = &asked["result"];
    let answers: serde_json::Map<String, Value> = input["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("the tool asks first: {asked}"))
        .keys()
        .map(|k| (k.clone(), json!({"action": "accept", "content": {}})))
        .collect();
    let mut retry = call;
    retry["inputResponses"] = Value::Object(answers);
    retry["requestState"] = input["requestState"].clone();
    let elsewhere = send("us-east", retry.clone()).await;
    let message = elsewhere["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("requestState refused"),
        "the answer for eu-west held for us-east: {elsewhere}"
    );
    let done = send("eu-west", retry).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "deployed in eu-west",
        "{done}"
    );
}

/// A header any client can send is trusted beyond loopback only when the
/// operator says a gateway sets it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bound_header_beyond_loopback_needs_trust() {
    const REGIONAL: &str = "description = \"Regional\"\n\n[[parameters]]\nname = \"region\"\ntype = \"string\"\nfrom = \"header:X-Region\"\n";
    let server = || {
        let tool = ToolMetadata::from_toml_str("regional", REGIONAL).expect("metadata");
        Server::builder().tool(tool, who).build().expect("server")
    };
    let everywhere = || {
        HttpOptions::default()
            .addr(SocketAddr::from(([0, 0, 0, 0], 0)))
            .allow_non_loopback(true)
            .bearer_token("t")
    };
    let err = server().bind_http(everywhere()).await.expect_err("refused");
    assert!(
        err.to_string().contains("trust_header(\"X-Region\")"),
        "{err}"
    );
    assert!(
        server()
            .bind_http(everywhere().trust_header("x-region"))
            .await
            .is_ok()
    );
    assert!(
        server()
            .bind_http(HttpOptions::default().addr(free_addr()))
            .await
            .is_ok()
    );
}

/// A server whose tools take claims, with no token verifier, does not start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bound_claims_need_a_token_verifier() {
    let tool = ToolMetadata::from_toml_str("tenant_report", TENANT_REPORT).expect("metadata");
    let server = Server::builder()
        .tool(tool, tenant_report)
        .build()
        .expect("server");
    let err = server
        .bind_http(HttpOptions::default().addr(free_addr()))
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("verifies no token"), "{err}");
    // The static bearer token stands for no one: it has no claims to give.
    let tool = ToolMetadata::from_toml_str("tenant_report", TENANT_REPORT).expect("metadata");
    let server = Server::builder()
        .tool(tool, tenant_report)
        .build()
        .expect("server");
    let err = server
        .bind_http(
            HttpOptions::default()
                .addr(free_addr())
                .bearer_token("s3cret"),
        )
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("static bearer_token"), "{err}");
}
