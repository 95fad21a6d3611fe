//! Agents round-trip byte for byte and page by cursor in both orders.

use crate::support;

use support::P;
use switchboard_store::{AgentRecord, Order, PageQuery, StoreError};

fn rec(i: i64) -> AgentRecord {
    AgentRecord {
        project_id: P.into(),
        id: format!("agent_{i:032}"),
        created_at: i,
        updated_at: i,
        config: format!(r#"{{"n":{i}.000,"b":1}}"#),
    }
}

both_engines! {
    async fn agents_round_trip_and_page(s) {
        for i in 0..5 {
            s.insert_agent(&rec(i)).await.unwrap();
        }
        assert_eq!(
            s.get_agent(P, &rec(3).id).await.unwrap().unwrap().config,
            r#"{"n":3.000,"b":1}"#
        );

        let p = s
            .list_agents(
                P,
                &PageQuery {
                    after: None,
                    limit: 2,
                    order: Order::Desc,
                },
            )
            .await
            .unwrap();
        assert_eq!(
            p.data.iter().map(|a| a.created_at).collect::<Vec<_>>(),
            vec![4, 3]
        );
        assert!(p.has_more);
        let p = s
            .list_agents(
                P,
                &PageQuery {
                    after: Some(rec(3).id),
                    limit: 5,
                    order: Order::Desc,
                },
            )
            .await
            .unwrap();
        assert_eq!(
            p.data.iter().map(|a| a.created_at).collect::<Vec<_>>(),
            vec![2, 1, 0]
        );
        assert!(!p.has_more);
        let p = s
            .list_agents(
                P,
                &PageQuery {
                    after: Some(rec(1).id),
                    limit: 3,
                    order: Order::Asc,
                },
            )
            .await
            .unwrap();
        assert_eq!(
            p.data.iter().map(|a| a.created_at).collect::<Vec<_>>(),
            vec![2, 3, 4]
        );
        assert!(!p.has_more);

        let unknown = s
            .list_agents(
                P,
                &PageQuery {
                    after: Some("agent_x".into()),
                    ..Default::default()
                },
            )
            .await;
        assert!(matches!(unknown, Err(StoreError::UnknownCursor)));

        assert!(s.delete_agent(P, &rec(0).id).await.unwrap());
        assert!(!s.delete_agent(P, &rec(0).id).await.unwrap());
        assert!(s.get_agent(P, &rec(0).id).await.unwrap().is_none());
    }
}
