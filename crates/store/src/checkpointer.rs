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
//! anyway, the writer thread checkpoints between two batches itself, when nothing can be
//! appended, so the next batch starts the log from its beginning again. (A commit made inline,
//! on a caller's thread, leaves that pass to the writer thread, before its next batch.) The log
//! stays bounded; durability is unchanged (a commit is in the WAL before its caller is
//! answered, as before). The truncating checkpoint after a delete (which empties the `-wal` file
//! of the deleted rows' frames) runs on this thread too, so it never collides with a background
//! pass and returns having done nothing.

use std::cell::Cell;
use std::os::raw::c_int;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;
use rusqlite::hooks::Wal;
use tokio::sync::{mpsc, oneshot};

use crate::{Result, StoreError};

/// Frames in the log after which a commit wakes the checkpointer (SQLite's own threshold).
pub(crate) const CHECKPOINT_FRAMES: i32 = 1000;

/// Frames in the log after which the writer checkpoints itself between batches.
pub const WAL_CAP_FRAMES: i32 = 8 * CHECKPOINT_FRAMES;

thread_local! {
    /// Frames in the log after this thread's last commit on a write connection: set by the WAL
    /// hook, which SQLite calls on the committing thread, and read by
    /// [`Checkpointer::after_commit`] on the same thread straight after, with the connection
    /// still held.
    static WAL_FRAMES: Cell<c_int> = const { Cell::new(0) };
}

fn note_frames(_: &Wal, frames: c_int) -> rusqlite::Result<()> {
    WAL_FRAMES.set(frames);
    Ok(())
}

/// What the checkpointer thread is asked to do.
enum Pass {
    /// Copy what it can without waiting for anyone (after commits left the log long).
    Passive,
    /// Copy everything and truncate the log to zero bytes, waiting (the busy timeout) for the
    /// writer and readers; answers whether it completed.
    Truncate(oneshot::Sender<rusqlite::Result<bool>>),
}

/// The writer's side of the checkpointer thread.
pub(crate) struct Checkpointer {
    inbox: mpsc::UnboundedSender<Pass>,
    /// A passive pass is asked for and not started yet: one is enough, since a pass started
    /// after it sees every commit before it.
    due: Arc<AtomicBool>,
    /// The log's length when the checkpointer was last woken: one pass per
    /// [`CHECKPOINT_FRAMES`] new frames, not one per batch while the log stays long.
    woken_at: Cell<c_int>,
    /// A commit made inline took the log to [`WAL_CAP_FRAMES`]: the writer thread checkpoints
    /// before its next batch, and no commit is made inline until then.
    cap_due: Cell<bool>,
    /// Held for every pass: SQLite lets one checkpoint run at a time and a second one returns
    /// at once without doing anything, so the writer's pass at the cap waits for the
    /// background one to end instead of missing its turn.
    passes: Arc<Mutex<()>>,
}

/// A handle that asks the checkpointer thread for a truncating checkpoint.
#[derive(Clone)]
pub(crate) struct Truncator {
    inbox: mpsc::UnboundedSender<Pass>,
}

impl Truncator {
    /// Checkpoints the whole log and truncates it; whether that completed (a reader holding
    /// an old snapshot past the busy timeout leaves it incomplete).
    pub(crate) async fn truncate(&self) -> Result<bool> {
        let (reply, answer) = oneshot::channel();
        self.inbox
            .send(Pass::Truncate(reply))
            .map_err(|_| StoreError::WriterGone)?;
        Ok(answer.await.map_err(|_| StoreError::WriterGone)??)
    }
}

