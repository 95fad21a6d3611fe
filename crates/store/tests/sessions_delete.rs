//! Deleting a Session takes its Turns, Items, calls and idempotency records with it.

use crate::support;

use support::{P, deletion, page, session_with};
use switchboard_store::{CallRecord, IdempotencyRecord, Order, SessionWrite, StoreError};

fn full(id: &str) -> SessionWrite {
    SessionWrite {
        calls: vec![CallRecord {
            session_id: id.into(),
            call_id: "call_1".into(),
            turn_id: format!("{id}_t"),
            doc: "{}".into(),
        }],
        idempotency: Some(IdempotencyRecord {
            project_id: P.into(),
            session_id: id.into(),
            key: "key_1".into(),
            fingerprint: "f".into(),
            created_at: 1,
        }),
        ..session_with(id, &format!("{id}_t"), &[&format!("{id}_i")])
    }
}

both_engines! {
    async fn delete_cascades_and_spares_other_sessions(s) {
        s.write_session(full("a")).await.unwrap();
        s.write_session(full("b")).await.unwrap();

        assert!(s.delete_session(P, &deletion("a"), None).await.unwrap());
        assert!(!s.delete_session(P, &deletion("a"), None).await.unwrap());
        assert!(!s.delete_session(P, &deletion("never"), None).await.unwrap());

        assert_eq!(s.get_session(P, "a").await.unwrap(), None);
        assert_eq!(s.get_turn(P, "a", "a_t").await.unwrap(), None);
        assert!(s.turn_items(P, "a", "a_t").await.unwrap().is_empty());
        assert_eq!(s.get_call(P, "a", "call_1").await.unwrap(), None);
        assert_eq!(s.get_idempotency(P, "a", "key_1").await.unwrap(), None);
        let gone = s
            .list_items(P, "b", None, &page(Some("a_i"), 5, Order::Asc))
            .await;
        assert!(matches!(gone, Err(StoreError::UnknownCursor)));

        assert!(s.get_session(P, "b").await.unwrap().is_some());
        assert!(s.get_turn(P, "b", "b_t").await.unwrap().is_some());
        assert_eq!(s.turn_items(P, "b", "b_t").await.unwrap().len(), 1);
        assert!(s.get_call(P, "b", "call_1").await.unwrap().is_some());
        assert!(s.get_idempotency(P, "b", "key_1").await.unwrap().is_some());

        // The deleted IDs are free again: a Session of the same ID starts empty.
        s.write_session(full("a")).await.unwrap();
        let turns = s
            .list_turns(P, "a", &page(None, 5, Order::Asc))
            .await
            .unwrap();
        assert_eq!(turns.data.len(), 1);
    }
}
