//! `sessions.list` filters on the Agent and on metadata values, keys of any spelling included.

use crate::support;

use support::{P, page, session};
use switchboard_store::{Order, Page, SessionFilter, SessionRecord, SessionWrite, StoreError};

fn ids(p: &Page<SessionRecord>) -> Vec<&str> {
    p.data.iter().map(|x| x.id.as_str()).collect()
}

fn filter(agent_id: Option<&str>, metadata: &[(&str, &str)]) -> SessionFilter {
    SessionFilter {
        agent_id: agent_id.map(str::to_owned),
        metadata: metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

both_engines! {
    async fn filters_match_agent_and_every_metadata_pair(s) {
        let rows = [
            ("s0", Some("agent_a"), r#"{"env":"prod","team":"x"}"#),
            ("s1", Some("agent_b"), r#"{"env":"prod"}"#),
            (
                "s2",
                None,
                r#"{"env":"dev","a.b":"dot","q\"k":"quo\"te","n":"1"}"#,
            ),
            (
                "s3",
                Some("agent_a"),
                r#"{"env":"prod","team":"y","$.env":"prod"}"#,
            ),
            ("s4", Some("agent_a"), r#"{"env":1,"team":"x"}"#),
            ("s5", Some("agent_a"), "{}"),
        ];
        for (id, agent_id, metadata) in rows {
            s.write_session(SessionWrite {
                session: Some(SessionRecord {
                    project_id: P.into(),
                    agent_id: agent_id.map(str::to_owned),
                    metadata: metadata.to_owned(),
                    ..session(id)
                }),
                ..Default::default()
            })
            .await
            .unwrap();
        }
        let all = page(None, 10, Order::Asc);
        let list = |f: SessionFilter, q| {
            let s = &s;
            async move { s.list_sessions(P, &q, &f).await }
        };

        let p = list(filter(Some("agent_a"), &[]), all.clone())
            .await
            .unwrap();
        assert_eq!(ids(&p), ["s0", "s3", "s4", "s5"]);
        let p = list(filter(None, &[("env", "prod")]), all.clone())
            .await
            .unwrap();
        assert_eq!(ids(&p), ["s0", "s1", "s3"]); // s4's env is a number, not "1"
        let p = list(
            filter(Some("agent_a"), &[("env", "prod"), ("team", "x")]),
            all.clone(),
        )
        .await
        .unwrap();
        assert_eq!(ids(&p), ["s0"]);
        let p = list(
            filter(None, &[("a.b", "dot"), ("q\"k", "quo\"te")]),
            all.clone(),
        )
        .await
        .unwrap();
        assert_eq!(ids(&p), ["s2"]);
        // Keys are names, never JSON paths.
        let p = list(filter(None, &[("$.env", "prod")]), all.clone())
            .await
            .unwrap();
        assert_eq!(ids(&p), ["s3"]);
        let p = list(filter(None, &[("b", "dot")]), all.clone())
            .await
            .unwrap();
        assert!(ids(&p).is_empty());
        let p = list(filter(Some("agent_c"), &[]), all.clone())
            .await
            .unwrap();
        assert!(ids(&p).is_empty() && !p.has_more);

        // Filtered pages follow cursors in both orders; the cursor need not pass the filter.
        let prod = filter(None, &[("env", "prod")]);
        let p = list(prod.clone(), page(None, 2, Order::Desc))
            .await
            .unwrap();
        assert_eq!((ids(&p), p.has_more), (vec!["s3", "s1"], true));
        let p = list(prod.clone(), page(Some("s1"), 2, Order::Desc))
            .await
            .unwrap();
        assert_eq!((ids(&p), p.has_more), (vec!["s0"], false));
        let p = list(prod.clone(), page(Some("s2"), 1, Order::Asc))
            .await
            .unwrap();
        assert_eq!((ids(&p), p.has_more), (vec!["s3"], false));
        let unknown = list(prod, page(Some("s9"), 1, Order::Asc)).await;
        assert!(matches!(unknown, Err(StoreError::UnknownCursor)));
    }
}
