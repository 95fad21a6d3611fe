//! Group commit: one task owns SQLite's single write connection and commits many callers'
//! writes in one transaction.
//!
//! SQLite allows one writer at a time and a commit costs far more than an insert, so writes from
//! concurrent requests queue here; the task takes everything that is waiting, runs each caller's
//! statements inside its own savepoint (a failing write rolls back alone), commits once, and only
//! then answers every caller. A caller's write is durable when its answer arrives.

use sqlx::sqlite::SqliteArguments;
use sqlx::{Arguments, Connection, SqliteConnection};
use tokio::sync::{mpsc, oneshot};

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
}

impl Statement {
    pub fn new(sql: &'static str, binds: Vec<Bind>) -> Self {
        Statement { sql, binds }
    }
}

/// The most writes committed together.
const MAX_BATCH: usize = 256;

struct Job {
    statements: Vec<Statement>,
    reply: oneshot::Sender<Result<Vec<u64>>>,
}

/// A handle to the writer task.
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::Sender<Job>,
}

impl Writer {
    pub fn spawn(conn: SqliteConnection) -> Writer {
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(run(conn, rx));
        Writer { tx }
    }

    /// Runs `statements` atomically; returns each statement's affected row count.
    pub async fn write(&self, statements: Vec<Statement>) -> Result<Vec<u64>> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Job { statements, reply })
            .await
            .map_err(|_| StoreError::WriterGone)?;
        rx.await.map_err(|_| StoreError::WriterGone)?
    }
}

async fn run(mut conn: SqliteConnection, mut rx: mpsc::Receiver<Job>) {
    let mut jobs = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut jobs, MAX_BATCH).await > 0 {
        let outcomes = commit_batch(&mut conn, &jobs).await;
        for (job, outcome) in jobs.drain(..).zip(outcomes) {
            let _ = job.reply.send(outcome);
        }
    }
}

/// Runs every job in one transaction; on a failed commit every job fails.
///
/// The fast path runs all jobs back to back with no savepoints (failures are rare, and each
/// statement is a round trip to SQLite's worker thread). If any job fails, the whole attempt is
/// rolled back and the batch runs again with one savepoint per job, so the failure stays its own.
async fn commit_batch(conn: &mut SqliteConnection, jobs: &[Job]) -> Vec<Result<Vec<u64>>> {
    if let Err(e) = begin(conn).await {
        return fail_all(jobs, &e);
    }
    let outcomes = match run_all(conn, jobs).await {
        Ok(counts) => counts.into_iter().map(Ok).collect(),
        Err(e) => {
            let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await;
            if let [_] = jobs {
                return vec![Err(e.into())];
            }
            if let Err(e) = begin(conn).await {
                return fail_all(jobs, &e);
            }
            let mut outcomes = Vec::with_capacity(jobs.len());
            for job in jobs {
                outcomes.push(run_job(conn, &job.statements).await);
            }
            outcomes
        }
    };
    match sqlx::raw_sql("COMMIT").execute(&mut *conn).await {
        Ok(_) => outcomes,
        Err(e) => {
            let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await;
            fail_all(jobs, &e)
        }
    }
}

async fn run_all(
    conn: &mut SqliteConnection,
    jobs: &[Job],
) -> std::result::Result<Vec<Vec<u64>>, sqlx::Error> {
    let mut counts = Vec::with_capacity(jobs.len());
    for job in jobs {
        counts.push(run_statements(conn, &job.statements).await?);
    }
    Ok(counts)
}

async fn begin(conn: &mut SqliteConnection) -> std::result::Result<(), sqlx::Error> {
    sqlx::raw_sql("BEGIN IMMEDIATE")
        .execute(&mut *conn)
        .await
        .map(|_| ())
}

fn fail_all(jobs: &[Job], e: &sqlx::Error) -> Vec<Result<Vec<u64>>> {
    jobs.iter()
        .map(|_| Err(StoreError::Batch(e.to_string())))
        .collect()
}

/// One job of a larger batch, inside its own savepoint so that its failure rolls back alone.
async fn run_job(conn: &mut SqliteConnection, statements: &[Statement]) -> Result<Vec<u64>> {
    sqlx::raw_sql("SAVEPOINT job").execute(&mut *conn).await?;
    match run_statements(conn, statements).await {
        Ok(counts) => {
            sqlx::raw_sql("RELEASE job").execute(&mut *conn).await?;
            Ok(counts)
        }
        Err(e) => {
            sqlx::raw_sql("ROLLBACK TO job; RELEASE job")
                .execute(&mut *conn)
                .await?;
            Err(e.into())
        }
    }
}

async fn run_statements(
    conn: &mut SqliteConnection,
    statements: &[Statement],
) -> std::result::Result<Vec<u64>, sqlx::Error> {
    let mut counts = Vec::with_capacity(statements.len());
    for s in statements {
        counts.push(execute(conn, s).await?);
    }
    Ok(counts)
}

async fn execute(
    conn: &mut SqliteConnection,
    s: &Statement,
) -> std::result::Result<u64, sqlx::Error> {
    Ok(sqlx::query_with(s.sql, arguments(&s.binds)?)
        .execute(conn)
        .await?
        .rows_affected())
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

/// Opens the dedicated write connection.
pub async fn connect(
    opts: &sqlx::sqlite::SqliteConnectOptions,
) -> std::result::Result<SqliteConnection, sqlx::Error> {
    SqliteConnection::connect_with(opts).await
}
