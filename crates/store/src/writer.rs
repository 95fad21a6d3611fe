//! Group commit: one thread owns SQLite's single write connection and commits many callers'
//! writes in one transaction.
//!
//! SQLite allows one writer at a time and a commit costs far more than an insert, so writes from
//! concurrent requests queue here; the thread takes everything that is waiting, runs each caller's
//! statements inside its own savepoint (a failing write rolls back alone), commits once, and only
//! then answers every caller. A caller's write is durable when its answer arrives.
//!
//! The write connection is a plain (`rusqlite`) connection driven synchronously on its own
//! thread, not an sqlx one: sqlx runs every statement as a round trip to its worker thread, and
//! a batch of `n` writes was `n + 2` such round trips (`BEGIN`, each statement, `COMMIT`) of
//! about 70 µs each on a busy machine, so the writer spent ~700 µs a batch waiting on thread
//! hand-offs while SQLite's own work was a few µs a statement (issue 16, `docs/benchmarks.md`).
//! Here a batch costs one hand-off in and one answer out. Reads stay on sqlx's pool. Checkpoints
//! of the write-ahead log run on a thread of their own (`checkpointer`), not inside a commit.
//!
//! A write that comes after a quiet spell (no write for `QUIET`, 100 µs, none in flight) and
//! finds the connection free does not wait for the thread at all: the caller commits it inline,
//! on its own thread, with the same connection (issue 18).
//! A commit is tens of microseconds of SQLite's work and a `write(2)` into the page cache
//! (`synchronous = NORMAL` does not `fsync` a commit in WAL mode); the two hand-offs it saves
//! (wake the writer, wake the caller's task) cost about as much CPU again in the scheduler,
//! about nine times per function Turn, on a machine whose CPUs the harness needs. The caller
//! never waits there: a connection held by the writer thread (or another inline commit), or
//! another process's write lock, sends the write through the queue, whose thread waits as
//! before. So a stream of writes still batches, and a caller's task blocks its thread only for
//! a commit's own work.

use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OpenFlags};
use sqlx::sqlite::SqliteArguments;
use sqlx::{Arguments, Connection as _, SqliteConnection};
use tokio::sync::{mpsc, oneshot};

use crate::checkpointer::{Checkpointer, Truncator};
use crate::{Result, StoreError};

/// A bound value.
#[derive(Debug, Clone)]
pub enum Bind {
    Text(String),
    OptText(Option<String>),
    I64(i64),
    OptI64(Option<i64>),
}

/// One SQL statement with its binds.
#[derive(Debug, Clone)]
pub struct Statement {
    pub sql: &'static str,
    pub binds: Vec<Bind>,
    /// Narrow `UPDATE`s of the row `sql` upserts, tried in order with the same binds before
    /// it: the first that changes a row ends the statement, and `sql` runs only when none did
    /// ([`Statement::update_first`]).
    pub updates: &'static [&'static str],
}

impl Statement {
    pub fn new(sql: &'static str, binds: Vec<Bind>) -> Self {
        Statement {
            sql,
            binds,
            updates: &[],
        }
    }

    /// Tries `updates`, in order, before this upsert, and the upsert only when none of them
    /// changed a row.
    ///
    /// Most writes of a Session's rows rewrite a row that is there already, and change only its
    /// document. An upsert that sets every column rewrites every index holding one of them (and,
    /// on a table with `AUTOINCREMENT`, `sqlite_sequence`) even when their values are the same:
    /// three or four pages in the write-ahead log for a one-page change. Each update sets fewer
    /// columns than the upsert, and only where the others already hold the bound values, so a
    /// row that is new, or whose keys change, still goes through the upsert.
    pub fn update_first(mut self, updates: &'static [&'static str]) -> Self {
        self.updates = updates;
        self
    }
}

/// The most writes committed together.
const MAX_BATCH: usize = 256;

struct Job {
    statements: Vec<Statement>,
    reply: oneshot::Sender<Result<Vec<u64>>>,
}

impl AsRef<[Statement]> for Job {
    fn as_ref(&self) -> &[Statement] {
        &self.statements
    }
}

/// The write connection and its checkpoint bookkeeping: whoever commits holds both.
struct Committer {
    conn: Connection,
    checkpoints: Checkpointer,
}

