//! WAL checkpoints off the commit path.
//!
//! SQLite's default auto-checkpoint runs inside the `COMMIT` that takes the write-ahead log past
//! 1000 frames: that commit copies the log into the database file and `fsync`s both, and every
//! caller waiting on the writer waits with it. Under a steady stream of writes that was a stall of
//! milliseconds every few dozen batches (issue 16: in `front_door`'s Agent-create window the CPUs
//! sat 16–19 % idle and 5 % in I/O wait while the writer was blocked in `fsync`).
//!
//! So the writer's connection registers a WAL hook instead (which also turns SQLite's
//! auto-checkpoint off on it) and, after a commit that left the log long, wakes this thread,
//! which runs a `PASSIVE` checkpoint on its own connection: it copies what it can and syncs
//! without taking the write lock, so the writer keeps committing meanwhile. A passive checkpoint
//! cannot restart the log while commits keep arriving; if the log reaches [`WAL_CAP_FRAMES`]
//! anyway, the writer checkpoints between two batches itself, when nothing can be appended, so
//! the next batch starts the log from its beginning again. The log stays bounded; durability is
//! unchanged (a commit is in the WAL before its caller is answered, as before).

use std::cell::Cell;
use std::os::raw::c_int;
use std::path::Path;
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::hooks::Wal;
use rusqlite::{Connection, OpenFlags};

use crate::{Result, StoreError};

/// Frames in the log after which a commit wakes the checkpointer (SQLite's own threshold).
pub(crate) const CHECKPOINT_FRAMES: i32 = 1000;

/// Frames in the log after which the writer checkpoints itself between batches.
pub const WAL_CAP_FRAMES: i32 = 8 * CHECKPOINT_FRAMES;

thread_local! {
    /// Frames in the log after the writer thread's last commit (set by the WAL hook, which
    /// SQLite calls on the committing thread; each store's writer is its own thread).
    static WAL_FRAMES: Cell<c_int> = const { Cell::new(0) };
}

fn note_frames(_: &Wal, frames: c_int) -> rusqlite::Result<()> {
    WAL_FRAMES.set(frames);
    Ok(())
}

/// The writer's side of the checkpointer thread.
pub(crate) struct Checkpointer {
    wake: SyncSender<()>,
    /// The log's length when the checkpointer was last woken: one pass per
    /// [`CHECKPOINT_FRAMES`] new frames, not one per batch while the log stays long.
    woken_at: Cell<c_int>,
    /// Held for every pass: SQLite lets one checkpoint run at a time and a second one returns
    /// at once without doing anything, so the writer's pass at the cap waits for the
    /// background one to end instead of missing its turn.
    passes: Arc<Mutex<()>>,
}

impl Checkpointer {
    /// Starts the checkpointer thread on its own connection to the database at `path`, and
    /// hooks the writer's connection `writer` to it.
    pub(crate) fn start(path: &Path, writer: &Connection) -> Result<Checkpointer> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // One pending wake-up is enough: a pass started after it sees every commit before it.
        let (wake, woken) = mpsc::sync_channel::<()>(1);
        let passes = Arc::new(Mutex::new(()));
        let held = passes.clone();
        std::thread::Builder::new()
            .name("sqlite-checkpointer".into())
            .spawn(move || {
                // Ends when the writer thread drops its side.
                while woken.recv().is_ok() {
                    let _pass = held.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Err(e) = passive(&conn) {
                        tracing::warn!(error = %e, "background WAL checkpoint failed");
                    }
                }
            })
            .map_err(|e| StoreError::Batch(format!("the checkpointer did not start: {e}")))?;
        writer.wal_hook(Some(note_frames));
        Ok(Checkpointer {
            wake,
            woken_at: Cell::new(0),
            passes,
        })
    }

    /// Called by the writer thread after a batch's callers are answered.
    pub(crate) fn after_batch(&self, writer: &Connection) {
        let frames = WAL_FRAMES.replace(0);
        if frames == 0 {
            return; // nothing committed
        }
        if frames < self.woken_at.get() {
            self.woken_at.set(0); // the log restarted
        }
        if frames >= WAL_CAP_FRAMES {
            // Nothing is appended while this runs, so it can finish and the next batch restarts
            // the log (unless a reader still holds an old snapshot: then at a later batch).
            let _pass = self.passes.lock().unwrap_or_else(PoisonError::into_inner);
            if let Err(e) = passive(writer) {
                tracing::warn!(error = %e, "WAL checkpoint at the cap failed");
            }
        } else if frames - self.woken_at.get() >= CHECKPOINT_FRAMES {
            // Full means a pass is already due; it will see this commit too.
            let _ = self.wake.try_send(());
            self.woken_at.set(frames);
        }
    }
}

fn passive(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
}
