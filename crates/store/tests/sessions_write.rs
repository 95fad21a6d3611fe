//! A Session write round-trips byte for byte; upserts replace documents but keep positions, and
//! a rewrite lands the same whether it changes only a document or a keyed column too. The agent,
//! kept apart from the row, is written once and kept by writes that leave it out.

use crate::support;

use support::{P, deletion, item, page, session, session_with, turn};
use switchboard_store::{
    CallRecord, IdempotencyRecord, Order, SessionRecord, SessionWrite, StoreError,
};

both_engines! {
    async fn records_round_trip_byte_for_byte(s) {
        let rec = SessionRecord {
            project_id: P.into(),
            agent_id: Some("agent_1".into()),
            metadata: r#"{"b":"2","a":"1"}"#.into(),
            active_turn_id: Some("turn_1".into()),
            agent: Some(r#"{"model":"m","instructions":"Be \"brief\".","n":1.50}"#.into()),
            ..session("sess_1")
        };
        let call = CallRecord {
            session_id: "sess_1".into(),
            call_id: "call_1".into(),
            turn_id: "turn_1".into(),
            doc: r#"{"name":"f","arguments":"{\"x\":1.0}"}"#.into(),
        };
        let key = IdempotencyRecord {
            project_id: P.into(),
            session_id: "sess_1".into(),
            key: "key_1".into(),
            fingerprint: "abc".into(),
            created_at: 7,
        };
        s.write_session(SessionWrite {
            calls: vec![call.clone()],
            idempotency: Some(key.clone()),
            session: Some(rec.clone()),
            ..session_with("sess_1", "turn_1", &["item_1"])
        })
        .await
        .unwrap();

        assert_eq!(s.get_session(P, "sess_1").await.unwrap(), Some(rec));
        assert_eq!(
            s.get_turn(P, "sess_1", "turn_1").await.unwrap(),
            Some(turn("sess_1", "turn_1"))
        );
        assert_eq!(s.get_turn(P, "sess_2", "turn_1").await.unwrap(), None);
        assert_eq!(
            s.turn_items(P, "sess_1", "turn_1").await.unwrap(),
            vec![item("sess_1", "turn_1", "item_1")]
        );
        assert_eq!(s.get_call(P, "sess_1", "call_1").await.unwrap(), Some(call));
        assert_eq!(
            s.get_idempotency(P, "sess_1", "key_1").await.unwrap(),
            Some(key)
        );
        assert_eq!(s.get_idempotency(P, "sess_1", "key_2").await.unwrap(), None);
        assert_eq!(s.get_session(P, "sess_2").await.unwrap(), None);

        // An empty write is a no-op.
        s.write_session(SessionWrite::default()).await.unwrap();
    }

    async fn upserts_replace_documents_and_keep_positions(s) {
        s.write_session(session_with("sess_1", "turn_1", &["a", "b", "c"]))
            .await
            .unwrap();

        // Rewrite the Session (created_at is kept), the first Item and a call; add an Item.
        let mut a = item("sess_1", "turn_1", "a");
        a.doc = r#"{"item":"a","status":"completed"}"#.into();
        let call = |doc: &str| CallRecord {
            session_id: "sess_1".into(),
            call_id: "call_1".into(),
            turn_id: "turn_1".into(),
            doc: doc.into(),
        };
        s.write_session(SessionWrite {
            calls: vec![call("{}")],
            ..Default::default()
        })
        .await
        .unwrap();
        let rewritten = SessionRecord {
            project_id: P.into(),
            created_at: 99,
            agent_id: Some("agent_2".into()),
            metadata: r#"{"k":"v"}"#.into(),
            active_turn_id: Some("turn_1".into()),
            doc: r#"{"status":"running"}"#.into(),
            ..session("sess_1")
        };
        s.write_session(SessionWrite {
            session: Some(rewritten.clone()),
            items: vec![item("sess_1", "turn_1", "d"), a.clone()],
            calls: vec![call(r#"{"result":"ok"}"#)],
            ..Default::default()
        })
        .await
        .unwrap();

        assert_eq!(
            s.get_session(P, "sess_1").await.unwrap(),
            Some(SessionRecord {
                project_id: P.into(),
                created_at: 1,
                ..rewritten
            })
        );
        let items = s.turn_items(P, "sess_1", "turn_1").await.unwrap();
        assert_eq!(
            items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        assert_eq!(items[0], a);
        let listed = s
            .list_items(P, "sess_1", None, &page(None, 10, Order::Asc))
            .await
            .unwrap();
        assert_eq!(listed.data, items);
        assert_eq!(
            s.get_call(P, "sess_1", "call_1")
                .await
                .unwrap()
                .unwrap()
                .doc,
            r#"{"result":"ok"}"#
        );

        // A Turn upsert keeps the Turn's place too.
        let mut t1 = turn("sess_1", "turn_1");
        t1.doc = r#"{"turn":"turn_1","status":"completed"}"#.into();
        s.write_session(SessionWrite {
            turns: vec![turn("sess_1", "turn_2"), t1.clone()],
            ..Default::default()
        })
        .await
        .unwrap();
        let turns = s
            .list_turns(P, "sess_1", &page(None, 10, Order::Asc))
            .await
            .unwrap();
        assert_eq!(turns.data, vec![t1, turn("sess_1", "turn_2")]);
    }

    async fn rewrites_land_whether_they_change_a_key_or_only_the_document(s) {
        // A row's document alone changes in most writes (the store updates it in place); a
        // write that also changes a keyed column, or names a row that is not there, must land
        // exactly as the full upsert would.
        s.write_session(session_with("sess_1", "turn_1", &["a"]))
            .await
            .unwrap();
        let mut rec = SessionRecord {
            active_turn_id: Some("turn_1".into()),
            doc: r#"{"n":1}"#.into(),
            ..session("sess_1")
        };
        let mut a = item("sess_1", "turn_1", "a");
        for (n, turn_id, active) in [
            (2, "turn_1", Some("turn_1")),
            (3, "turn_1", None),
            (4, "turn_2", Some("turn_2")),
            (5, "turn_2", Some("turn_2")),
        ] {
            rec.doc = format!(r#"{{"n":{n}}}"#);
            rec.active_turn_id = active.map(str::to_owned);
            rec.metadata = format!(r#"{{"n":"{}"}}"#, n / 2);
            a.turn_id = turn_id.into();
            a.doc = format!(r#"{{"item":"a","n":{n}}}"#);
            s.write_session(SessionWrite {
                session: Some(rec.clone()),
                turns: vec![turn("sess_1", turn_id)],
                items: vec![a.clone()],
                ..Default::default()
            })
            .await
            .unwrap();
            assert_eq!(s.get_session(P, "sess_1").await.unwrap(), Some(rec.clone()));
            assert_eq!(s.turn_items(P, "sess_1", turn_id).await.unwrap(), vec![a.clone()]);
        }
        assert_eq!(s.turn_items(P, "sess_1", "turn_1").await.unwrap(), vec![]);
        let sessions = s
            .list_sessions(P, &page(None, 10, Order::Asc), &Default::default())
            .await
            .unwrap();
        assert_eq!(sessions.data, vec![rec.clone()]);

        // Another Session's Item ID is still refused, whole write and all.
        s.write_session(session_with("sess_2", "turn_9", &[]))
            .await
            .unwrap();
        let before = s.get_session(P, "sess_2").await.unwrap();
        let refused = s
            .write_session(SessionWrite {
                session: Some(SessionRecord {
                    doc: r#"{"changed":true}"#.into(),
                    ..session("sess_2")
                }),
                items: vec![item("sess_2", "turn_9", "a")],
                ..Default::default()
            })
            .await;
        assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
        assert_eq!(s.get_session(P, "sess_2").await.unwrap(), before);
        assert_eq!(s.turn_items(P, "sess_1", "turn_2").await.unwrap(), vec![a]);

        // A Session ID another Project holds is not taken over by a rewrite.
        let foreign = SessionRecord {
            project_id: "proj_0000000000000000000000000000000b".into(),
            doc: r#"{"foreign":true}"#.into(),
            ..rec.clone()
        };
        s.write_session(SessionWrite {
            session: Some(foreign),
            ..Default::default()
        })
        .await
        .unwrap();
        assert_eq!(s.get_session(P, "sess_1").await.unwrap(), Some(rec));
    }

    async fn an_agent_written_once_is_kept_by_writes_that_leave_it_out(s) {
        // Core writes the agent with the Session's first row and `None` after: an update in
        // place and a full upsert (a keyed column changes) both keep it.
        let agent = r#"{"instructions":"Long.","tools":[]}"#;
        let mut rec = SessionRecord {
            agent: Some(agent.into()),
            ..session("sess_1")
        };
        s.write_session(SessionWrite {
            session: Some(rec.clone()),
            ..Default::default()
        })
        .await
        .unwrap();
        rec.agent = None;
        for (n, active) in [(2, None), (3, Some("turn_1")), (4, Some("turn_1"))] {
            rec.doc = format!(r#"{{"n":{n}}}"#);
            rec.active_turn_id = active.map(str::to_owned);
            s.write_session(SessionWrite {
                session: Some(rec.clone()),
                ..Default::default()
            })
            .await
            .unwrap();
            let stored = s.get_session(P, "sess_1").await.unwrap().unwrap();
            assert_eq!(stored.doc, rec.doc);
            assert_eq!(stored.agent.as_deref(), Some(agent), "after write {n}");
        }
        let unsettled = s.unsettled_sessions().await.unwrap();
        assert_eq!(unsettled[0].agent.as_deref(), Some(agent));
        let listed = s
            .list_sessions(P, &page(None, 10, Order::Asc), &Default::default())
            .await
            .unwrap();
        assert_eq!(listed.data[0].agent.as_deref(), Some(agent));

        // Another Project's write of the same Session ID replaces neither row nor agent.
        s.write_session(SessionWrite {
            session: Some(SessionRecord {
                project_id: "proj_0000000000000000000000000000000b".into(),
                agent: Some(r#"{"instructions":"Foreign."}"#.into()),
                ..rec.clone()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
        let stored = s.get_session(P, "sess_1").await.unwrap().unwrap();
        assert_eq!(stored.agent.as_deref(), Some(agent));

        // The agent goes with its Session: the same ID created again has none.
        assert!(s.delete_session(P, &deletion("sess_1"), None).await.unwrap());
        s.write_session(SessionWrite {
            session: Some(session("sess_1")),
            ..Default::default()
        })
        .await
        .unwrap();
        let again = s.get_session(P, "sess_1").await.unwrap().unwrap();
        assert_eq!(again.agent, None);

        // A row written with no agent (as before the column) keeps none until one is given.
        let old = SessionRecord {
            agent: None,
            ..session("sess_2")
        };
        for _ in 0..2 {
            s.write_session(SessionWrite {
                session: Some(old.clone()),
                ..Default::default()
            })
            .await
            .unwrap();
            assert_eq!(s.get_session(P, "sess_2").await.unwrap(), Some(old.clone()));
        }
    }
}
