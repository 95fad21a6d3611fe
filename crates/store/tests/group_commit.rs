//! Concurrent writes (on SQLite, committed in shared transactions) each succeed or fail alone.

// Test code may panic (clippy.toml's test allowance misses integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

use switchboard_store::{AgentRecord, PageQuery};

const P: &str = "proj_0000000000000000000000000000000a";

fn rec(id: &str) -> AgentRecord {
    AgentRecord {
        project_id: P.into(),
        id: id.to_owned(),
        created_at: 1,
        updated_at: 1,
        config: "{}".into(),
    }
}

both_engines! {
    async fn a_failing_write_does_not_take_its_batch_down(s) {
        s.insert_agent(&rec("taken")).await.unwrap();

        // 64 writers at once, every eighth one violating the unique ID.
        let mut tasks = Vec::new();
        for i in 0..64 {
            let s = s.clone();
            tasks.push(tokio::spawn(async move {
                let id = if i % 8 == 0 {
                    "taken".to_string()
                } else {
                    format!("a{i}")
                };
                s.insert_agent(&rec(&id)).await.is_ok()
            }));
        }
        let mut ok = 0;
        for (i, t) in tasks.into_iter().enumerate() {
            let succeeded = t.await.unwrap();
            assert_eq!(succeeded, i % 8 != 0, "write {i}");
            ok += usize::from(succeeded);
        }
        let all = s
            .list_agents(
                P,
                &PageQuery {
                    limit: 100,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(all.data.len(), ok + 1);
    }
}