/// A handle to the writer thread.
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::Sender<Job>,
    truncator: Truncator,
    committer: Arc<Mutex<Committer>>,
    /// Writes whose callers wait for their answer: a write with others beside it queues, so it
    /// never overtakes one (a job left in the queue by a caller that stopped waiting orders
    /// nothing, and the connection's mutex keeps it from running at the same time).
    in_flight: Arc<AtomicUsize>,
    /// When the last write arrived, in microseconds since `epoch`: a write that comes within
    /// [`QUIET`] of the one before it queues, so that a stream of writes keeps batching.
    last_arrival: Arc<AtomicU64>,
    epoch: Instant,
}

/// How long the store must have gone without a write for the next one to commit inline. Under a
/// stream of writes the writer thread commits while the callers' threads go on with their
/// requests, and batches what arrives meanwhile: `front_door`'s Agent create (writes about 50 µs
/// apart) lost a fifth of its rate when every write that found the thread idle committed on a
/// worker instead. A Session's own writes in a Turn come at least about 140 µs apart, each after
/// the previous one's answer.
const QUIET: Duration = Duration::from_micros(100);

/// A write in flight, counted in [`Writer::in_flight`] until it is answered or dropped.
struct InFlight<'a>(&'a AtomicUsize);

impl<'a> InFlight<'a> {
    /// Counts a write in; whether it is the only one.
    fn enter(count: &'a AtomicUsize) -> (Self, bool) {
        let before = count.fetch_add(1, Ordering::AcqRel);
        (InFlight(count), before == 0)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How long a write waits for another process's lock (`switchboard keys create` on the Core
/// host writes the same file), as sqlx's connections do.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Prepared statements kept per connection: every write statement is a `&'static str`, and
/// there are fewer kinds than this.
const STATEMENT_CACHE: usize = 128;

impl Writer {
    /// Opens the write connection on the database at `path` (already migrated) with the
    /// store's pragmas, and starts the writer thread.
    pub fn open(path: &Path) -> Result<Writer> {
        let conn = open_connection(path)?;
        // The same settings as the read pool's (`SqliteStore::open`): WAL is a property of the
        // file, the others are per connection.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
             PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;",
        )?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let (checkpoints, truncator) = Checkpointer::start(path, &conn)?;
        let committer = Arc::new(Mutex::new(Committer { conn, checkpoints }));
        let (tx, rx) = mpsc::channel(1024);
        let held = committer.clone();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || run(&held, rx))
            .map_err(|e| StoreError::Batch(format!("the writer thread did not start: {e}")))?;
        Ok(Writer {
            tx,
            truncator,
            committer,
            in_flight: Arc::new(AtomicUsize::new(0)),
            last_arrival: Arc::new(AtomicU64::new(0)),
            epoch: Instant::now(),
        })
    }

    /// Runs `statements` atomically; returns each statement's affected row count.
    pub async fn write(&self, statements: Vec<Statement>) -> Result<Vec<u64>> {
        let (_in_flight, alone) = InFlight::enter(&self.in_flight);
        // Every arrival is noted, a write in a crowd too: it keeps the next one from counting
        // as quiet.
        let quiet = self.after_quiet();
        if alone
            && quiet
            && let Some(outcome) = self.commit_inline(&statements)
        {
            return outcome;
        }
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Job { statements, reply })
            .await
            .map_err(|_| StoreError::WriterGone)?;
        rx.await.map_err(|_| StoreError::WriterGone)?
    }

    /// Notes a write's arrival; whether the store had gone [`QUIET`] without one before it.
    fn after_quiet(&self) -> bool {
        // The first write counts as one after a quiet spell: `epoch` is its zero.
        let now = u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX);
        let before = self.last_arrival.swap(now, Ordering::AcqRel);
        now.saturating_sub(before) >= QUIET.as_micros() as u64
    }

    /// Commits `statements` on this thread when the connection is free; `None` when the write
    /// must go through the queue.
    fn commit_inline(&self, statements: &[Statement]) -> Option<Result<Vec<u64>>> {
        let mut held = self.committer.try_lock().ok()?;
        let Committer { conn, checkpoints } = &mut *held;
        if !checkpoints.inline_allowed() {
            return None;
        }
        // Another process's write lock is waited for on the writer thread, not here.
        conn.busy_timeout(Duration::ZERO).ok()?;
        let begun = control(conn, "BEGIN IMMEDIATE");
        if conn.busy_timeout(BUSY_TIMEOUT).is_err() {
            if begun.is_ok() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            return None;
        }
        match begun {
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => return None,
            Err(e) => return Some(Err(StoreError::Batch(e.to_string()))),
            Ok(()) => {}
        }
        let outcome = commit_begun(conn, &[statements]).pop()?;
        checkpoints.after_commit(conn, false);
        Some(outcome)
    }

    /// Copies the whole write-ahead log into the database and truncates it to zero bytes;
    /// whether that completed.
    pub async fn checkpoint_truncate(&self) -> Result<bool> {
        self.truncator.truncate().await
    }
}

