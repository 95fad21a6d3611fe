//! The store `serve` runs on: the embedded SQLite file in the data directory, or PostgreSQL
//! with `--database-url`; and the data key check both run before Core starts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use switchboard_core::secrets::SecretBox;
use switchboard_store::{KeyCheckStore, PgStore, Store};

/// What the canary seals; any key opens its own sealing of it, no other key does.
const CANARY: &str = "switchboard data key check v1";

/// Opens the store (`database_url`: PostgreSQL, else the data directory's SQLite file) and
/// checks that `secrets` holds the key the database's secrets were sealed with.
pub async fn open(
    data_dir: &Path,
    database_url: Option<&str>,
    secrets: &SecretBox,
) -> anyhow::Result<Arc<dyn Store>> {
    match database_url {
        Some(url) => {
            // The URL may carry a password: never in a message.
            let store = PgStore::open(url)
                .await
                .context("opening the PostgreSQL store (--database-url)")?;
            check_data_key(&store, secrets).await?;
            Ok(Arc::new(store))
        }
        None => {
            let store = crate::serve::open_store(data_dir).await?;
            check_data_key(&store, secrets).await?;
            Ok(Arc::new(store))
        }
    }
}

/// Where an administration command on the Core host (`keys`, `projects`, `environments`)
/// finds the deployment's store: the data directory's SQLite file, or the PostgreSQL database
/// `serve` runs on with `--database-url`.
#[derive(clap::Args)]
pub struct StoreArgs {
    /// Core's data directory (the one `serve` runs on).
    #[arg(
        long,
        env = "SWITCHBOARD_DATA_DIR",
        default_value = ".switchboard",
        global = true
    )]
    pub data_dir: PathBuf,
    /// The PostgreSQL database `serve` runs on (`--database-url`), instead of the data
    /// directory's SQLite file.
    #[arg(
        long,
        env = "SWITCHBOARD_DATABASE_URL",
        hide_env_values = true,
        global = true
    )]
    pub database_url: Option<String>,
}

impl StoreArgs {
    /// Makes the data directory absolute and opens the store. Secrets are neither sealed nor
    /// opened here, so no data key is needed.
    pub async fn open(&mut self) -> anyhow::Result<Arc<dyn Store>> {
        self.data_dir = crate::paths::absolute(&self.data_dir)?;
        Ok(match &self.database_url {
            Some(url) => Arc::new(
                PgStore::open(url)
                    .await
                    .context("opening the PostgreSQL store (--database-url)")?,
            ),
            None => Arc::new(crate::serve::open_store(&self.data_dir).await?),
        })
    }

    /// Tells a Core running on this data directory that keys changed, so it drops its cached
    /// keys (and the streams of revoked ones) at once. On PostgreSQL the change itself bumped
    /// the database's keys epoch with a notification that every replica hears
    /// (`core::replicas`); a data directory here is touched only for a local SQLite-era serve.
    pub fn keys_changed(&self) -> std::io::Result<()> {
        if self.database_url.is_some() && !self.data_dir.is_dir() {
            return Ok(());
        }
        switchboard_core::auth::touch_epoch(&self.data_dir)
    }
}

/// The first start stores a canary sealed with its key; every later start must open it. A
/// process with another key refuses to start rather than seal secrets no other could read.
pub async fn check_data_key(store: &dyn KeyCheckStore, secrets: &SecretBox) -> anyhow::Result<()> {
    let candidate = secrets.seal(CANARY).context("sealing the data key check")?;
    let stored = store
        .key_check(&candidate)
        .await
        .context("reading the data key check")?;
    match secrets.open(&stored) {
        Ok(plain) if plain == CANARY => Ok(()),
        _ => anyhow::bail!(
            "the data key is not the one this database's secrets were sealed with; refusing to \
             start rather than write secrets that cannot be read back (give the deployment's key \
             with --data-key-file or SWITCHBOARD_DATA_KEY_FILE)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_first_key_is_kept_and_another_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::serve::open_store(dir.path()).await.unwrap();
        let first = SecretBox::from_key(&[7; 32]).unwrap();
        check_data_key(&store, &first).await.unwrap();
        // The same key again (a restart, another replica) passes.
        check_data_key(&store, &first).await.unwrap();
        let other = SecretBox::from_key(&[8; 32]).unwrap();
        let refused = check_data_key(&store, &other).await.unwrap_err();
        assert!(
            refused.to_string().starts_with(
                "the data key is not the one this database's secrets were sealed with"
            ),
            "{refused}"
        );
    }
}
