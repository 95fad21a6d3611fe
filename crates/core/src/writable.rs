//! Whether the store can be written, for `/readyz` (issue 13, item 6).
//!
//! A server whose data directory went read-only or whose disk filled fails every write; its
//! readiness must say so. The probe writes one byte to a file in the data directory (the disk)
//! and rewrites one row in the store (the database file and its journal); the answer is kept
//! for [`Writability::FRESH`] so a busy probe endpoint costs at most one write a second.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use switchboard_store::Store;

use crate::sync::lock;

pub struct Writability {
    probe_file: PathBuf,
    last: std::sync::Mutex<Option<(Instant, Result<(), String>)>>,
}

impl Writability {
    pub const FRESH: std::time::Duration = std::time::Duration::from_secs(1);

    pub fn new(data_dir: &std::path::Path) -> Self {
        Writability {
            probe_file: data_dir.join(".write-probe"),
            last: Default::default(),
        }
    }

    /// `Ok` when the store was writable at most [`Self::FRESH`] ago; else why not.
    pub async fn check(&self, store: &dyn Store) -> Result<(), String> {
        if let Some((at, answer)) = lock(&self.last).as_ref()
            && at.elapsed() < Self::FRESH
        {
            return answer.clone();
        }
        let answer = self.probe(store).await;
        if let Err(reason) = &answer {
            tracing::warn!(reason = %reason, "the store cannot be written");
        }
        *lock(&self.last) = Some((Instant::now(), answer.clone()));
        answer
    }

    async fn probe(&self, store: &dyn Store) -> Result<(), String> {
        let file = self.probe_file.clone();
        let disk = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&file)?;
            f.write_all(b"1")?;
            f.sync_all()?;
            drop(f);
            std::fs::remove_file(&file)
        })
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r.map_err(|e| format!("the data directory cannot be written: {e}")));
        disk?;
        store
            .probe_write(crate::unix_now())
            .await
            .map_err(|e| format!("the store cannot be written: {e}"))
    }
}