/// A plain read-write connection to the database at `path` that waits [`BUSY_TIMEOUT`] for
/// another connection's lock (the writer's, and the checkpointer's).
pub(crate) fn open_connection(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// The writer thread: until every [`Writer`] is dropped, takes what is waiting (at least one
/// job, at most [`MAX_BATCH`]) and commits it as one batch; checkpoints are asked for once the
/// batch's callers are answered.
fn run(committer: &Mutex<Committer>, mut rx: mpsc::Receiver<Job>) {
    let mut jobs = Vec::with_capacity(MAX_BATCH);
    while let Some(job) = rx.blocking_recv() {
        jobs.push(job);
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let mut held = committer.lock().unwrap_or_else(PoisonError::into_inner);
        let Committer { conn, checkpoints } = &mut *held;
        checkpoints.before_batch(conn);
        let outcomes = commit_batch(conn, &jobs);
        for (job, outcome) in jobs.drain(..).zip(outcomes) {
            let _ = job.reply.send(outcome);
        }
        checkpoints.after_commit(conn, true);
    }
}

/// One transaction for every job: all statements in order, then `COMMIT`. If one fails, the
/// attempt is rolled back and the batch runs again with one savepoint per job, so the failing
/// job fails alone and the others commit.
fn commit_batch<J: AsRef<[Statement]>>(conn: &mut Connection, jobs: &[J]) -> Vec<Result<Vec<u64>>> {
    match control(conn, "BEGIN IMMEDIATE") {
        Ok(()) => commit_begun(conn, jobs),
        Err(e) => fail_all(jobs, &e),
    }
}

/// [`commit_batch`] once `BEGIN IMMEDIATE` has succeeded.
fn commit_begun<J: AsRef<[Statement]>>(conn: &mut Connection, jobs: &[J]) -> Vec<Result<Vec<u64>>> {
    let outcomes = match run_all(conn, jobs) {
        Ok(counts) => counts.into_iter().map(Ok).collect(),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            if let [_] = jobs {
                return vec![Err(write_error(e))];
            }
            if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
                return fail_all(jobs, &e);
            }
            jobs.iter().map(|job| run_job(conn, job.as_ref())).collect()
        }
    };
    match control(conn, "COMMIT") {
        Ok(()) => outcomes,
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            fail_all(jobs, &e)
        }
    }
}

/// `BEGIN IMMEDIATE` or `COMMIT`, from the statement cache: every batch runs both, and
/// `execute_batch` would parse them anew each time.
fn control(conn: &Connection, sql: &'static str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.raw_execute().map(drop)
}

fn run_all<J: AsRef<[Statement]>>(
    conn: &Connection,
    jobs: &[J],
) -> rusqlite::Result<Vec<Vec<u64>>> {
    jobs.iter()
        .map(|job| run_statements(conn, job.as_ref()))
        .collect()
}

fn fail_all<J>(jobs: &[J], e: &rusqlite::Error) -> Vec<Result<Vec<u64>>> {
    jobs.iter()
        .map(|_| Err(StoreError::Batch(e.to_string())))
        .collect()
}

/// One job inside its own savepoint of the open transaction.
fn run_job(conn: &Connection, statements: &[Statement]) -> Result<Vec<u64>> {
    conn.execute_batch("SAVEPOINT job")?;
    match run_statements(conn, statements) {
        Ok(counts) => {
            conn.execute_batch("RELEASE job")?;
            Ok(counts)
        }
        Err(e) => {
            conn.execute_batch("ROLLBACK TO job; RELEASE job")?;
            Err(write_error(e))
        }
    }
}

fn run_statements(conn: &Connection, statements: &[Statement]) -> rusqlite::Result<Vec<u64>> {
    statements.iter().map(|s| execute(conn, s)).collect()
}

/// Runs one statement (its narrow updates first, when it has them); its affected row count.
fn execute(conn: &Connection, s: &Statement) -> rusqlite::Result<u64> {
    for update in s.updates {
        let updated = execute_sql(conn, update, &s.binds)?;
        if updated > 0 {
            return Ok(updated);
        }
    }
    execute_sql(conn, s.sql, &s.binds)
}

