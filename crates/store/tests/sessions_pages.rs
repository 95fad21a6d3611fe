//! Sessions, Turns and Items page by cursor in both orders, each list within its Session.

use crate::support;

use support::{P, item, page, session_with, turn};
use switchboard_store::{Order, Page, SessionWrite, StoreError};

use Order::{Asc, Desc};

/// A page request (after, limit, order) and the page it must bring (IDs, has_more).
type Case = (
    Option<&'static str>,
    u32,
    Order,
    &'static [&'static str],
    bool,
);

/// A page's IDs and its `has_more`.
fn seen<T>(p: Page<T>, id: impl Fn(T) -> String) -> (Vec<String>, bool) {
    (p.data.into_iter().map(id).collect(), p.has_more)
}

fn want(ids: &[&str], more: bool) -> (Vec<String>, bool) {
    (ids.iter().map(|i| i.to_string()).collect(), more)
}

both_engines! {
    async fn sessions_page_both_ways(s) {
        for i in 0..5 {
            s.write_session(session_with(&format!("s{i}"), &format!("t{i}"), &[]))
                .await
                .unwrap();
        }
        // Rewriting a Session does not move it.
        s.write_session(session_with("s1", "t1", &[]))
            .await
            .unwrap();
        let none = Default::default();

        let cases: [Case; 4] = [
            (None, 2, Desc, &["s4", "s3"], true),
            (Some("s3"), 5, Desc, &["s2", "s1", "s0"], false),
            (Some("s0"), 3, Asc, &["s1", "s2", "s3"], true),
            (Some("s3"), 3, Asc, &["s4"], false),
        ];
        for (after, limit, order, ids, more) in cases {
            let p = s.list_sessions(P, &page(after, limit, order), &none).await;
            assert_eq!(
                seen(p.unwrap(), |x| x.id),
                want(ids, more),
                "{after:?} {order:?}"
            );
        }

        for after in ["s9", "t1"] {
            let unknown = s.list_sessions(P, &page(Some(after), 3, Asc), &none).await;
            assert!(matches!(unknown, Err(StoreError::UnknownCursor)), "{after}");
        }
    }

    async fn turns_and_items_page_within_their_session(s) {
        // Two Sessions written interleaved, so their rows share the sequence.
        for n in 0..3 {
            for sid in ["a", "b"] {
                let tid = format!("{sid}_t{n}");
                let items = [format!("{tid}_i0"), format!("{tid}_i1")];
                s.write_session(SessionWrite {
                    turns: vec![turn(sid, &tid)],
                    items: items.iter().map(|i| item(sid, &tid, i)).collect(),
                    ..session_with(sid, &tid, &[])
                })
                .await
                .unwrap();
            }
        }

        let cases: [(&str, Case); 3] = [
            ("a", (None, 2, Asc, &["a_t0", "a_t1"], true)),
            ("a", (Some("a_t1"), 2, Asc, &["a_t2"], false)),
            ("b", (Some("b_t2"), 5, Desc, &["b_t1", "b_t0"], false)),
        ];
        for (sid, (after, limit, order, ids, more)) in cases {
            let p = s.list_turns(P, sid, &page(after, limit, order)).await;
            assert_eq!(seen(p.unwrap(), |x| x.id), want(ids, more), "{after:?}");
        }

        // A Session's Items, or one Turn's; the cursor may be any Item of the Session.
        let cases: [(&str, Option<&str>, Case); 6] = [
            (
                "a",
                None,
                (None, 3, Desc, &["a_t2_i1", "a_t2_i0", "a_t1_i1"], true),
            ),
            (
                "a",
                None,
                (Some("a_t1_i1"), 2, Desc, &["a_t1_i0", "a_t0_i1"], true),
            ),
            (
                "b",
                Some("b_t1"),
                (None, 5, Asc, &["b_t1_i0", "b_t1_i1"], false),
            ),
            (
                "b",
                Some("b_t1"),
                (Some("b_t1_i0"), 5, Asc, &["b_t1_i1"], false),
            ),
            (
                "b",
                Some("b_t1"),
                (Some("b_t0_i0"), 1, Asc, &["b_t1_i0"], true),
            ),
            ("b", Some("b_t9"), (None, 5, Asc, &[], false)),
        ];
        for (sid, tid, (after, limit, order, ids, more)) in cases {
            let p = s.list_items(P, sid, tid, &page(after, limit, order)).await;
            assert_eq!(
                seen(p.unwrap(), |x| x.id),
                want(ids, more),
                "{tid:?} {after:?}"
            );
        }

        // A cursor naming another Session's row, or nothing, names no row of this list.
        let other_turn = s.list_turns(P, "a", &page(Some("b_t0"), 5, Asc)).await;
        assert!(matches!(other_turn, Err(StoreError::UnknownCursor)));
        let missing = s.list_turns(P, "a", &page(Some("a_t9"), 5, Asc)).await;
        assert!(matches!(missing, Err(StoreError::UnknownCursor)));
        for tid in [None, Some("a_t0")] {
            let other_item = s
                .list_items(P, "a", tid, &page(Some("b_t0_i0"), 5, Asc))
                .await;
            assert!(
                matches!(other_item, Err(StoreError::UnknownCursor)),
                "{tid:?}"
            );
        }
    }
}