impl Checkpointer {
    /// Starts the checkpointer thread on its own connection to the database at `path`, and
    /// hooks the writer's connection `writer` to it.
    pub(crate) fn start(path: &Path, writer: &Connection) -> Result<(Checkpointer, Truncator)> {
        // A passive pass never waits; a truncating one waits for the writer's batch and for
        // readers as long as a write would (the connection's busy timeout).
        let conn = crate::writer::open_connection(path)?;
        let (inbox, mut passes_asked) = mpsc::unbounded_channel::<Pass>();
        let due = Arc::new(AtomicBool::new(false));
        let passes = Arc::new(Mutex::new(()));
        let (held, started) = (passes.clone(), due.clone());
        std::thread::Builder::new()
            .name("sqlite-checkpointer".into())
            .spawn(move || {
                // Ends when the writer thread and every store handle have dropped their sides.
                while let Some(pass) = passes_asked.blocking_recv() {
                    let _pass = held.lock().unwrap_or_else(PoisonError::into_inner);
                    match pass {
                        Pass::Passive => {
                            started.store(false, Ordering::Release);
                            if let Err(e) = checkpoint(&conn, "PRAGMA wal_checkpoint(PASSIVE)") {
                                tracing::warn!(error = %e, "background WAL checkpoint failed");
                            }
                        }
                        Pass::Truncate(reply) => {
                            let _ =
                                reply.send(checkpoint(&conn, "PRAGMA wal_checkpoint(TRUNCATE)"));
                        }
                    }
                }
            })
            .map_err(|e| StoreError::Batch(format!("the checkpointer did not start: {e}")))?;
        writer.wal_hook(Some(note_frames));
        let truncator = Truncator {
            inbox: inbox.clone(),
        };
        let checkpointer = Checkpointer {
            inbox,
            due,
            woken_at: Cell::new(0),
            cap_due: Cell::new(false),
            passes,
        };
        Ok((checkpointer, truncator))
    }

    /// Called after a commit, on the thread that made it and with the write connection still
    /// held: wakes the background pass when the log grew by [`CHECKPOINT_FRAMES`], and at
    /// [`WAL_CAP_FRAMES`] checkpoints on the writer's connection, at once on the writer thread
    /// (`on_writer_thread`) or, after a commit made inline, before the writer thread's next batch.
    pub(crate) fn after_commit(&self, writer: &Connection, on_writer_thread: bool) {
        let frames = WAL_FRAMES.replace(0);
        if frames == 0 {
            return; // nothing committed
        }
        if frames < self.woken_at.get() {
            self.woken_at.set(0); // the log restarted
        }
        if frames >= WAL_CAP_FRAMES {
            if on_writer_thread {
                self.checkpoint_at_cap(writer);
            } else {
                self.cap_due.set(true);
            }
        } else if frames - self.woken_at.get() >= CHECKPOINT_FRAMES {
            if !self.due.swap(true, Ordering::AcqRel) {
                let _ = self.inbox.send(Pass::Passive);
            }
            self.woken_at.set(frames);
        }
    }

    /// Whether a commit may be made inline: not while a checkpoint at the cap is owed.
    pub(crate) fn inline_allowed(&self) -> bool {
        !self.cap_due.get()
    }

    /// Called by the writer thread before a batch: the checkpoint at the cap that a commit
    /// made inline left to it.
    pub(crate) fn before_batch(&self, writer: &Connection) {
        if self.cap_due.replace(false) {
            self.checkpoint_at_cap(writer);
        }
    }

    /// Nothing is appended while this runs (the caller holds the write connection), so it can
    /// finish and the next commit restarts the log (unless a reader still holds an old
    /// snapshot: then at a later commit).
    fn checkpoint_at_cap(&self, writer: &Connection) {
        let _pass = self.passes.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = checkpoint(writer, "PRAGMA wal_checkpoint(PASSIVE)") {
            tracing::warn!(error = %e, "WAL checkpoint at the cap failed");
        }
    }
}

/// Runs a `wal_checkpoint` pragma; whether it completed (its first column, `busy`, is 0).
fn checkpoint(conn: &Connection, pragma: &str) -> rusqlite::Result<bool> {
    conn.query_row(pragma, [], |row| Ok(row.get::<_, i64>(0)? == 0))
}
