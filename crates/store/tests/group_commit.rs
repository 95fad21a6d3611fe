//! Concurrent writes (on SQLite, committed in shared transactions by the writer thread) each succeed or fail alone, and each is readable and durable once answered.

use std::sync::Arc;

use switchboard_store::{AgentRecord, PageQuery, SqliteStore, Store};

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

fn all() -> PageQuery {
    PageQuery {
        limit: 1000,
        ..Default::default()
    }
}

/// 200 concurrent writers, mixed kinds (new Agents, and updates of Agents that exist and of
/// ones that do not), so batches hold different statements; each caller's own outcome.
async fn mixed_writers(s: &Arc<dyn Store>) {
    for i in 0..50 {
        s.insert_agent(&rec(&format!("old{i}"))).await.unwrap();
    }
    let mut tasks = Vec::new();
    for i in 0..200 {
        let s = s.clone();
        tasks.push(tokio::spawn(async move {
            match i % 4 {
                0 => {
                    let mut r = rec(&format!("old{}", i / 4));
                    r.updated_at = 2;
                    r.config = format!("{{\"v\":{i}}}");
                    assert!(s.update_agent(&r).await.unwrap(), "update {i}");
                }
                1 => {
                    let r = rec(&format!("missing{i}"));
                    assert!(
                        !s.update_agent(&r).await.unwrap(),
                        "update of a missing one {i}"
                    );
                }
                _ => {
                    let id = format!("new{i}");
                    s.insert_agent(&rec(&id)).await.unwrap();
                    // Readable once answered, on another connection than the writer's.
                    let read = s.get_agent(P, &id).await.unwrap();
                    assert_eq!(read.map(|a| a.id), Some(id));
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

/// What [`mixed_writers`] left: its 100 new Agents, 50 updated ones, none of the missing ones.
async fn check_mixed(s: &dyn Store) {
    let all = s.list_agents(P, &all()).await.unwrap().data;
    assert_eq!(all.len(), 150);
    assert!(all.iter().all(|a| !a.id.starts_with("missing")));
    let updated: Vec<_> = all.iter().filter(|a| a.updated_at == 2).collect();
    assert_eq!(updated.len(), 50);
    for a in updated {
        let i: usize = a.id["old".len()..].parse().unwrap();
        assert_eq!(a.config, format!("{{\"v\":{}}}", i * 4));
    }
}

/// Durable once answered: another store opened on the same file (as another process would,
/// after this one crashed) reads every answered write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_answered_writes_are_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let s: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
    mixed_writers(&s).await;
    let other = SqliteStore::open(&path).await.unwrap();
    check_mixed(&other).await;
}

both_engines! {
    async fn concurrent_mixed_writes_each_land_and_are_readable_once_answered(s) {
        mixed_writers(&s).await;
        check_mixed(s.as_ref()).await;
    }

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
