//! [`KeyCheckStore`] on SQLite: the one-row `data_key_check` table.

use async_trait::async_trait;
use sqlx::Row;

use super::SqliteStore;
use crate::Result;
use crate::key_check::KeyCheckStore;
use crate::writer::Bind;

#[async_trait]
impl KeyCheckStore for SqliteStore {
    async fn key_check(&self, candidate: &str) -> Result<String> {
        // Inserted only when absent; the row that is there afterwards is the answer.
        self.write1(
            "INSERT INTO data_key_check (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
            vec![Bind::Text(candidate.to_owned())],
        )
        .await?;
        Ok(
            sqlx::query("SELECT sealed FROM data_key_check WHERE id = 1")
                .fetch_one(&self.pool)
                .await?
                .get("sealed"),
        )
    }
}
