//! The README's "Try it with a client", run: its Python script against the
//! tutorial's server on stdio and over HTTP, its curl command, and its two
//! task exchanges replayed line by line on stdio.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value};
use toolmetadata_tests::cargo_project::workspace;
use toolmetadata_tests::mcp::{http_server, message_of};
use toolmetadata_tests::python::{python, run};
use toolmetadata_tests::raw::StdioChild;

const BIN: &str = env!("CARGO_BIN_EXE_notes");

fn readme() -> String {
    std::fs::read_to_string(workspace().join("README.md")).expect("README.md")
}

/// The code block after `marker` in `text`.
fn block_after(text: &str, marker: &str) -> String {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in the README"))
        + marker.len();
    let fence = at + text[at..].find("```").expect("a code block");
    let body = fence + text[fence..].find('\n').expect("the fence line") + 1;
    let end = body + text[body..].find("\n```").expect("its end") + 1;
    text[body..end].to_owned()
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/try_it.py")
}

const SAID: &str = "['archive_note', 'count_words', 'note_stats', 'search_notes']\nbuy milk\nmilk the cow\n7 words\n";

#[test]
fn the_python_script_calls_the_server_on_stdio() {
    let out = run(Command::new(python()).arg(script()).arg(BIN));
    assert_eq!(String::from_utf8_lossy(&out.stdout), SAID);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_script_and_curl_call_the_server_over_http() {
    let server = http_server(BIN, &[]).await;
    let url = server.url.clone();
    let out =
        tokio::task::spawn_blocking(move || run(Command::new(python()).arg(script()).arg(url)))
            .await
            .expect("python ran");
    assert_eq!(String::from_utf8_lossy(&out.stdout), SAID);

    let address = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let curl = block_after(&readme(), "<!-- curl: tests/tutorial/tests/clients.rs -->")
        .replace("127.0.0.1:8080", &address);
    let out = tokio::task::spawn_blocking(move || run(Command::new("sh").arg("-c").arg(curl)))
        .await
        .expect("curl ran");
    let answer = message_of(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        answer["result"]["content"][0]["text"], "buy milk\nmilk the cow",
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_exchange_on_2025_11_25_is_what_the_server_says() {
    replay("2025-11-25").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_exchange_on_2026_07_28_is_what_the_server_says() {
    replay("2026-07-28").await;
}

/// Sends each `→` line of the README's exchange for `protocol` to a new
/// server, and checks each answer against the `←` line after it. A
/// `tasks/get` answered `working` is asked again, as a client polls. A
/// notification may come before the answer it is shown after (the server
/// sends it when the task ends, beside that answer); every notification the
/// server sent must be shown.
async fn replay(protocol: &str) {
    let exchange = block_after(&readme(), &format!("<!-- wire: {protocol} -->"));
    let mut server = StdioChild::spawn(BIN, &[]);
    let mut bound = Map::new();
    let mut sent = String::new();
    let mut notified: Vec<Value> = Vec::new();
    for line in exchange.lines() {
        if let Some(request) = line.strip_prefix("→ ") {
            sent = substitute(request, &bound);
            server.send_line(&sent).await;
        } else if let Some(expected) = line.strip_prefix("← ") {
            let expected: Value = serde_json::from_str(expected).expect("a JSON answer");
            if expected.get("id").is_none() {
                let at = notified
                    .iter()
                    .position(|n| n["method"] == expected["method"]);
                let told = match at {
                    Some(at) => notified.remove(at),
                    None => server.next().await,
                };
                if let Err(at) = matches(&expected, &told, &mut bound, "") {
                    panic!(
                        "{protocol}: the README shows {expected}\nthe server said {told}\n(at {at})"
                    );
                }
                continue;
            }
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            let answer = loop {
                let answer = server.next().await;
                if answer.get("id").is_none() {
                    notified.push(answer);
                    continue;
                }
                let polling =
                    sent.contains("\"tasks/get\"") && answer["result"]["status"] == "working";
                if !polling {
                    break answer;
                }
                assert!(std::time::Instant::now() < deadline, "the task never ended");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                server.send_line(&sent).await;
            };
            if let Err(at) = matches(&expected, &answer, &mut bound, "") {
                panic!(
                    "{protocol}: after {sent}\nthe README shows {expected}\nthe server said {answer}\n(at {at})"
                );
            }
        }
    }
    assert!(
        notified.is_empty(),
        "{protocol}: the server sent what the README does not show: {notified:?}"
    );
}

/// `line` with the values of the placeholders bound so far.
fn substitute(line: &str, bound: &Map<String, Value>) -> String {
    bound.iter().fold(line.to_owned(), |line, (name, value)| {
        line.replace(&format!("\"{name}\""), &value.to_string())
    })
}

/// Whether `actual` is `expected`: the same keys and values, where
/// `"<time>"` stands for any string and another `"<…>"` for the string it
/// first matched (`"<task id>"`); where they differ, if not.
fn matches(
    expected: &Value,
    actual: &Value,
    bound: &mut Map<String, Value>,
    at: &str,
) -> Result<(), String> {
    match (expected, actual) {
        (Value::String(e), Value::String(_)) if e == "<time>" => Ok(()),
        (Value::String(e), _) if e.starts_with('<') && e.ends_with('>') => match bound.get(e) {
            Some(value) if value == actual => Ok(()),
            Some(_) => Err(at.to_owned()),
            None => {
                bound.insert(e.clone(), actual.clone());
                Ok(())
            }
        },
        (Value::Object(e), Value::Object(a)) => {
            let (mut ek, mut ak): (Vec<_>, Vec<_>) = (e.keys().collect(), a.keys().collect());
            ek.sort();
            ak.sort();
            if ek != ak {
                return Err(format!("{at}: keys {ek:?} shown, {ak:?} said"));
            }
            e.iter()
                .try_for_each(|(k, v)| matches(v, &a[k], bound, &format!("{at}/{k}")))
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => e
            .iter()
            .zip(a)
            .enumerate()
            .try_for_each(|(i, (e, a))| matches(e, a, bound, &format!("{at}/{i}"))),
        _ if expected == actual => Ok(()),
        _ => Err(at.to_owned()),
    }
}
