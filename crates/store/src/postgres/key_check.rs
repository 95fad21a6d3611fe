//! [`KeyCheckStore`] on PostgreSQL: the one-row `data_key_check` table.

use async_trait::async_trait;
use sqlx::Row;

use super::PgStore;
use crate::Result;
use crate::key_check::KeyCheckStore;

#[async_trait]
impl KeyCheckStore for PgStore {
    async fn key_check(&self, candidate: &str) -> Result<String> {
        // Inserted only when absent; the row that is there afterwards is the answer.
        sqlx::query(
            "INSERT INTO data_key_check (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
        )
        .bind(candidate)
        .execute(&self.pool)
        .await?;
        Ok(
            sqlx::query("SELECT sealed FROM data_key_check WHERE id = 1")
                .fetch_one(&self.pool)
                .await?
                .get("sealed"),
        )
    }
}
