//! A Server-Sent Events stream read by hand, event by event, for the tests
//! of what a stream carries (ids, order) and of resuming one.

use std::time::Duration;

use serde_json::Value;

/// One event of a stream: its id, and its data as JSON (`Null` for an
/// event with no data: a priming event).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The `id:` field, when the event has one.
    pub id: Option<String>,
    /// The `data:` field, parsed.
    pub data: Value,
}

/// An open stream: the response whose body is read.
pub struct Sse {
    response: reqwest::Response,
    buffer: String,
    ended: bool,
}

impl Sse {
    /// Sends `request` and keeps its body as a stream of events; `Err`
    /// with the status and body when the answer is not `200` with
    /// `text/event-stream`.
    pub async fn open(request: reqwest::RequestBuilder) -> Result<Sse, String> {
        let response = request.send().await.map_err(|e| e.to_string())?;
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if response.status() != 200 || !sse {
            let status = response.status();
            return Err(format!(
                "{status}: {}",
                response.text().await.unwrap_or_default()
            ));
        }
        Ok(Sse {
            response,
            buffer: String::new(),
            ended: false,
        })
    }

    /// The next event within `wait`: `None` when none came in time or the
    /// stream ended (see [`Sse::ended`]).
    pub async fn next(&mut self, wait: Duration) -> Option<Event> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse(&block) {
                    return Some(event);
                }
                continue;
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout_at(deadline, self.response.chunk()).await {
                Err(_) => return None,
                Ok(Ok(Some(bytes))) => {
                    self.buffer
                        .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
                }
                Ok(Ok(None) | Err(_)) => self.ended = true,
            }
        }
    }

    /// Whether the server ended the stream.
    pub fn ended(&self) -> bool {
        self.ended
    }
}

/// The event of one block, or `None` for a comment (a keep-alive).
fn parse(block: &str) -> Option<Event> {
    let mut id = None;
    let mut data = String::new();
    let mut fields = 0;
    for line in block.lines() {
        if line.starts_with(':') || line.is_empty() {
            continue;
        }
        fields += 1;
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = Some(value.to_owned()),
            "data" => {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            _ => {}
        }
    }
    (fields > 0).then(|| Event {
        id,
        data: serde_json::from_str(&data).unwrap_or(Value::Null),
    })
}
