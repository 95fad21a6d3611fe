//! Shared by the tests: a fresh store per test on either engine, the macro that runs one
//! behaviour on both, and small Session record builders.

use std::sync::Arc;

use switchboard_store::test_support::{TestDatabase, database_or_skip};
use switchboard_store::{
    AgentRecord, DeletionRecord, ItemRecord, Order, PageQuery, PgStore, SessionRecord,
    SessionWrite, SqliteStore, Store, TurnRecord,
};

/// Runs each `async fn name(s) { … }` as two tests, `sqlite::name` and `postgres::name`, with
/// `s` an `Arc<dyn Store>` of a fresh store on that engine. The PostgreSQL test is skipped
/// loudly outside CI when PostgreSQL is not installed.
macro_rules! both_engines {
    ($(async fn $name:ident($s:ident) $body:block)*) => {
        mod sqlite {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let (_guard, $s) = $crate::support::sqlite().await;
                    $body
                }
            )*
        }
        mod postgres {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let test = concat!(module_path!(), "::", stringify!($name));
                    let Some((_guard, $s)) = $crate::support::postgres(test).await else {
                        return;
                    };
                    $body
                }
            )*
        }
    };
}

/// What keeps a test's store alive: its SQLite directory or its PostgreSQL database.
#[allow(dead_code)] // held for its drop
pub enum Guard {
    Sqlite(tempfile::TempDir),
    Postgres(TestDatabase),
}

pub async fn sqlite() -> (Guard, Arc<dyn Store>) {
    let (dir, s) = store().await;
    (Guard::Sqlite(dir), Arc::new(s))
}

/// A PgStore on a new database of the test cluster; `None` when the test is skipped.
pub async fn postgres(test: &str) -> Option<(Guard, Arc<dyn Store>)> {
    let db = database_or_skip(test).await?;
    let s = PgStore::open(&db.url).await.unwrap();
    Some((Guard::Postgres(db), Arc::new(s)))
}

/// The Project the tests' rows belong to (the store keeps any Project ID it is given).
pub const P: &str = "proj_0000000000000000000000000000000a";

/// A store in its own temporary directory (kept alive by the returned guard).
pub async fn store() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteStore::open(&dir.path().join("db.sqlite"))
        .await
        .unwrap();
    (dir, s)
}

pub fn session(id: &str) -> SessionRecord {
    SessionRecord {
        project_id: P.into(),
        id: id.to_owned(),
        created_at: 1,
        agent_id: None,
        metadata: "{}".into(),
        active_turn_id: None,
        doc: format!(r#"{{"id":"{id}","n":1.50}}"#),
        agent: None,
    }
}

pub fn turn(session_id: &str, id: &str) -> TurnRecord {
    TurnRecord {
        id: id.to_owned(),
        session_id: session_id.to_owned(),
        doc: format!(r#"{{"turn":"{id}"}}"#),
    }
}

pub fn item(session_id: &str, turn_id: &str, id: &str) -> ItemRecord {
    ItemRecord {
        id: id.to_owned(),
        session_id: session_id.to_owned(),
        turn_id: turn_id.to_owned(),
        doc: format!(r#"{{"item":"{id}"}}"#),
    }
}

/// A write that creates a Session with one Turn and the given Items of it.
pub fn session_with(id: &str, turn_id: &str, items: &[&str]) -> SessionWrite {
    SessionWrite {
        session: Some(session(id)),
        turns: vec![turn(id, turn_id)],
        items: items.iter().map(|i| item(id, turn_id, i)).collect(),
        ..Default::default()
    }
}

pub fn page(after: Option<&str>, limit: u32, order: Order) -> PageQuery {
    PageQuery {
        after: after.map(str::to_owned),
        limit,
        order,
    }
}

/// The deletion of a Session that ran on the deployment Runtimes, with no workspace.
pub fn deletion(id: &str) -> DeletionRecord {
    DeletionRecord {
        session_id: id.to_owned(),
        project_id: P.into(),
        environment_id: None,
        workspace_id: None,
        workspace_runtime: None,
        created_at: 7,
    }
}

/// An Agent row of about one database page (a 3,000-byte config): writing many of these
/// grows the SQLite WAL by about a frame each.
pub fn one_page_agent(id: &str) -> AgentRecord {
    AgentRecord {
        project_id: P.into(),
        id: id.to_owned(),
        created_at: 1,
        updated_at: 1,
        config: format!(r#"{{"pad":"{}"}}"#, "x".repeat(3000)),
    }
}
