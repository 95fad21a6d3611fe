//! Root Turns' traces: appended batch by batch to a stored Turn only, paged in Turn order,
//! seen only in the Session's Project, and gone with the Session.

use crate::support;

use support::{P, deletion, page, session_with, turn};
use switchboard_store::{Order, SessionWrite, StoreError};

both_engines! {
    async fn batches_append_to_their_turn_in_turn_order(s) {
        s.write_session(SessionWrite {
            turns: vec![turn("a", "a_t1"), turn("a", "a_t2")],
            ..session_with("a", "a_t0", &[])
        })
        .await
        .unwrap();
        // Spans of the later Turn first: pages still follow the Turns' order.
        s.append_trace("a", "a_t2", r#"{"resourceSpans":[2]}"#).await.unwrap();
        s.append_trace("a", "a_t1", r#"{"resourceSpans":[1]}"#).await.unwrap();
        s.append_trace("a", "a_t1", r#"{"resourceSpans":[11]}"#).await.unwrap();

        let all = s.list_traces(P, "a", &page(None, 10, Order::Asc)).await.unwrap();
        let ids: Vec<_> = all.data.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a_t1", "a_t2"], "a Turn without spans has no trace");
        assert_eq!(all.data[0].spans, "{\"resourceSpans\":[1]}\n{\"resourceSpans\":[11]}\n");
        assert_eq!(all.data[0].turn_doc, r#"{"turn":"a_t1"}"#);
        assert_eq!(all.data[0].session_id, "a");

        let newest = s.list_traces(P, "a", &page(None, 1, Order::Desc)).await.unwrap();
        assert_eq!(newest.data[0].id, "a_t2");
        assert!(newest.has_more);
        let next = s.list_traces(P, "a", &page(Some("a_t2"), 1, Order::Desc)).await.unwrap();
        assert_eq!(next.data[0].id, "a_t1");
        assert!(!next.has_more);
    }

    async fn only_a_stored_turn_of_that_session_takes_spans(s) {
        s.write_session(session_with("a", "a_t", &[])).await.unwrap();
        s.write_session(session_with("b", "b_t", &[])).await.unwrap();
        s.append_trace("a", "nope", "{}").await.unwrap();
        s.append_trace("b", "a_t", "{}").await.unwrap();
        for sid in ["a", "b"] {
            let got = s.list_traces(P, sid, &page(None, 10, Order::Asc)).await.unwrap();
            assert!(got.data.is_empty(), "{sid}: {got:?}");
        }
    }

    async fn traces_are_project_scoped_and_go_with_the_session(s) {
        s.write_session(session_with("a", "a_t", &[])).await.unwrap();
        s.append_trace("a", "a_t", "{}").await.unwrap();
        let other = s.list_traces("proj_other", "a", &page(None, 10, Order::Asc)).await.unwrap();
        assert!(other.data.is_empty());
        let cursor = s.list_traces("proj_other", "a", &page(Some("a_t"), 10, Order::Asc)).await;
        assert!(matches!(cursor, Err(StoreError::UnknownCursor)));

        assert!(s.delete_session(P, &deletion("a"), None).await.unwrap());
        let gone = s.list_traces(P, "a", &page(None, 10, Order::Asc)).await.unwrap();
        assert!(gone.data.is_empty());
        // A late batch of the deleted Turn is not stored.
        s.append_trace("a", "a_t", "{}").await.unwrap();
        s.write_session(session_with("a", "a_t", &[])).await.unwrap();
        let fresh = s.list_traces(P, "a", &page(None, 10, Order::Asc)).await.unwrap();
        assert!(fresh.data.is_empty());
    }
}
