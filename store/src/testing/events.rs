//! [`EventStore`]'s contract: a stream's events kept through one handle are
//! replayed through the other, those after the id given, once each, in
//! order, and of that stream only.

use std::sync::Arc;

use futures_util::StreamExt;
use toolmetadata::server::rmcp::model::ServerJsonRpcMessage;
use toolmetadata::server::store::{EventStore, ServerSseMessage, gap_marker};

use super::{Violation, answered, check, unique};

/// Checks that `a` and `b`, two handles on one empty store keeping
/// `events_per_stream` events of each stream, keep what rmcp's
/// [`EventStore`] and this crate's stores promise: the events kept through
/// one are replayed through the other after the id given, each once, in
/// order, with the ids they were given and as they were kept, and of their
/// own stream only; ids are unique across streams; a replay after the
/// newest is empty; a replay after an id never issued gives nothing (an
/// error or no event); and a replay that would start before the oldest
/// event kept, or cross a [gap marker](gap_marker) (events the server sent
/// but could not keep), is an error rather than a replay with a gap.
///
/// # Errors
///
/// The first guarantee broken.
pub async fn event_store(
    a: Arc<dyn EventStore>,
    b: Arc<dyn EventStore>,
    events_per_stream: usize,
) -> Result<(), Violation> {
    const G: &str = "a stream's events are the fleet's";
    let (stream, other) = (unique("stream"), unique("other"));
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(answered(
            a.store_event(&stream, &event(n)).await,
            G,
            "store_event",
        )?);
        let theirs = answered(
            b.store_event(&other, &event(100 + n)).await,
            G,
            "store_event",
        )?;
        check(!ids.contains(&theirs), "event ids are unique", || {
            format!("two streams' events both have the id {theirs:?}")
        })?;
    }
    let replayed = replay(&b, &ids[0]).await;
    let expected = vec![(ids[1].clone(), 1), (ids[2].clone(), 2)];
    check(replayed.as_ref().ok() == Some(&expected), G, || {
        format!(
            "three events kept through one handle, those after the first replayed through the other as {replayed:?}, not {expected:?} (id, number)"
        )
    })?;
    let after_newest = replay(&a, &ids[2]).await;
    check(
        after_newest.as_ref().is_ok_and(Vec::is_empty),
        "a replay after the newest is empty",
        || format!("gave {after_newest:?}"),
    )?;
    let never = format!("{}/1", unique("never"));
    let unknown = replay(&a, &never).await;
    check(
        unknown.as_ref().is_err() || unknown.as_ref().is_ok_and(Vec::is_empty),
        "an id never issued replays nothing",
        || format!("a replay after {never:?} gave {unknown:?}"),
    )?;
    const T: &str = "a gap is an error, never skipped";
    let long = unique("long");
    let first = answered(a.store_event(&long, &event(0)).await, T, "store_event")?;
    let mut newest = first.clone();
    for n in 1..events_per_stream + 3 {
        newest = answered(a.store_event(&long, &event(n)).await, T, "store_event")?;
    }
    let gapped = replay(&b, &first).await;
    check(gapped.is_err(), T, || {
        format!(
            "{} events kept of a stream holding {events_per_stream}, a replay after the first gave {gapped:?}",
            events_per_stream + 3
        )
    })?;
    let kept = replay(&b, &newest).await;
    check(kept.as_ref().is_ok_and(Vec::is_empty), T, || {
        format!("a replay after the newest of a trimmed stream gave {kept:?}")
    })?;
    let marked = unique("marked");
    let before = answered(a.store_event(&marked, &event(0)).await, T, "store_event")?;
    let gap = answered(
        a.store_event(&marked, &gap_marker()).await,
        T,
        "store_event",
    )?;
    answered(a.store_event(&marked, &event(2)).await, T, "store_event")?;
    let across = replay(&b, &before).await;
    check(across.is_err(), T, || {
        format!("a replay across a gap marker gave {across:?}")
    })?;
    let past = replay(&b, &gap).await;
    check(past.as_ref().is_ok_and(|e| e.len() == 1), T, || {
        format!("a replay after a gap marker gave {past:?}, not the one event after it")
    })?;
    Ok(())
}

/// A notification numbered `n`.
fn event(n: usize) -> ServerSseMessage {
    let message: Result<ServerJsonRpcMessage, _> = serde_json::from_value(serde_json::json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": n}
    }));
    message.map_or_else(
        |_| ServerSseMessage::default(),
        ServerSseMessage::from_message,
    )
}

/// What a replay after `id` gives: each event's id and number, or the
/// store's error.
async fn replay(store: &Arc<dyn EventStore>, id: &str) -> Result<Vec<(String, u64)>, String> {
    let stream = store
        .replay_events_after(id)
        .await
        .map_err(|e| e.to_string())?;
    let events: Vec<ServerSseMessage> = stream.take(10_000).collect().await;
    Ok(events
        .into_iter()
        .map(|event| {
            let n = event
                .message
                .and_then(|m| serde_json::to_value(m.as_ref()).ok())
                .and_then(|m| {
                    m.pointer("/params/data")
                        .and_then(serde_json::Value::as_u64)
                })
                .unwrap_or(u64::MAX);
            (event.event_id.unwrap_or_default(), n)
        })
        .collect())
}
