//! Running [`crate::sql`]'s assembled queries on PostgreSQL: their arguments, and cursor pages.

use sqlx::postgres::{PgArguments, PgRow};
use sqlx::{Arguments, AssertSqlSafe, PgPool, Row};

use crate::sql::Sql;
pub(super) use crate::sql::{Cond, Listing, of_project, of_session};
use crate::writer::Bind;
use crate::{Page, PageQuery, Result, StoreError};

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

/// One page of a listing. The cursor is the ID of a row in the listing's scope (else
/// [`StoreError::UnknownCursor`]); that row's `seq` bounds the page, whether or not the row
/// passes the filters.
pub(super) async fn page<T>(pool: &PgPool, l: Listing<PgRow, T>, q: &PageQuery) -> Result<Page<T>> {
    let after_seq = match &q.after {
        Some(after) => Some(
            query(&l.cursor(after))?
                .fetch_optional(pool)
                .await?
                .ok_or(StoreError::UnknownCursor)?
                .get("seq"),
        ),
        None => None,
    };
    let rows = query(&l.rows(q, after_seq))?.fetch_all(pool).await?;
    Ok(l.page(&rows, q))
}

/// An assembled query, bound and ready to run.
fn query(sql: &Sql) -> Result<sqlx::query::Query<'_, sqlx::Postgres, PgArguments>> {
    Ok(sqlx::query_with(
        AssertSqlSafe(sql.text.as_str()),
        arguments(&sql.binds)?,
    ))
}
