//! Queries assembled at run time for PostgreSQL: conditions with `?` markers numbered `$N` in
//! bind order, and cursor pages in `seq` order (the same shape as the SQLite engine's).

use sqlx::postgres::{PgArguments, PgRow};
use sqlx::{Arguments, AssertSqlSafe, PgPool, Row};

use crate::writer::Bind;
use crate::{Order, Page, PageQuery, Result, StoreError};

/// A listing of one table in `seq` order.
pub(super) struct Listing<T> {
    pub table: &'static str,
    /// What every row of the listing, the cursor's included, belongs to (a Turn's Session).
    pub scope: Vec<Cond>,
    /// What listed rows must also meet (`agent_id`, metadata, an Item's Turn).
    pub filter: Vec<Cond>,
    pub row: fn(&PgRow) -> T,
}

/// An SQL condition with a `?` where each bound value goes.
pub(super) struct Cond {
    sql: &'static str,
    binds: Vec<Bind>,
}

impl Cond {
    pub fn new(sql: &'static str, binds: impl Into<Vec<Bind>>) -> Self {
        let binds = binds.into();
        debug_assert_eq!(sql.matches('?').count(), binds.len(), "{sql}");
        Cond { sql, binds }
    }
}

/// The scope of a listing of one Session's rows, in one Project (child rows follow their
/// Session, so a foreign Project's Session has none).
pub(super) fn of_session(project: &str, session_id: &str) -> Vec<Cond> {
    vec![Cond::new(
        "session_id IN (SELECT id FROM sessions WHERE id = ? AND project_id = ?)",
        [
            Bind::Text(session_id.to_owned()),
            Bind::Text(project.to_owned()),
        ],
    )]
}

/// The scope of a listing of one Project's top-level rows.
pub(super) fn of_project(project: &str) -> Vec<Cond> {
    vec![Cond::new(
        "project_id = ?",
        [Bind::Text(project.to_owned())],
    )]
}

/// The arguments for `$1`, `$2`, … in bind order.
pub(super) fn arguments(binds: &[Bind]) -> std::result::Result<PgArguments, sqlx::Error> {
    let mut args = PgArguments::default();
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

#[derive(Default)]
struct Sql {
    text: String,
    binds: Vec<Bind>,
}

impl Sql {
    fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        self.text.push_str(&format!("${}", self.binds.len()));
        self
    }

    fn cond(&mut self, c: &Cond) -> &mut Self {
        let mut parts = c.sql.split('?');
        self.push(parts.next().unwrap_or_default());
        for (part, value) in parts.zip(&c.binds) {
            self.bind(value.clone()).push(part);
        }
        self
    }

    async fn fetch_all(&self, pool: &PgPool) -> Result<Vec<PgRow>> {
        // Only fixed fragments go into the text; every value is bound.
        let q = sqlx::query_with(AssertSqlSafe(self.text.as_str()), arguments(&self.binds)?);
        Ok(q.fetch_all(pool).await?)
    }

    async fn fetch_optional(&self, pool: &PgPool) -> Result<Option<PgRow>> {
        let q = sqlx::query_with(AssertSqlSafe(self.text.as_str()), arguments(&self.binds)?);
        Ok(q.fetch_optional(pool).await?)
    }
}

/// One page of a listing. The cursor is the ID of a row in the listing's scope (else
/// [`StoreError::UnknownCursor`]); that row's `seq` bounds the page, whether or not the row
/// passes the filters.
pub(super) async fn page<T>(pool: &PgPool, l: Listing<T>, q: &PageQuery) -> Result<Page<T>> {
    let mut sql = Sql::default();
    sql.push("SELECT * FROM ")
        .push(l.table)
        .push(" WHERE 1 = 1");
    for c in l.scope.iter().chain(&l.filter) {
        sql.push(" AND ").cond(c);
    }
    if let Some(after) = &q.after {
        let mut cursor = Sql::default();
        cursor
            .push("SELECT seq FROM ")
            .push(l.table)
            .push(" WHERE id = ")
            .bind(Bind::Text(after.clone()));
        for c in &l.scope {
            cursor.push(" AND ").cond(c);
        }
        let seq: i64 = cursor
            .fetch_optional(pool)
            .await?
            .ok_or(StoreError::UnknownCursor)?
            .get("seq");
        sql.push(match q.order {
            Order::Asc => " AND seq > ",
            Order::Desc => " AND seq < ",
        })
        .bind(Bind::I64(seq));
    }
    sql.push(match q.order {
        Order::Asc => " ORDER BY seq ASC LIMIT ",
        Order::Desc => " ORDER BY seq DESC LIMIT ",
    })
    .bind(Bind::I64(i64::from(q.limit) + 1));
    let rows = sql.fetch_all(pool).await?;
    let mut data: Vec<T> = rows.iter().map(l.row).collect();
    let has_more = data.len() > q.limit as usize;
    data.truncate(q.limit as usize);
    Ok(Page { data, has_more })
}
