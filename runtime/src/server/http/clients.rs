//! Fairness between clients: who a request comes from, and how much of the
//! server each one may hold at once (connections, standalone SSE streams,
//! sessions), so that one client holding all it may still leaves room for
//! the others.
//!
//! A client is its principal when a token names one (its subject, or its
//! OAuth client), and otherwise the address it connects from: the static
//! bearer token, shared by everyone who holds it, names nobody.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::ConnectInfo;
use axum::http::Extensions;

use crate::server::policy::identity::{SHARED_TOKEN_OWNER, address_of};

/// Who a request comes from, for the per-client caps.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(in crate::server) enum ClientKey {
    /// The principal a token names (as `Caller::owner` names it).
    Principal(String),
    /// The address of a client without one.
    Address(IpAddr),
    /// A request whose address nobody recorded (a router mounted without
    /// `ConnectInfo`): all such requests are one client.
    Unknown,
}

impl ClientKey {
    /// The client of a request with these extensions, authenticated as
    /// `owner` (if at all).
    pub(in crate::server) fn of(owner: Option<String>, extensions: &Extensions) -> Self {
        match owner {
            Some(owner) if owner != SHARED_TOKEN_OWNER => ClientKey::Principal(owner),
            _ => match extensions.get::<ConnectInfo<SocketAddr>>() {
                Some(ConnectInfo(addr)) => ClientKey::Address(address_of(addr.ip())),
                None => ClientKey::Unknown,
            },
        }
    }

    /// The client whose request is being served, as the HTTP layer set it
    /// ([`ClientKey::Unknown`] outside one).
    #[cfg(feature = "sessions")]
    pub(in crate::server) fn current() -> Self {
        CURRENT.try_with(Clone::clone).unwrap_or(ClientKey::Unknown)
    }

    /// Runs `work` as a request of this client: the session manager, called
    /// by rmcp inside it, reads the client with [`ClientKey::current`].
    /// Without sessions nothing reads it: `work` as it is.
    pub(in crate::server) fn scope<F: Future>(self, work: F) -> impl Future<Output = F::Output> {
        // Not an `async fn`: it would hold `work` twice (as given, and
        // inside the scope it awaits), copied with every request's future.
        #[cfg(feature = "sessions")]
        return CURRENT.scope(self, work);
        #[cfg(not(feature = "sessions"))]
        work
    }
}

/// One word for who the client is, distinct between kinds: the store keys
/// a client's sessions by its digest (`owned_store`).
impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientKey::Principal(owner) => write!(f, "principal {owner}"),
            ClientKey::Address(ip) => write!(f, "address {ip}"),
            ClientKey::Unknown => f.write_str("unknown"),
        }
    }
}

#[cfg(feature = "sessions")]
tokio::task_local! {
    static CURRENT: ClientKey;
}

/// Slots of one kind (connections, streams) under a total cap and a cap per
/// client; a slot is given back when its [`Slot`] drops.
#[derive(Debug, Clone)]
pub(in crate::server) struct Slots {
    state: Arc<Mutex<Held>>,
}

#[derive(Debug)]
struct Held {
    max: usize,
    max_per_client: usize,
    total: usize,
    by_client: HashMap<ClientKey, usize>,
}

/// Why no slot was given.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::server) enum Full {
    /// This client holds its share.
    Client(usize),
    /// Every slot is held.
    All(usize),
}

impl std::fmt::Display for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Full::Client(max) => write!(f, "this client already holds {max}, its share"),
            Full::All(max) => write!(f, "all {max} are taken"),
        }
    }
}

impl Slots {
    /// At most `max` slots (at least one), `max_per_client` (at least one)
    /// of them for one client.
    pub(in crate::server) fn new(max: usize, max_per_client: usize) -> Self {
        Slots {
            state: Arc::new(Mutex::new(Held {
                max: max.max(1),
                max_per_client: max_per_client.max(1),
                total: 0,
                by_client: HashMap::new(),
            })),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        // Each change is a counter moved with its total: consistent even if
        // a holder panicked.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for `client`, or why there is none.
    pub(in crate::server) fn take(&self, client: &ClientKey) -> Result<Slot, Full> {
        let mut held = self.held();
        let mine = held.by_client.get(client).copied().unwrap_or(0);
        if mine >= held.max_per_client {
            return Err(Full::Client(held.max_per_client));
        }
        if held.total >= held.max {
            return Err(Full::All(held.max));
        }
        held.total += 1;
        held.by_client.insert(client.clone(), mine + 1);
        Ok(Slot {
            slots: self.clone(),
            client: client.clone(),
        })
    }

    /// How many slots are held.
    #[cfg(test)]
    pub(in crate::server) fn held_now(&self) -> usize {
        self.held().total
    }
}

/// A slot held; given back on drop.
#[derive(Debug)]
pub(in crate::server) struct Slot {
    slots: Slots,
    client: ClientKey,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.slots.held();
        held.total = held.total.saturating_sub(1);
        if let Some(mine) = held.by_client.get_mut(&self.client) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                held.by_client.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_client_holds_its_share_and_others_still_get_slots() {
        let slots = Slots::new(4, 2);
        let a = ClientKey::Address([127, 0, 0, 1].into());
        let b = ClientKey::Principal("sub:b".into());
        let a1 = slots.take(&a).expect("a1");
        let _a2 = slots.take(&a).expect("a2");
        assert_eq!(slots.take(&a).unwrap_err(), Full::Client(2));
        let _b1 = slots.take(&b).expect("b1");
        let _b2 = slots.take(&b).expect("b2");
        assert_eq!(slots.take(&ClientKey::Unknown).unwrap_err(), Full::All(4));
        drop(a1);
        assert_eq!(slots.held_now(), 3);
        let _a3 = slots.take(&a).expect("a slot given back is taken again");
    }

    #[test]
    fn the_shared_token_names_nobody() {
        let mut extensions = Extensions::new();
        assert_eq!(ClientKey::of(None, &extensions), ClientKey::Unknown);
        extensions.insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 2], 9))));
        let address = ClientKey::Address([127, 0, 0, 2].into());
        assert_eq!(ClientKey::of(None, &extensions), address);
        assert_eq!(ClientKey::of(Some("token".into()), &extensions), address);
        assert_eq!(
            ClientKey::of(Some("sub:alice".into()), &extensions),
            ClientKey::Principal("sub:alice".into())
        );
    }
}
