//! A Session's Subagents, child Turns and child Items: kept apart from the root's Turns and
//! Items, scoped to their Session and Subagent, paged by first write, gone with the Session.

use crate::support;

use support::{P, deletion, page, session_with};
use switchboard_store::{
    ChildItemRecord, ChildTurnRecord, Order, SessionWrite, StoreError, SubagentRecord,
};

fn with_child(id: &str) -> SessionWrite {
    let sub = format!("{id}_sub");
    let turn = format!("{id}_ct");
    SessionWrite {
        subagents: vec![SubagentRecord {
            id: sub.clone(),
            session_id: id.into(),
            doc: r#"{"status":"active"}"#.into(),
        }],
        child_turns: vec![ChildTurnRecord {
            id: turn.clone(),
            session_id: id.into(),
            subagent_id: sub.clone(),
            doc: "{}".into(),
        }],
        child_items: ["1", "2", "3"]
            .iter()
            .map(|n| ChildItemRecord {
                id: format!("{id}_ci{n}"),
                session_id: id.into(),
                subagent_id: sub.clone(),
                turn_id: turn.clone(),
                doc: format!(r#"{{"n":{n}}}"#),
            })
            .collect(),
        ..session_with(id, &format!("{id}_t"), &[&format!("{id}_i")])
    }
}

both_engines! {
    async fn child_rows_are_scoped_paged_and_go_with_the_session(s) {
        s.write_session(with_child("a")).await.unwrap();
        s.write_session(with_child("b")).await.unwrap();

        // The root's lists never show a child's rows.
        let turns = s
            .list_turns(P, "a", &page(None, 10, Order::Asc))
            .await
            .unwrap();
        assert_eq!(
            turns.data.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            ["a_t"]
        );
        let items = s
            .list_items(P, "a", None, &page(None, 10, Order::Asc))
            .await
            .unwrap();
        assert_eq!(items.data.len(), 1);

        // Scoped to the Session and the Subagent.
        assert!(s.get_subagent(P, "a", "a_sub").await.unwrap().is_some());
        assert_eq!(s.get_subagent(P, "a", "b_sub").await.unwrap(), None);
        assert_eq!(
            s.get_child_turn(P, "a", "b_sub", "b_ct").await.unwrap(),
            None
        );
        assert_eq!(
            s.get_child_turn(P, "b", "b_sub", "a_ct").await.unwrap(),
            None
        );
        assert!(
            s.get_child_turn(P, "b", "b_sub", "b_ct")
                .await
                .unwrap()
                .is_some()
        );

        // Cursor pages in first-write order; an upsert keeps the position.
        let mut again = with_child("a");
        again.child_items.truncate(1);
        again.child_items[0].doc = r#"{"n":"first, rewritten"}"#.into();
        s.write_session(again).await.unwrap();
        let first = s
            .list_child_items(P, "a", "a_sub", Some("a_ct"), &page(None, 2, Order::Asc))
            .await
            .unwrap();
        assert!(first.has_more);
        assert_eq!(first.data[0].doc, r#"{"n":"first, rewritten"}"#);
        let rest = s
            .list_child_items(P, "a", "a_sub", None, &page(Some("a_ci2"), 10, Order::Asc))
            .await
            .unwrap();
        assert_eq!(
            rest.data.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            ["a_ci3"]
        );
        // A cursor of another Subagent names nothing here.
        let foreign = s
            .list_child_items(P, "a", "a_sub", None, &page(Some("b_ci1"), 10, Order::Asc))
            .await;
        assert!(matches!(foreign, Err(StoreError::UnknownCursor)));
        let subs = s
            .list_subagents(P, "a", &page(None, 10, Order::Desc))
            .await
            .unwrap();
        assert_eq!(subs.data.len(), 1);
        let child_turns = s
            .list_child_turns(P, "a", "a_sub", &page(None, 10, Order::Asc))
            .await
            .unwrap();
        assert_eq!(child_turns.data.len(), 1);

        assert!(s.delete_session(P, &deletion("a"), None).await.unwrap());
        assert_eq!(s.get_subagent(P, "a", "a_sub").await.unwrap(), None);
        let gone = s
            .list_child_items(P, "a", "a_sub", None, &page(None, 10, Order::Asc))
            .await
            .unwrap();
        assert!(gone.data.is_empty());
        assert!(s.get_subagent(P, "b", "b_sub").await.unwrap().is_some());
    }
}
