//! The tutorial's tools served by their own `Server` (the `notes`
//! binary) and mounted in a hand-written rmcp handler (`mounted`) serve the
//! same: one client script, run against each on stdio and over HTTP, as a
//! 2025-11-25 session and as 2026-07-28 requests, gets the same `tools/list`
//! entries and the same results, tasks (both flows) and `[confirm]` included.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use toolmetadata::server::rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetTaskParams, TaskPayload, TaskStatus,
};
use toolmetadata_tests::mcp::{
    HttpServer, Person, Recorder, connect_http, connect_stdio, http_server, message_of, post_2026,
    request_2026,
};
use toolmetadata_tests::raw::Peer;

const SERVED: &str = env!("CARGO_BIN_EXE_notes");
const MOUNTED: &str = env!("CARGO_BIN_EXE_mounted");

/// How the script reaches the server.
#[derive(Clone, Copy, Debug)]
enum Wire {
    Stdio,
    Http,
}

/// A server to talk to: on stdio a binary to start per client, over HTTP a
/// running process.
struct Target {
    bin: &'static str,
    http: Option<HttpServer>,
}

impl Target {
    async fn start(bin: &'static str, wire: Wire) -> Target {
        let http = match wire {
            Wire::Stdio => None,
            Wire::Http => Some(http_server(bin, &[]).await),
        };
        Target { bin, http }
    }

    fn url(&self) -> Option<&str> {
        self.http.as_ref().map(|h| h.url.as_str())
    }
}

/// Raw JSON-RPC, as each generation sends it.
struct Raw {
    peer: Option<Peer>,
    url: Option<String>,
    modern: bool,
}

impl Raw {
    async fn connect(target: &Target, modern: bool) -> Raw {
        let peer = match (target.url(), modern) {
            (Some(_), true) => None,
            (Some(url), false) => Some(Peer::http(url)),
            (None, _) => Some(Peer::stdio(target.bin, &[]).await),
        };
        Raw {
            peer,
            url: target.url().map(str::to_owned),
            modern,
        }
    }

    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        if !self.modern {
            let peer = self.peer.as_mut().expect("a session");
            return peer.request(id, method, params).await;
        }
        let name = params["name"].as_str().map(str::to_owned);
        let body = request_2026(id, method, params);
        match (&mut self.peer, &self.url) {
            (Some(peer), _) => peer
                .send(serde_json::from_str(&body).expect("JSON"))
                .await
                .expect("an answer"),
            (None, Some(url)) => {
                let (status, text) = post_2026(url, method, name.as_deref(), &[], body).await;
                assert_eq!(status, 200, "{method}: {text}");
                message_of(&text)
            }
            (None, None) => unreachable!("a stdio target has a peer"),
        }
    }
}

