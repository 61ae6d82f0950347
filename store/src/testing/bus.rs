//! [`ChangeBus`]'s contract: every listener hears every message, in order,
//! once.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use toolmetadata::server::store::{Change, ChangeBus, Published};

use super::{GRACE, Violation, answered, check, unique};

/// Checks that `a` and `b`, two handles on one bus, keep [`ChangeBus`]'s
/// guarantee: what either publishes reaches a listener on each, in the
/// order published, each message once.
///
/// # Errors
///
/// The first guarantee broken.
pub async fn change_bus(a: Arc<dyn ChangeBus>, b: Arc<dyn ChangeBus>) -> Result<(), Violation> {
    const G: &str = "every listener hears every message, in order, once";
    let mut on_a = answered(a.listen().await, G, "listen")?;
    let mut on_b = answered(b.listen().await, G, "listen")?;
    let origin = unique("instance");
    let sent: Vec<Published> = (0..5)
        .map(|i| Published {
            origin: origin.clone(),
            change: Change::ResourceUpdated {
                uri: format!("app://{origin}/{i}"),
            },
        })
        .collect();
    for (i, message) in sent.iter().enumerate() {
        let store = if i % 2 == 0 { &a } else { &b };
        answered(store.publish(message).await, G, "publish")?;
    }
    for (which, listener) in [("a", &mut on_a), ("b", &mut on_b)] {
        let got = ours(listener, &origin, sent.len()).await;
        check(got == sent, G, || {
            format!(
                "the listener on {which} heard {got:?} of the {} published",
                sent.len()
            )
        })?;
        // Nothing more comes: none twice.
        let more = ours(listener, &origin, 1).await;
        check(more.is_empty(), G, || {
            format!("the listener on {which} heard {more:?} again")
        })?;
    }
    Ok(())
}

/// Up to `n` messages of `origin` (others on a shared bus are skipped),
/// waiting a little for each.
async fn ours(listener: &mut mpsc::Receiver<Published>, origin: &str, n: usize) -> Vec<Published> {
    let mut got = Vec::new();
    while got.len() < n {
        match tokio::time::timeout(GRACE + Duration::from_secs(1), listener.recv()).await {
            Ok(Some(message)) if message.origin == origin => got.push(message),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    got
}
