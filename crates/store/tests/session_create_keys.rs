//! A Session create's Idempotency-Key: of concurrent creates with one key exactly one Session
//! lands, and the key outlives its Session.

use crate::support;

use std::sync::Arc;

use support::{P, deletion, page, session_with};
use switchboard_store::{IdempotencyRecord, Order, SessionFilter, SessionWrite, StoreError};

fn create(session_id: &str, key: &str) -> SessionWrite {
    SessionWrite {
        create_key: Some(IdempotencyRecord {
            project_id: P.into(),
            session_id: session_id.into(),
            key: key.into(),
            fingerprint: format!("digest of {session_id}"),
            created_at: 1,
        }),
        ..session_with(session_id, &format!("{session_id}_t"), &[])
    }
}

both_engines! {
    async fn concurrent_creates_with_one_key_land_exactly_one_session(s) {
        let s = Arc::new(s);
        let writes: Vec<_> = (0..10)
            .map(|i| {
                let s = s.clone();
                tokio::spawn(async move { s.write_session(create(&format!("sess_{i}"), "k")).await })
            })
            .collect();
        let mut winners = Vec::new();
        for (i, w) in writes.into_iter().enumerate() {
            match w.await.unwrap() {
                Ok(()) => winners.push(format!("sess_{i}")),
                Err(StoreError::Conflict(_)) => {}
                Err(e) => panic!("unexpected {e:?}"),
            }
        }
        assert_eq!(winners.len(), 1, "{winners:?}");
        let listed = s
            .list_sessions(P, &page(None, 100, Order::Asc), &SessionFilter::default())
            .await
            .unwrap();
        let ids: Vec<_> = listed.data.iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids, winners);
        // A loser's Turn did not land either.
        for i in 0..10 {
            let id = format!("sess_{i}");
            let turns = s
                .list_turns(P, &id, &page(None, 10, Order::Asc))
                .await
                .unwrap();
            assert_eq!(turns.data.len(), usize::from(id == winners[0]), "{id}");
        }
        let key = s.get_create_key(P, "k").await.unwrap().unwrap();
        assert_eq!(key.session_id, winners[0]);
        assert_eq!(key.fingerprint, format!("digest of {}", winners[0]));
    }

    async fn the_key_outlives_its_session(s) {
        s.write_session(create("sess_1", "k")).await.unwrap();
        assert!(
            s.delete_session(P, &deletion("sess_1"), None)
                .await
                .unwrap()
        );
        assert_eq!(s.get_session(P, "sess_1").await.unwrap(), None);
        // It no longer names the Session: a retry finds no Session to answer with.
        let key = s.get_create_key(P, "k").await.unwrap().unwrap();
        assert_eq!(key.session_id, "");
        assert_eq!(s.get_create_key(P, "other").await.unwrap(), None);
        // Still used: another Session cannot take it.
        let err = s.write_session(create("sess_2", "k")).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
        assert_eq!(s.get_session(P, "sess_2").await.unwrap(), None);
    }
}
