//! Migrating a data dir made before Projects (issue 16) keeps every resource, in the first
//! Project; another Project sees none of it. The old data dir is built by the migrations before
//! the Projects one, with rows written in that schema.

use std::path::Path;
use std::str::FromStr;

use sqlx::ConnectOptions;
use sqlx::sqlite::SqliteConnectOptions;
use switchboard_store::{PageQuery, SqliteStore, Store, SubagentStore, VaultFilter, VaultStore};

/// The migrations before `0018_projects.sql`, copied into `into`.
fn old_migrations(into: &Path) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if name.as_str() < "0018" {
            std::fs::copy(&path, into.join(name)).unwrap();
        }
    }
}

/// One row of every kind, written in the schema before Projects.
const OLD_ROWS: &[&str] = &[
    "INSERT INTO api_keys (id, digest, hint, created_at) VALUES ('key_1', 'd1', 'sk-sb-abcd', 1)",
    "INSERT INTO agents (id, created_at, updated_at, config) VALUES ('agent_1', 1, 1, '{}')",
    "INSERT INTO sessions (id, created_at, metadata, doc) VALUES ('sess_1', 1, '{}', '{\"n\":1}')",
    "INSERT INTO turns (id, session_id, doc) VALUES ('turn_1', 'sess_1', '{}')",
    "INSERT INTO items (id, session_id, turn_id, doc) VALUES ('item_1', 'sess_1', 'turn_1', '{}')",
    "INSERT INTO calls (session_id, call_id, turn_id, doc) VALUES ('sess_1', 'c1', 'turn_1', '{}')",
    "INSERT INTO idempotency (session_id, key, fingerprint, created_at) VALUES ('sess_1', 'k', 'f', 1)",
    "INSERT INTO session_create_keys (key, session_id, fingerprint, created_at) VALUES ('ck', 'sess_1', 'f', 1)",
    "INSERT INTO subagents (id, session_id, doc) VALUES ('subagent_1', 'sess_1', '{}')",
    "INSERT INTO environments (id, created_at, kind, credential_digest, doc) VALUES ('env_1', 1, 'self_hosted', 'cd', '{}')",
    "INSERT INTO vaults (id, created_at, status, metadata, doc) VALUES ('vault_1', 1, 'active', '{}', '{}')",
    "INSERT INTO vault_credentials (id, vault_id, created_at, status, metadata, doc) VALUES ('cred_1', 'vault_1', 1, 'active', '{}', '{}')",
    "INSERT INTO session_deletions (session_id, created_at) VALUES ('sess_0', 1)",
];

