use super::*;

#[tokio::test]
async fn the_cap_closes_the_least_recently_used_session() {
    let sessions = CappedSessions::new(2, 2, Duration::from_secs(60), Compat::none());
    let (a, _ta) = sessions.create_session().await.expect("a");
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (b, _tb) = sessions.create_session().await.expect("b");
    tokio::time::sleep(Duration::from_millis(5)).await;
    sessions.touch(&a);
    let (c, _tc) = sessions.create_session().await.expect("c");
    assert_eq!(sessions.len(), 2);
    assert!(sessions.has_session(&a).await.expect("a"));
    assert!(
        !sessions.has_session(&b).await.expect("b"),
        "b was least recently used"
    );
    assert!(sessions.has_session(&c).await.expect("c"));
}

#[tokio::test]
async fn idle_sessions_are_closed_by_the_reaper() {
    let sessions = Arc::new(CappedSessions::new(
        10,
        10,
        Duration::from_millis(200),
        Compat::none(),
    ));
    let cancel = CancellationToken::new();
    sessions.spawn_reaper(cancel.clone());
    for _ in 0..5 {
        let _ = sessions.create_session().await.expect("session");
    }
    assert_eq!(sessions.len(), 5);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(sessions.len(), 0);
    assert_eq!(sessions.inner.sessions.read().await.len(), 0);
    cancel.cancel();
}

/// A new session of `client`, or why there is none.
async fn open_as(
    sessions: &CappedSessions,
    client: &ClientKey,
) -> Result<SessionId, SessionsError> {
    let (id, _) = client.clone().scope(sessions.create_session()).await?;
    Ok(id)
}

#[tokio::test(start_paused = true)]
async fn a_client_never_pushes_out_another_clients_active_session() {
    let sessions = CappedSessions::new(3, 2, Duration::from_secs(300), Compat::none());
    let alice = ClientKey::Address([127, 0, 0, 2].into());
    let mallory = ClientKey::Address([127, 0, 0, 3].into());
    let first = open_as(&sessions, &alice).await.expect("alice");
    tokio::time::advance(Duration::from_secs(1)).await;
    // Mallory at its own cap gives up its own sessions, one by one.
    let mut mine = Vec::new();
    for _ in 0..10 {
        mine.push(open_as(&sessions, &mallory).await.expect("mallory"));
        tokio::time::advance(Duration::from_millis(10)).await;
    }
    assert_eq!(sessions.len(), 3);
    assert!(sessions.held(&first));
    assert!(sessions.held(&mine[9]));
    assert!(!sessions.held(&mine[0]));
    // A third client finds the server full of active sessions: refused.
    let carol = ClientKey::Principal("sub:carol".into());
    assert!(matches!(
        open_as(&sessions, &carol).await,
        Err(SessionsError::Full)
    ));
    // Once Alice's session is quiet, it may go; one with a stream open
    // may not, however long it has been quiet.
    let streaming = CappedSessions::counted(
        sessions.touch(&mine[9]),
        futures_util::stream::pending::<ServerSseMessage>(),
    );
    tokio::time::advance(QUIET).await;
    sessions.touch(&mine[8]);
    open_as(&sessions, &carol).await.expect("room made");
    assert!(!sessions.held(&first));
    assert!(sessions.held(&mine[9]));
    let dave = ClientKey::Principal("sub:dave".into());
    tokio::time::advance(Duration::from_secs(1)).await;
    sessions.touch(&mine[8]);
    assert!(matches!(
        open_as(&sessions, &dave).await,
        Err(SessionsError::Full)
    ));
    drop(streaming);
    open_as(&sessions, &dave)
        .await
        .expect("the stream closed, its session is quiet");
    assert!(!sessions.held(&mine[9]));
}

