//! The fixed reads ([`crate::sql::one`], [`crate::sql::all`]) run on either engine's pool: the
//! keys bound in order, each row made a record by one of [`crate::rows`]' readers.

use sqlx::{Database, Encode, Executor, IntoArguments, Pool, Type};

use crate::Result;

/// The row of a [`crate::sql::one`] query, as `read` makes it; `None` when there is none.
pub(crate) async fn one<DB, T>(
    pool: &Pool<DB>,
    sql: &'static str,
    keys: &[&str],
    read: fn(&DB::Row) -> T,
) -> Result<Option<T>>
where
    DB: Database,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
{
    let q = keys.iter().fold(sqlx::query(sql), |q, key| q.bind(*key));
    Ok(q.fetch_optional(pool).await?.as_ref().map(read))
}

/// The rows of a [`crate::sql::all`] query, as `read` makes them.
pub(crate) async fn all<DB, T>(
    pool: &Pool<DB>,
    sql: &'static str,
    keys: &[&str],
    read: fn(&DB::Row) -> T,
) -> Result<Vec<T>>
where
    DB: Database,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
{
    let q = keys.iter().fold(sqlx::query(sql), |q, key| q.bind(*key));
    Ok(q.fetch_all(pool).await?.iter().map(read).collect())
}