#[tokio::test]
async fn an_old_data_dir_keeps_every_resource_in_the_first_project() {
    let dir = tempfile::tempdir().unwrap();
    let migrations = dir.path().join("old");
    std::fs::create_dir(&migrations).unwrap();
    old_migrations(&migrations);
    let db = dir.path().join("db.sqlite");
    {
        let mut conn = SqliteConnectOptions::from_str(&format!("sqlite://{}", db.display()))
            .unwrap()
            .create_if_missing(true)
            .foreign_keys(true)
            .connect()
            .await
            .unwrap();
        let old = sqlx::migrate::Migrator::new(migrations.as_path())
            .await
            .unwrap();
        old.run(&mut conn).await.unwrap();
        for sql in OLD_ROWS {
            sqlx::query(*sql).execute(&mut conn).await.unwrap();
        }
    }

    let store = SqliteStore::open(&db).await.unwrap();
    let projects = store.list_projects().await.unwrap();
    assert_eq!(projects.len(), 1, "{projects:?}");
    let p = projects[0].id.clone();
    assert!(
        p.starts_with("proj_") && p.len() == "proj_".len() + 32,
        "{p}"
    );
    assert_eq!(projects[0].archived_at, None);

    let keys = store.list_api_keys().await.unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].project_id, p);
    assert_eq!(
        store
            .active_api_key("d1")
            .await
            .unwrap()
            .unwrap()
            .project_id,
        p
    );
    let q = PageQuery::default();
    let f = VaultFilter::default();
    let session = store.get_session(&p, "sess_1").await.unwrap().unwrap();
    assert_eq!(
        (session.project_id.as_str(), session.doc.as_str()),
        (p.as_str(), "{\"n\":1}")
    );
    assert_eq!(
        store
            .get_agent(&p, "agent_1")
            .await
            .unwrap()
            .unwrap()
            .project_id,
        p
    );
    assert!(
        store
            .get_turn(&p, "sess_1", "turn_1")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store
            .list_items(&p, "sess_1", None, &q)
            .await
            .unwrap()
            .data
            .len(),
        1
    );
    assert!(store.get_call(&p, "sess_1", "c1").await.unwrap().is_some());
    assert_eq!(
        store
            .get_idempotency(&p, "sess_1", "k")
            .await
            .unwrap()
            .unwrap()
            .project_id,
        p
    );
    assert_eq!(
        store
            .get_create_key(&p, "ck")
            .await
            .unwrap()
            .unwrap()
            .session_id,
        "sess_1"
    );
    assert!(
        store
            .get_subagent(&p, "sess_1", "subagent_1")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store
            .get_environment(&p, "env_1")
            .await
            .unwrap()
            .unwrap()
            .project_id,
        p
    );
    assert_eq!(
        store
            .environment_by_credential("cd")
            .await
            .unwrap()
            .unwrap()
            .project_id,
        p
    );
    assert_eq!(
        store
            .get_vault(&p, "vault_1")
            .await
            .unwrap()
            .unwrap()
            .project_id,
        p
    );
    assert_eq!(
        store
            .get_credential(&p, "vault_1", "cred_1")
            .await
            .unwrap()
            .unwrap()
            .project_id,
        p
    );
    assert_eq!(store.pending_deletions().await.unwrap()[0].project_id, p);

    // Another Project sees none of it.
    let other = "proj_0000000000000000000000000000000b";
    assert!(store.get_session(other, "sess_1").await.unwrap().is_none());
    assert!(store.get_agent(other, "agent_1").await.unwrap().is_none());
    assert!(
        store
            .get_turn(other, "sess_1", "turn_1")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .list_items(other, "sess_1", None, &q)
            .await
            .unwrap()
            .data
            .is_empty()
    );
    assert!(
        store
            .get_call(other, "sess_1", "c1")
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.get_create_key(other, "ck").await.unwrap().is_none());
    assert!(
        store
            .get_subagent(other, "sess_1", "subagent_1")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .get_environment(other, "env_1")
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.get_vault(other, "vault_1").await.unwrap().is_none());
    assert!(
        store
            .get_credential(other, "vault_1", "cred_1")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .list_sessions(other, &q, &Default::default())
            .await
            .unwrap()
            .data
            .is_empty()
    );
    assert!(
        store
            .list_vaults(other, &q, &f)
            .await
            .unwrap()
            .data
            .is_empty()
    );
    assert!(!store.delete_agent(other, "agent_1").await.unwrap());
    assert!(!store.delete_vault(other, "vault_1").await.unwrap());
    assert!(store.get_agent(&p, "agent_1").await.unwrap().is_some());

    // Opening again runs nothing twice: still one Project.
    drop(store);
    let store = SqliteStore::open(&db).await.unwrap();
    assert_eq!(store.list_projects().await.unwrap().len(), 1);
}

#[tokio::test]
async fn an_archived_projects_keys_are_not_active() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("db.sqlite"))
        .await
        .unwrap();
    let first = store.list_projects().await.unwrap()[0].id.clone();
    let key = switchboard_store::ApiKeyRecord {
        id: "key_1".into(),
        project_id: first.clone(),
        digest: "d".into(),
        hint: "h".into(),
        created_at: 1,
        revoked_at: None,
    };
    store.insert_api_key(&key).await.unwrap();
    assert!(store.active_api_key("d").await.unwrap().is_some());
    assert!(store.archive_project(&first, 2).await.unwrap());
    assert!(!store.archive_project(&first, 3).await.unwrap());
    assert!(store.active_api_key("d").await.unwrap().is_none());
    assert_eq!(
        store
            .get_project(&first)
            .await
            .unwrap()
            .unwrap()
            .archived_at,
        Some(2)
    );
}
