//! Project isolation in the store, on both engines: another Project's rows are absent (reads,
//! lists, cursors, deletes), an upsert of another Project's Session changes nothing, and create
//! keys are per Project.

use crate::support;

use support::{P, deletion, page, session_with};
use switchboard_store::{IdempotencyRecord, Order, SessionFilter, StoreError};

const Q: &str = "proj_0000000000000000000000000000000b";

both_engines! {
    async fn another_projects_session_is_absent(s) {
        s.write_session(session_with("sess_1", "turn_1", &["item_1"])).await.unwrap();
        assert!(s.get_session(P, "sess_1").await.unwrap().is_some());
        assert_eq!(s.get_session(Q, "sess_1").await.unwrap(), None);
        assert_eq!(s.get_turn(Q, "sess_1", "turn_1").await.unwrap(), None);
        assert!(s.turn_items(Q, "sess_1", "turn_1").await.unwrap().is_empty());
        let listed = s
            .list_sessions(Q, &page(None, 10, Order::Asc), &SessionFilter::default())
            .await
            .unwrap();
        assert!(listed.data.is_empty());
        let items = s.list_items(Q, "sess_1", None, &page(None, 10, Order::Asc)).await.unwrap();
        assert!(items.data.is_empty());
        let cursor = s
            .list_sessions(Q, &page(Some("sess_1"), 10, Order::Asc), &SessionFilter::default())
            .await;
        assert!(matches!(cursor, Err(StoreError::UnknownCursor)));
        assert!(!s.delete_session(Q, &deletion("sess_1"), None).await.unwrap());
        assert!(s.pending_deletions().await.unwrap().is_empty());

        // An upsert of the same ID from another Project changes nothing of it.
        let mut foreign = session_with("sess_1", "turn_1", &[]).session.unwrap();
        foreign.project_id = Q.into();
        foreign.doc = r#"{"taken":true}"#.into();
        let _ = s
            .write_session(switchboard_store::SessionWrite {
                session: Some(foreign),
                ..Default::default()
            })
            .await;
        let kept = s.get_session(P, "sess_1").await.unwrap().unwrap();
        assert_eq!(kept.doc, session_with("sess_1", "t", &[]).session.unwrap().doc);
        assert_eq!(s.get_session(Q, "sess_1").await.unwrap(), None);
    }

    async fn create_keys_are_per_project(s) {
        let create = |project: &str, id: &str| {
            let mut w = session_with(id, &format!("{id}_t"), &[]);
            if let Some(session) = w.session.as_mut() {
                session.project_id = project.into();
            }
            w.create_key = Some(IdempotencyRecord {
                session_id: id.into(),
                project_id: project.into(),
                key: "k".into(),
                fingerprint: "f".into(),
                created_at: 1,
            });
            w
        };
        s.write_session(create(P, "sess_p")).await.unwrap();
        s.write_session(create(Q, "sess_q")).await.unwrap();
        let again = s.write_session(create(P, "sess_p2")).await;
        assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
        assert_eq!(s.get_create_key(P, "k").await.unwrap().unwrap().session_id, "sess_p");
        assert_eq!(s.get_create_key(Q, "k").await.unwrap().unwrap().session_id, "sess_q");
    }
}
