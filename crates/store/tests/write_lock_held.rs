//! On SQLite, a write made while another connection holds the database's write lock (another
//! process, such as `switchboard keys create` on the Core host) waits for that lock on the
//! writer thread, not on the caller's, and lands once the lock is released.

use crate::support;

use std::sync::Arc;
use std::time::Instant;

use support::{P, one_page_agent};
use switchboard_store::writer::BUSY_TIMEOUT;
use switchboard_store::{SqliteStore, Store};

/// One thread runs every task here: a write that waited for the lock on the caller's thread
/// would stop every other task on it, the one holding the lock's release included, until the
/// busy timeout.
#[tokio::test(flavor = "current_thread")]
async fn a_write_waits_for_another_connections_lock_off_the_callers_thread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let s = Arc::new(SqliteStore::open(&path).await.unwrap());
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();

    let write = tokio::spawn({
        let s = s.clone();
        async move { s.insert_agent(&one_page_agent("a1")).await }
    });
    // The spawned write runs its first poll before this task runs again.
    let yielded = Instant::now();
    tokio::task::yield_now().await;
    assert!(
        yielded.elapsed() < BUSY_TIMEOUT / 2,
        "the write's first poll held the thread for {:?}",
        yielded.elapsed()
    );
    assert!(
        !write.is_finished(),
        "the write ended while another connection held the lock: {:?}",
        write.await
    );
    assert_eq!(s.get_agent(P, "a1").await.unwrap(), None);

    other.execute_batch("COMMIT").unwrap();
    write.await.unwrap().unwrap();
    assert_eq!(
        s.get_agent(P, "a1").await.unwrap().map(|a| a.id),
        Some("a1".into())
    );
}
