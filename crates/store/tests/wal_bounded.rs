//! On SQLite, checkpoints run beside the writer, not inside its commits, and the write-ahead log
//! still stays bounded under a steady stream of writes: many times the cap's worth of pages are
//! written, the `-wal` file never grows past the cap (plus one batch), and every answered write is
//! in the database afterwards. That holds for concurrent writers, whose writes the writer thread
//! batches, and for a lone one, whose writes are committed inline on its own thread when they
//! come far enough apart (`writer.rs`'s unit test takes that path alone).

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use support::{P, one_page_agent};
use switchboard_store::checkpointer::WAL_CAP_FRAMES;
use switchboard_store::{PageQuery, SqliteStore, Store};

/// SQLite's default page size, which the store keeps; a WAL frame is a page and a 24-byte header.
const FRAME_BYTES: u64 = 4096 + 24;
/// Rows written in all: about one page each, 16,000 rows are twice the cap in leaf pages alone.
const ROWS: usize = 16_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_stays_bounded_while_writes_keep_coming() {
    stays_bounded(16).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_stays_bounded_under_a_lone_writer() {
    stays_bounded(1).await;
}

/// `writers` tasks write [`ROWS`] rows between them, each waiting for its last write's answer.
async fn stays_bounded(writers: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let wal = dir.path().join("db.sqlite-wal");
    let s: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
    let largest = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for w in 0..writers {
        let (s, wal, largest) = (s.clone(), wal.clone(), largest.clone());
        tasks.push(tokio::spawn(async move {
            for i in 0..ROWS / writers {
                s.insert_agent(&one_page_agent(&format!("a{w}-{i}")))
                    .await
                    .unwrap();
                let len = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
                largest.fetch_max(len, Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }

    // One batch holds at most 16 rows here (one per writer), a few dozen frames with its index
    // pages; 256 frames is ample.
    let bound = 32 + (WAL_CAP_FRAMES as u64 + 256) * FRAME_BYTES;
    let largest = largest.load(Ordering::Relaxed);
    assert!(
        largest <= bound,
        "the -wal file reached {largest} bytes, more than the cap's {bound}"
    );

    // Every answered write is there, read through another store on the same file.
    let other = SqliteStore::open(&path).await.unwrap();
    let mut seen = 0;
    let mut after = None;
    loop {
        let page = other
            .list_agents(
                P,
                &PageQuery {
                    limit: 100,
                    after: after.take(),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        seen += page.data.len();
        match page.data.last() {
            Some(last) if page.has_more => after = Some(last.id.clone()),
            _ => break,
        }
    }
    assert_eq!(seen, ROWS);
}
