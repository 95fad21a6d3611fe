//! A Session write that conflicts lands nothing, alone or batched with other writers.

use crate::support;

use std::sync::Arc;

use support::{P, item, page, session_with};
use switchboard_store::{IdempotencyRecord, Order, SessionWrite, StoreError};

fn key(session_id: &str, fingerprint: &str) -> IdempotencyRecord {
    IdempotencyRecord {
        project_id: P.into(),
        session_id: session_id.into(),
        key: "key_1".into(),
        fingerprint: fingerprint.into(),
        created_at: 1,
    }
}

both_engines! {
    async fn a_duplicate_idempotency_key_fails_the_whole_write(s) {
        s.write_session(SessionWrite {
            idempotency: Some(key("sess_1", "first")),
            ..session_with("sess_1", "turn_1", &["item_1"])
        })
        .await
        .unwrap();

        // The same key again, with a new Turn, Items and a Session change.
        let mut second = session_with("sess_1", "turn_2", &["item_2", "item_3"]);
        second.session.as_mut().unwrap().active_turn_id = Some("turn_2".into());
        second.idempotency = Some(key("sess_1", "second"));
        let err = s.write_session(second).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");

        assert_eq!(
            s.get_session(P, "sess_1")
                .await
                .unwrap()
                .unwrap()
                .active_turn_id,
            None
        );
        assert_eq!(s.get_turn(P, "sess_1", "turn_2").await.unwrap(), None);
        assert!(
            s.turn_items(P, "sess_1", "turn_2")
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            s.get_idempotency(P, "sess_1", "key_1")
                .await
                .unwrap()
                .unwrap()
                .fingerprint,
            "first"
        );

        // A brand-new Session whose write conflicts is not created at all; the same key under
        // another Session is no conflict.
        let mut third = session_with("sess_2", "turn_3", &["item_4"]);
        third.idempotency = Some(key("sess_2", "third"));
        third.items.push(item("sess_2", "turn_3", "item_1")); // sess_1 owns item_1
        let err = s.write_session(third.clone()).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
        assert_eq!(s.get_session(P, "sess_2").await.unwrap(), None);
        assert_eq!(s.get_idempotency(P, "sess_2", "key_1").await.unwrap(), None);
        third.items.pop();
        s.write_session(third).await.unwrap();

        // sess_1's item_1 was never touched.
        assert_eq!(
            s.turn_items(P, "sess_1", "turn_1").await.unwrap(),
            vec![item("sess_1", "turn_1", "item_1")]
        );
    }

    async fn a_conflicting_write_in_a_batch_lands_nothing(s) {
        let s = Arc::new(s);
        s.write_session(SessionWrite {
            idempotency: Some(key("sess_0", "taken")),
            ..session_with("sess_0", "turn_0", &[])
        })
        .await
        .unwrap();

        // 32 writers at once; every fourth reuses sess_0's idempotency key for its new Turn.
        let mut tasks = Vec::new();
        for i in 1..=32 {
            let s = s.clone();
            tasks.push(tokio::spawn(async move {
                let conflicting = i % 4 == 0;
                let (sid, turn_id) = if conflicting {
                    ("sess_0".to_string(), format!("turn_{i}"))
                } else {
                    (format!("sess_{i}"), format!("turn_{i}"))
                };
                let mut w = session_with(&sid, &turn_id, &[&format!("item_{i}")]);
                if conflicting {
                    w.idempotency = Some(key("sess_0", "again"));
                }
                (conflicting, turn_id, s.write_session(w).await)
            }));
        }
        for t in tasks {
            let (conflicting, turn_id, outcome) = t.await.unwrap();
            if conflicting {
                assert!(matches!(outcome, Err(StoreError::Conflict(_))), "{turn_id}");
                assert_eq!(s.get_turn(P, "sess_0", &turn_id).await.unwrap(), None);
            } else {
                outcome.unwrap();
            }
        }
        let turns = s
            .list_turns(P, "sess_0", &page(None, 100, Order::Asc))
            .await
            .unwrap();
        assert_eq!(turns.data.len(), 1);
        let items = s
            .list_items(P, "sess_0", None, &page(None, 100, Order::Asc))
            .await
            .unwrap();
        assert!(items.data.is_empty());
        let sessions = s
            .list_sessions(P, &page(None, 100, Order::Asc), &Default::default())
            .await
            .unwrap();
        assert_eq!(sessions.data.len(), 1 + 24);
    }
}