/// Runs `sql` with `binds`: `$N` (and `?N`) take the N-th bind, a bare `?` the bind at its
/// position, as sqlx binds the same statements on the read side.
fn execute_sql(conn: &Connection, sql: &str, binds: &[Bind]) -> rusqlite::Result<u64> {
    let mut stmt = conn.prepare_cached(sql)?;
    for index in 1..=stmt.parameter_count() {
        let n = stmt
            .parameter_name(index)
            .and_then(|name| name[1..].parse::<usize>().ok())
            .unwrap_or(index);
        let bind = n
            .checked_sub(1)
            .and_then(|i| binds.get(i))
            .ok_or(rusqlite::Error::InvalidParameterCount(n, binds.len()))?;
        match bind {
            Bind::Text(v) => stmt.raw_bind_parameter(index, v)?,
            Bind::OptText(v) => stmt.raw_bind_parameter(index, v)?,
            Bind::I64(v) => stmt.raw_bind_parameter(index, v)?,
            Bind::OptI64(v) => stmt.raw_bind_parameter(index, v)?,
        }
    }
    Ok(stmt.raw_execute()? as u64)
}

/// A unique key is a [`StoreError::Conflict`] (an idempotency key already admitted, an ID
/// another row owns); anything else is the database's error.
fn write_error(e: rusqlite::Error) -> StoreError {
    match &e {
        rusqlite::Error::SqliteFailure(f, message)
            if f.code == ErrorCode::ConstraintViolation
                && matches!(
                    f.extended_code,
                    rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                        | rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                ) =>
        {
            StoreError::Conflict(message.clone().unwrap_or_else(|| e.to_string()))
        }
        _ => StoreError::Sqlite(e),
    }
}

/// The arguments for `$1`, `$2`, … in bind order (reads bind the same way).
pub(crate) fn arguments(binds: &[Bind]) -> std::result::Result<SqliteArguments, sqlx::Error> {
    let mut args = SqliteArguments::default();
    for b in binds {
        match b {
            Bind::Text(v) => args.add(v.clone()),
            Bind::OptText(v) => args.add(v.clone()),
            Bind::I64(v) => args.add(*v),
            Bind::OptI64(v) => args.add(*v),
        }
        .map_err(sqlx::Error::Encode)?;
    }
    Ok(args)
}

/// Opens a connection of the read side's kind (migrations run on one before the writer opens).
pub async fn connect(
    opts: &sqlx::sqlite::SqliteConnectOptions,
) -> std::result::Result<SqliteConnection, sqlx::Error> {
    SqliteConnection::connect_with(opts).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checkpointer::WAL_CAP_FRAMES;

    /// The `-wal` file's checkpoint sequence number (its header's bytes 12–15), which goes up
    /// each time the log restarts from its beginning.
    fn wal_sequence(wal: &Path) -> u32 {
        let header = std::fs::read(wal).unwrap();
        u32::from_be_bytes(header[12..16].try_into().unwrap())
    }

    /// Inline commits never checkpoint on the caller's thread: the one that takes the log to
    /// the cap stops inline commits, and the writer thread checkpoints before its next batch,
    /// which then restarts the log.
    #[tokio::test]
    async fn the_cap_reached_inline_is_checkpointed_by_the_writer_thread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x TEXT NOT NULL)")
            .unwrap();
        let writer = Writer::open(&path).unwrap();
        let row = || {
            vec![Statement::new(
                "INSERT INTO t (x) VALUES ($1)",
                vec![Bind::Text("x".repeat(3000))],
            )]
        };

        let mut inline = 0;
        while let Some(outcome) = writer.commit_inline(&row()) {
            assert_eq!(outcome.unwrap(), vec![1]);
            inline += 1;
            assert!(inline < 4 * WAL_CAP_FRAMES, "inline commits never stopped");
        }
        let wal = dir.path().join("db.sqlite-wal");
        let frames = (std::fs::metadata(&wal).unwrap().len() - 32) / (4096 + 24);
        assert!(
            frames >= WAL_CAP_FRAMES as u64,
            "stopped at {frames} frames"
        );
        let sequence = wal_sequence(&wal);

        assert_eq!(writer.write(row()).await.unwrap(), vec![1]);
        assert_eq!(wal_sequence(&wal), sequence + 1, "the log did not restart");
        assert!(
            writer.commit_inline(&row()).is_some(),
            "inline commits resume"
        );
        let rows: i64 = Connection::open(&path)
            .unwrap()
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, i64::from(inline) + 2);
    }
}
