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
/// The fast path sends the whole batch, `BEGIN` to `COMMIT`, as one query (see [`Joined`]); it
/// has no savepoints, as failures are rare. If any statement fails, whatever ran is rolled back
/// and the batch runs again statement by statement with one savepoint per job, so the failure
/// stays its own and the others commit.
async fn commit_batch(conn: &mut SqliteConnection, jobs: &[Job]) -> Vec<Result<Vec<u64>>> {
    if let Some(joined) = Joined::of(jobs) {
        match joined.run(conn).await {
            Ok(counts) => return counts.into_iter().map(Ok).collect(),
            Err(e) => {
                // Nothing of the batch is kept: a statement failed (its transaction is still
                // open) or the commit did (already rolled back; then this is a no-op error).
                let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await;
                if let [_] = jobs {
                    return vec![Err(e.into())];
                }
            }
        }
        return savepoint_per_job(conn, jobs).await;
    }
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
            return savepoint_per_job(conn, jobs).await;
        }
    };
    commit(conn, jobs, outcomes).await
}

/// The batch in one transaction, each job in its own savepoint, statement by statement.
async fn savepoint_per_job(conn: &mut SqliteConnection, jobs: &[Job]) -> Vec<Result<Vec<u64>>> {
    if let Err(e) = begin(conn).await {
        return fail_all(jobs, &e);
    }
    let mut outcomes = Vec::with_capacity(jobs.len());
    for job in jobs {
        outcomes.push(run_job(conn, &job.statements).await);
    }
    commit(conn, jobs, outcomes).await
}

/// Commits the open transaction: `outcomes` once it is durable, every job failed if not.
async fn commit(
    conn: &mut SqliteConnection,
    jobs: &[Job],
    outcomes: Vec<Result<Vec<u64>>>,
) -> Vec<Result<Vec<u64>>> {
    match sqlx::raw_sql("COMMIT").execute(&mut *conn).await {
        Ok(_) => outcomes,
        Err(e) => {
            let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await;
            fail_all(jobs, &e)
        }
    }
}

/// A whole batch as one multi-statement query, `BEGIN IMMEDIATE; …; COMMIT`, its
/// placeholders renumbered so that each statement's `$N` names its own value in one argument
/// list.
///
/// sqlx runs SQLite on a worker thread and every query sent to it is a round trip: two thread
/// wake-ups. Statement by statement, a batch of 16 Agent creates is 18 of them; on a loaded
/// machine each wake-up waits for a core, and that wait, not SQLite, bounded the write rate.
/// As one query the batch is one round trip (the worker runs the statements in order and
/// stops at the first failure). sqlx binds `$N` of any statement of a multi-statement query
/// to the N-th value (`sqlx-sqlite` `SqliteArguments::bind`), which the store's group-commit
/// tests exercise on every batch.
struct Joined {
    sql: String,
    binds: Vec<Bind>,
    /// How many statements each job has, in order.
    shape: Vec<usize>,
}

impl Joined {
    /// `None` when a statement is not one statement with `$N` placeholders only (those are
    /// the only ones renumbered safely, see [`renumber`]).
    fn of(jobs: &[Job]) -> Option<Joined> {
        let mut sql = String::from("BEGIN IMMEDIATE;");
        let mut binds = Vec::new();
        let mut shape = Vec::with_capacity(jobs.len());
        for job in jobs {
            shape.push(job.statements.len());
            for s in &job.statements {
                renumber(s.sql, binds.len(), s.binds.len(), &mut sql)?;
                sql.push(';');
                binds.extend(s.binds.iter().cloned());
            }
        }
        sql.push_str("COMMIT");
        Some(Joined { sql, binds, shape })
    }

    /// Runs it; each job's statements' affected row counts once the batch committed.
    async fn run(
        self,
        conn: &mut SqliteConnection,
    ) -> std::result::Result<Vec<Vec<u64>>, sqlx::Error> {
        use futures::TryStreamExt;
        use sqlx::Executor;
        let args = arguments(&self.binds)?;
        let results: Vec<_> = conn
            .execute_many(sqlx::query_with(sqlx::AssertSqlSafe(self.sql), args))
            .try_collect()
            .await?;
        let total: usize = self.shape.iter().sum();
        if results.len() != total + 2 {
            // Not one result per statement: nothing can be told apart, so nothing is answered
            // from it (the caller rolls back and runs the batch statement by statement).
            return Err(sqlx::Error::Protocol(format!(
                "a joined batch of {total} statements gave {} results",
                results.len()
            )));
        }
        let mut counts = results[1..=total].iter().map(|r| r.rows_affected());
        Ok(self
            .shape
            .iter()
            .map(|n| counts.by_ref().take(*n).collect())
            .collect())
    }
}

/// Appends `sql` with each `$N` as `$(N + offset)`. `None` (not joinable) if a placeholder
/// is not one of `$1..=$binds`, or outside quotes there is a `?` placeholder or a `;`.
fn renumber(sql: &str, offset: usize, binds: usize, out: &mut String) -> Option<()> {
    let mut quote = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) => {
                if c == q {
                    quote = None;
                }
                out.push(c);
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '$') => {
                let mut digits = String::new();
                while let Some(d) = chars.next_if(char::is_ascii_digit) {
                    digits.push(d);
                }
                let n: usize = digits.parse().ok()?;
                if n == 0 || n > binds {
                    return None;
                }
                out.push('$');
                out.push_str(&(n + offset).to_string());
            }
            (None, '?' | ';') => return None,
            (None, c) => out.push(c),
        }
    }
    Some(())
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

#[cfg(test)]
mod tests {
    use super::renumber;

    fn renumbered(sql: &str, offset: usize, binds: usize) -> Option<String> {
        let mut out = String::new();
        renumber(sql, offset, binds, &mut out).map(|()| out)
    }

    #[test]
    fn placeholders_move_by_the_offset_and_quoted_text_stays() {
        assert_eq!(
            renumbered(
                "UPDATE t SET a = $2, s = 'x$1' WHERE id = $1 AND b = $12",
                7,
                12
            ),
            Some("UPDATE t SET a = $9, s = 'x$1' WHERE id = $8 AND b = $19".into())
        );
        assert_eq!(
            renumbered(r#"INSERT INTO "t$" (a) VALUES ($1)"#, 1, 1),
            Some(r#"INSERT INTO "t$" (a) VALUES ($2)"#.into())
        );
    }

    #[test]
    fn anything_else_is_not_joined() {
        assert_eq!(renumbered("SELECT ?", 0, 1), None);
        assert_eq!(renumbered("DELETE FROM t; DELETE FROM u", 0, 0), None);
        assert_eq!(renumbered("SELECT $2", 0, 1), None);
        assert_eq!(renumbered("SELECT $0", 0, 1), None);
        assert_eq!(renumbered("SELECT $a", 0, 1), None);
    }
}