#[tokio::test]
async fn a_session_is_unknown_to_any_client_but_its_own() {
    let sessions = CappedSessions::new(10, 10, Duration::from_secs(60), Compat::none());
    let alice = ClientKey::Principal("sub:alice".into());
    let id = open_as(&sessions, &alice).await.expect("alice");
    for other in [
        ClientKey::Principal("sub:bob".into()),
        ClientKey::Address([127, 0, 0, 1].into()),
        ClientKey::Unknown,
    ] {
        let seen = other.clone().scope(sessions.has_session(&id)).await;
        assert!(!seen.expect("answered"), "{other} sees alice's session");
        assert!(sessions.foreign(&id, &other));
        assert!(!sessions.known(&id, &other).await);
    }
    assert!(
        alice
            .clone()
            .scope(sessions.has_session(&id))
            .await
            .expect("answered")
    );
    assert!(!sessions.foreign(&id, &alice));
    assert!(sessions.known(&id, &alice).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_openings_cannot_pass_the_caps() {
    let sessions = Arc::new(CappedSessions::new(
        4,
        2,
        Duration::from_secs(300),
        Compat::none(),
    ));
    let mallory = ClientKey::Address([127, 0, 0, 3].into());
    let opened: Vec<_> = (0..32)
        .map(|_| {
            let (sessions, mallory) = (sessions.clone(), mallory.clone());
            tokio::spawn(async move { open_as(&sessions, &mallory).await.is_ok() })
        })
        .collect();
    for task in opened {
        task.await.expect("joined");
    }
    assert!(
        sessions.len() <= 2,
        "{} sessions for one client",
        sessions.len()
    );
    assert!(
        sessions.opening().is_empty(),
        "every reservation given back"
    );
    // The HTTP layer's question closes nothing.
    let alice = ClientKey::Address([127, 0, 0, 2].into());
    let before = sessions.len();
    assert!(sessions.has_room(&alice));
    assert_eq!(sessions.len(), before);
}

#[tokio::test(start_paused = true)]
async fn a_session_closes_here_when_its_client_closed_it_elsewhere_only() {
    use super::super::owned_store::OwnedSessionStore;
    use super::super::owned_store::testing::Memory;
    let memory = Arc::new(Memory::default());
    let store: Arc<dyn SessionStore> = Arc::new(OwnedSessionStore::new(memory.clone()));
    let sessions = CappedSessions::new(10, 10, Duration::from_secs(600), Compat::none())
        .with_store(Some(store));
    let alice = ClientKey::Principal("sub:alice".into());
    let id = open_as(&sessions, &alice).await.expect("alice");
    let has = async || {
        alice
            .clone()
            .scope(sessions.has_session(&id))
            .await
            .expect("answered")
    };
    // Its own record was never written (a store that failed at
    // `initialize`, or a record past its time to live): it stays.
    for _ in 0..3 {
        tokio::time::advance(RECHECK * 2).await;
        assert!(has().await, "closed for a missing record");
        tokio::task::yield_now().await;
    }
    // Another client's close, or one of another session, closes nothing.
    let bob = ClientKey::Principal("sub:bob".into());
    sessions.closing(&id, &bob).await;
    sessions.closing("another", &alice).await;
    tokio::time::advance(RECHECK * 2).await;
    assert!(has().await);
    tokio::task::yield_now().await;
    assert!(has().await);
    // Its client closed it through another instance.
    sessions.closing(&id, &alice).await;
    tokio::time::advance(RECHECK * 2).await;
    assert!(has().await, "the look is made beside the request");
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert!(!has().await, "closed once the look found it closed");
    assert!(!sessions.held(&id));
}

#[tokio::test]
async fn a_store_that_never_answers_holds_no_request() {
    use super::super::owned_store::testing::Silent;
    let sessions = CappedSessions::new(10, 10, Duration::from_secs(600), Compat::none())
        .with_store(Some(Arc::new(Silent)));
    let alice = ClientKey::Principal("sub:alice".into());
    let id = open_as(&sessions, &alice).await.expect("alice");
    for _ in 0..3 {
        tokio::time::sleep(RECHECK + Duration::from_millis(50)).await;
        let seen = tokio::time::timeout(
            Duration::from_millis(200),
            alice.clone().scope(sessions.has_session(&id)),
        )
        .await
        .expect("answered at once, the store aside");
        assert!(seen.expect("answered"));
    }
    assert_eq!(sessions.rechecks.under_way().len(), 1, "one look at a time");
}
