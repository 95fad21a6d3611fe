//! Shared by the tests: a fresh store per test, and small Session record builders.
#![allow(dead_code)] // each test binary uses its own share of these

use switchboard_store::{
    DeletionRecord, ItemRecord, Order, PageQuery, SessionRecord, SessionWrite, SqliteStore,
    TurnRecord,
};

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
