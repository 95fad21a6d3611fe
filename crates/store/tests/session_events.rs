//! Events and keys across replicas (issue 16, design items 7 and 8): PostgreSQL keeps a
//! Session write's events as rows with a notification, sweeps them after their retention, and
//! bumps and notifies the keys epoch on every key and Project change; SQLite keeps none and
//! has nothing to listen to.

use crate::support;

use support::{P, session};
use switchboard_store::{ApiKeyRecord, EventRecord, Notice, ProjectRecord, SessionWrite};

const S: &str = "sess_000000000000000000000000000000e1";

fn event(seq: i64, created_at: i64) -> EventRecord {
    EventRecord {
        session_id: S.into(),
        seq,
        project_id: P.into(),
        kind: "agent.session.idle".into(),
        json: format!(r#"{{"type":"agent.session.idle","n":{seq}.0}}"#),
        created_at,
    }
}

fn with_events(events: Vec<EventRecord>) -> SessionWrite {
    SessionWrite {
        session: Some(session(S)),
        events,
        ..Default::default()
    }
}

/// The next notification, within a deadline.
async fn next(n: &mut Box<dyn switchboard_store::Notifications>) -> Notice {
    tokio::time::timeout(std::time::Duration::from_secs(10), n.next())
        .await
        .expect("a notification within 10 s")
}

both_engines! {
    async fn event_rows_are_kept_only_where_replicas_read_them(s) {
        s.write_session(with_events(vec![event(1, 100), event(2, 100)])).await.unwrap();
        s.write_session(with_events(vec![event(3, 200)])).await.unwrap();
        let rows = s.events_after(S, 1).await.unwrap();
        if s.keeps_events() {
            // Byte for byte, in seq order, after the given seq only.
            assert_eq!(rows, vec![event(2, 100), event(3, 200)]);
            // Retention: rows created before the cutoff go, the rest stay.
            assert_eq!(s.delete_events_before(150).await.unwrap(), 2);
            assert_eq!(s.events_after(S, 0).await.unwrap(), vec![event(3, 200)]);
            // A seq written twice (two writers of one Session) fails and writes nothing.
            let dup = with_events(vec![event(4, 300), event(3, 300)]);
            assert!(s.write_session(dup).await.is_err());
            assert_eq!(s.events_after(S, 0).await.unwrap(), vec![event(3, 200)]);
        } else {
            assert!(rows.is_empty(), "SQLite keeps no event rows: {rows:?}");
            assert_eq!(s.delete_events_before(i64::MAX).await.unwrap(), 0);
            assert!(s.listen().await.unwrap().is_none());
        }
        // The Session row itself is written either way.
        assert!(s.get_session(P, S).await.unwrap().is_some());
    }

    async fn commits_are_notified_in_order_and_keys_changes_bump_the_epoch(s) {
        let Some(mut n) = s.listen().await.unwrap() else {
            assert_eq!(s.keys_epoch().await.unwrap(), 0);
            return;
        };
        let epoch = s.keys_epoch().await.unwrap();
        s.write_session(with_events(vec![event(1, 1)])).await.unwrap();
        s.insert_project(&ProjectRecord {
            id: P.into(),
            name: "p".into(),
            created_at: 1,
            archived_at: None,
        })
        .await
        .unwrap();
        s.insert_api_key(&ApiKeyRecord {
            id: "key_1".into(),
            project_id: P.into(),
            digest: "d1".into(),
            hint: "sk".into(),
            created_at: 1,
            revoked_at: None,
        })
        .await
        .unwrap();
        assert!(s.revoke_api_key("key_1", 2).await.unwrap());
        assert!(s.archive_project(P, 3).await.unwrap());
        assert_eq!(next(&mut n).await, Notice::Events(S.into()));
        for _ in 0..4 {
            assert_eq!(next(&mut n).await, Notice::Keys);
        }
        assert_eq!(s.keys_epoch().await.unwrap(), epoch + 4);
    }
}

/// A terminated LISTEN backend (a failover, an operator's `pg_terminate_backend`) is re-opened
/// and reported as `Resumed`, so the reader re-reads the rows committed while nobody listened;
/// then commits are notified again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminated_listen_connection_is_resumed() {
    let test = "session_events::a_terminated_listen_connection_is_resumed";
    let Some(db) = switchboard_store::test_support::database_or_skip(test).await else {
        return;
    };
    let s: std::sync::Arc<dyn switchboard_store::Store> =
        std::sync::Arc::new(switchboard_store::PgStore::open(&db.url).await.unwrap());
    let mut n = s.listen().await.unwrap().unwrap();
    let admin = sqlx::PgPool::connect(&db.url).await.unwrap();
    let killed: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'switchboard-listen'",
    )
    .fetch_all(&admin)
    .await
    .unwrap();
    assert_eq!(killed, vec![true]);
    s.write_session(with_events(vec![event(1, 1)]))
        .await
        .unwrap();
    // The dying backend may still pass this commit's notification on before it goes.
    loop {
        match next(&mut n).await {
            Notice::Resumed => break,
            Notice::Events(id) => assert_eq!(id, S),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(s.events_after(S, 0).await.unwrap(), vec![event(1, 1)]);
    s.write_session(with_events(vec![event(2, 1)]))
        .await
        .unwrap();
    assert_eq!(next(&mut n).await, Notice::Events(S.into()));
    admin.close().await;
}
