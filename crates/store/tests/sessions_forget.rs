//! A deleted Session leaves nothing of its content in the database files: `secure_delete`
//! overwrites its rows and the WAL is checkpointed and truncated after the delete. Only the
//! deletion record (IDs) stays until the Runtime confirms.

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use support::{P, deletion, item, one_page_agent, session_with, store};
use switchboard_store::{
    CallRecord, EnvironmentRecord, EventRecord, IdempotencyRecord, SessionWrite, Store,
};

const MARKER: &str = "zebra-quartz-4417-marker";

/// How often `needle` occurs in the bytes of every file of `dir` (the db, `-wal`, `-shm`).
fn hits(dir: &Path, needle: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .map(|bytes| {
            bytes
                .windows(needle.len())
                .filter(|w| *w == needle.as_bytes())
                .count()
        })
        .sum()
}

fn with_marker(id: &str) -> SessionWrite {
    let mut w = session_with(id, &format!("{id}_t"), &[]);
    let mut s = w.session.take().unwrap();
    s.doc = format!(r#"{{"id":"{id}","note":"{MARKER}"}}"#);
    s.metadata = format!(r#"{{"k":"{MARKER}"}}"#);
    w.session = Some(s);
    w.turns[0].doc = format!(r#"{{"turn":"{MARKER}"}}"#);
    let mut i = item(id, &format!("{id}_t"), &format!("{id}_i"));
    i.doc = format!(r#"{{"text":"{}"}}"#, MARKER.repeat(400));
    w.items = vec![i];
    w.calls = vec![CallRecord {
        session_id: id.into(),
        call_id: "call_1".into(),
        turn_id: format!("{id}_t"),
        doc: format!(r#"{{"result":"{MARKER}"}}"#),
    }];
    w.idempotency = Some(IdempotencyRecord {
        project_id: P.into(),
        session_id: id.into(),
        key: "key_1".into(),
        fingerprint: "f".into(),
        created_at: 1,
    });
    w.create_key = Some(IdempotencyRecord {
        project_id: P.into(),
        session_id: id.into(),
        key: "create_1".into(),
        fingerprint: "g".into(),
        created_at: 1,
    });
    // An event row (PostgreSQL keeps them for other replicas' streams) with the content too.
    w.events = vec![EventRecord {
        session_id: id.into(),
        seq: 1,
        project_id: P.into(),
        kind: "agent.session.turn.output_text.delta".into(),
        json: format!(r#"{{"delta":"{}"}}"#, MARKER.repeat(400)),
        created_at: 1,
    }];
    w
}

#[tokio::test]
async fn a_deleted_session_leaves_no_content_in_the_db_wal_or_shm() {
    let (dir, s) = store().await;
    let id = "sess_forgetme01";
    s.write_session(with_marker(id)).await.unwrap();
    s.put_environment(&EnvironmentRecord {
        project_id: P.into(),
        id: "env_own01".into(),
        created_at: 1,
        kind: "openai_hosted".into(),
        enrollment_digest: None,
        credential_digest: None,
        doc: format!(r#"{{"session_id":"{id}","name":"{MARKER}"}}"#),
    })
    .await
    .unwrap();
    s.write_session(session_with("sess_other", "t2", &["i2"]))
        .await
        .unwrap();
    assert!(hits(dir.path(), MARKER) > 0, "the marker was written");

    let mut d = deletion(id);
    d.workspace_id = Some("env_own01".into());
    assert!(s.delete_session(P, &d, Some("env_own01")).await.unwrap());
    assert_eq!(hits(dir.path(), MARKER), 0);
    assert_eq!(s.get_environment(P, "env_own01").await.unwrap(), None);
    // Until the Runtime confirms, the deletion record (IDs only) names it.
    assert_eq!(s.pending_deletions().await.unwrap(), vec![d]);

    s.finish_deletion(id).await.unwrap();
    assert!(s.pending_deletions().await.unwrap().is_empty());
    assert_eq!(hits(dir.path(), MARKER), 0);
    assert_eq!(hits(dir.path(), id), 0, "the Session ID is gone too");
    assert!(s.get_session(P, "sess_other").await.unwrap().is_some());
}

/// The same while other writes keep the WAL long, so background checkpoints are running when
/// the delete's truncating checkpoint comes (it waits its turn rather than giving up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_session_leaves_no_content_while_other_writes_keep_coming() {
    let (dir, s) = store().await;
    let s: Arc<dyn Store> = Arc::new(s);
    let id = "sess_forgetme03";
    s.write_session(with_marker(id)).await.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicUsize::new(0));
    let mut load = Vec::new();
    for w in 0..8 {
        let (s, stop, written) = (s.clone(), stop.clone(), written.clone());
        load.push(tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                s.insert_agent(&one_page_agent(&format!("agent_{w}_{i}")))
                    .await
                    .unwrap();
                written.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
        }));
    }
    // About a page a row: past the frames that wake the background checkpointer, twice over.
    while written.load(Ordering::Relaxed) < 2500 {
        tokio::task::yield_now().await;
    }
    assert!(s.delete_session(P, &deletion(id), None).await.unwrap());
    stop.store(true, Ordering::Relaxed);
    for t in load {
        t.await.unwrap();
    }
    assert_eq!(hits(dir.path(), MARKER), 0);
}

/// PostgreSQL keeps a deleted row in its page until VACUUM; the delete vacuums, so after a
/// checkpoint the table files hold none of the Session's content. (The WAL still does until its
/// segments are overwritten: see `PgStore`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_session_leaves_no_content_in_the_postgres_table_files() {
    let test = "sessions_forget::postgres";
    let Some(db) = switchboard_store::test_support::database_or_skip(test).await else {
        return;
    };
    let s = switchboard_store::PgStore::open(&db.url).await.unwrap();
    let checkpoint = || async {
        let mut c = <sqlx::PgConnection as sqlx::Connection>::connect(&db.url)
            .await
            .unwrap();
        sqlx::Executor::execute(&mut c, "CHECKPOINT").await.unwrap();
    };
    let id = "sess_forgetme02";
    s.write_session(with_marker(id)).await.unwrap();
    s.write_session(session_with("sess_other", "t2", &["i2"]))
        .await
        .unwrap();
    checkpoint().await;
    let tables = db.data_dir.join("base");
    assert!(hits_under(&tables, MARKER) > 0, "the marker was written");

    assert_eq!(s.events_after(id, 0).await.unwrap().len(), 1);
    assert!(s.delete_session(P, &deletion(id), None).await.unwrap());
    assert!(s.events_after(id, 0).await.unwrap().is_empty());
    s.finish_deletion(id).await.unwrap();
    checkpoint().await;
    assert_eq!(hits_under(&tables, MARKER), 0);
    assert!(s.get_session(P, "sess_other").await.unwrap().is_some());
}

/// [`hits`] over every file below `dir`.
fn hits_under(dir: &Path, needle: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                hits_under(&p, needle)
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                bytes
                    .windows(needle.len())
                    .filter(|w| *w == needle.as_bytes())
                    .count()
            }
        })
        .sum()
}

both_engines! {
    async fn deleting_an_absent_session_records_nothing(s) {
        assert!(!s.delete_session(P, &deletion("never"), None).await.unwrap());
        assert!(s.pending_deletions().await.unwrap().is_empty());
    }
}