/// `value` with what differs from run to run (task ids, times) blanked.
fn normalized(mut value: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map.iter_mut() {
                    if ["taskId", "createdAt", "lastUpdatedAt"].contains(&key.as_str()) {
                        *inner = json!("*");
                    } else {
                        walk(inner);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The script: what each step answered, normalized, in order.
async fn transcript(bin: &'static str, wire: Wire, modern: bool) -> Vec<(String, Value)> {
    let target = Target::start(bin, wire).await;
    let mut seen = Vec::new();

    // Raw: the entries as sent, and the 2025-11-25 task flow (`task` param).
    let mut raw = Raw::connect(&target, modern).await;
    if !modern {
        let peer = raw.peer.as_mut().expect("a session");
        let capabilities = peer.initialize().await;
        seen.push(("capabilities".to_owned(), capabilities));
    }
    let list = raw.request(2, "tools/list", json!({})).await;
    seen.push(("tools/list".to_owned(), list["result"].clone()));
    if !modern {
        let started = raw
            .request(
                3,
                "tools/call",
                json!({"name": "count_words", "arguments": {}, "task": {"ttl": 60000}}),
            )
            .await;
        let id = started["result"]["task"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task handle: {started}"))
            .to_owned();
        seen.push(("task started".to_owned(), started["result"].clone()));
        let result = raw.request(4, "tasks/result", json!({"taskId": id})).await;
        seen.push(("tasks/result".to_owned(), result["result"].clone()));
        let got = raw.request(5, "tasks/get", json!({"taskId": id})).await;
        seen.push(("tasks/get".to_owned(), got["result"].clone()));
    }

    // rmcp's client with the Tasks extension: the call, then the task's end.
    let recorder = Recorder {
        tasks: true,
        ..Recorder::default()
    };
    let client = match target.url() {
        Some(url) => connect_http(url, recorder, modern).await,
        None => connect_stdio(bin, &[], recorder, modern).await,
    };
    let search = client
        .call_tool(
            CallToolRequestParams::new("search_notes")
                .with_arguments(arguments(json!({"query": "milk"}))),
        )
        .await
        .expect("search_notes");
    seen.push(("search_notes".to_owned(), json!(search)));
    let response = client
        .call_tool_once(CallToolRequestParams::new("count_words"))
        .await
        .expect("count_words");
    let CallToolResponse::Task(created) = response else {
        panic!("a task handle, not {response:?}");
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let payload = loop {
        let state = client
            .get_task(GetTaskParams::new(created.task.task_id.clone()))
            .await
            .expect("tasks/get");
        if state.task.status() != TaskStatus::Working {
            break state.task.payload;
        }
        assert!(Instant::now() < deadline, "the task never ended");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let TaskPayload::Completed { result } = payload else {
        panic!("completed, not {payload:?}");
    };
    seen.push(("task result".to_owned(), Value::Object(result)));
    client.cancel().await.expect("close");

    // A person who says yes: `[confirm]` asks, then the handler runs.
    let person = Person::answering(json!({"action": "accept", "content": {}}));
    let client = match target.url() {
        Some(url) => connect_http(url, person.clone(), modern).await,
        None => connect_stdio(bin, &[], person.clone(), modern).await,
    };
    let archived = client
        .call_tool(
            CallToolRequestParams::new("archive_note")
                .with_arguments(arguments(json!({"note": "buy milk"}))),
        )
        .await
        .expect("archive_note");
    seen.push(("archive_note".to_owned(), json!(archived)));
    seen.push(("asked".to_owned(), json!(person.asked())));
    client.cancel().await.expect("close");

    seen.into_iter()
        .map(|(step, value)| (step, normalized(value)))
        .collect()
}

async fn same_as_served(wire: Wire, modern: bool) {
    let served = transcript(SERVED, wire, modern).await;
    let mounted = transcript(MOUNTED, wire, modern).await;
    for ((step, a), (_, b)) in served.iter().zip(&mounted) {
        assert_eq!(a, b, "{wire:?}, modern {modern}: {step} differs");
    }
    assert_eq!(served.len(), mounted.len());

    // And what they both serve is what the tools say.
    let step = |name: &str| {
        served
            .iter()
            .find(|(step, _)| step == name)
            .map(|(_, value)| value.clone())
            .unwrap_or_else(|| panic!("no step {name}"))
    };
    let tools = step("tools/list")["tools"].clone();
    let count = tools
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "count_words")
        .cloned()
        .expect("count_words listed");
    assert_eq!(count["execution"]["taskSupport"], "optional", "{count}");
    assert_eq!(step("task result")["content"][0]["text"], "7 words");
    assert_eq!(
        step("archive_note")["content"][0]["text"],
        "archived \"buy milk\""
    );
    assert_eq!(step("asked"), json!(["Archive the note \"buy milk\"?"]));
    if !modern {
        assert_eq!(
            step("capabilities")["tasks"]["requests"]["tools"]["call"],
            json!({})
        );
        assert_eq!(step("tasks/result")["content"][0]["text"], "7 words");
        assert_eq!(step("tasks/get")["status"], "completed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_2025_11_25() {
    same_as_served(Wire::Stdio, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_2026_07_28() {
    same_as_served(Wire::Stdio, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_2025_11_25() {
    same_as_served(Wire::Http, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_2026_07_28() {
    same_as_served(Wire::Http, true).await;
}
