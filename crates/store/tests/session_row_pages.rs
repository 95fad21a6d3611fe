//! On SQLite, a Turn's start and end rewrite the Session row and its entry in the unsettled
//! index, and nothing else: the row's other indexes (its agent's, for `sessions.list?agent_id=`)
//! and `sqlite_sequence` are left alone, as their values do not change. Measured as the frames
//! the write-ahead log grows by, one page each.

use crate::support;

use support::{P, session, session_with};
use switchboard_store::{SessionRecord, SessionWrite, SqliteStore, Store};

/// SQLite's default page size, which the store keeps; a WAL frame is a page and a 24-byte header.
const FRAME_BYTES: u64 = 4096 + 24;

#[tokio::test]
async fn a_turns_start_and_end_write_two_pages_each() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let wal = dir.path().join("db.sqlite-wal");
    let s = SqliteStore::open(&path).await.unwrap();
    let frames = || std::fs::metadata(&wal).unwrap().len() / FRAME_BYTES;
    let idle = SessionRecord {
        agent_id: Some("agent_1".into()),
        ..session("sess_1")
    };
    s.write_session(SessionWrite {
        session: Some(idle.clone()),
        ..session_with("sess_1", "turn_1", &[])
    })
    .await
    .unwrap();

    let running = SessionRecord {
        active_turn_id: Some("turn_2".into()),
        doc: r#"{"status":"running"}"#.into(),
        ..idle.clone()
    };
    for (rec, what) in [(&running, "a Turn's start"), (&idle, "a Turn's end")] {
        let before = frames();
        s.write_session(SessionWrite {
            session: Some(rec.clone()),
            ..Default::default()
        })
        .await
        .unwrap();
        assert_eq!(
            frames() - before,
            2,
            "{what}: the row's page and the unsettled index"
        );
        assert_eq!(
            s.get_session(P, "sess_1").await.unwrap().as_ref(),
            Some(rec)
        );
    }
}
