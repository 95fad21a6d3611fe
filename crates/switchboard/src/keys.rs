//! `switchboard keys create|list|revoke`: Project API keys in the embedded store.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use switchboard_core::auth;
use switchboard_store::Store;

use crate::serve::open_store;
use switchboard_core::unix_now;

#[derive(Args)]
pub struct KeysArgs {
    #[arg(
        long,
        env = "SWITCHBOARD_DATA_DIR",
        default_value = ".switchboard",
        global = true
    )]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub action: KeysAction,
}

#[derive(Subcommand)]
pub enum KeysAction {
    /// Create a key and print its secret (shown only now).
    Create,
    /// List keys: ID, hint, created, revoked.
    List,
    /// Revoke a key by ID.
    Revoke { id: String },
}

pub async fn run(mut args: KeysArgs) -> anyhow::Result<()> {
    args.data_dir = crate::paths::absolute(&args.data_dir)?;
    let store = open_store(&args.data_dir).await?;
    match args.action {
        KeysAction::Create => {
            let secret = auth::generate_secret();
            let rec = auth::record_for(&secret, unix_now());
            store.insert_api_key(&rec).await?;
            auth::touch_epoch(&args.data_dir)?;
            println!("{}\t{}", rec.id, secret);
        }
        KeysAction::List => {
            for k in store.list_api_keys().await? {
                let state = k
                    .revoked_at
                    .map_or("active".to_string(), |t| format!("revoked {t}"));
                println!("{}\t{}…\tcreated {}\t{}", k.id, k.hint, k.created_at, state);
            }
        }
        KeysAction::Revoke { id } => {
            if !store.revoke_api_key(&id, unix_now()).await? {
                anyhow::bail!("no active key with ID {id}");
            }
            auth::touch_epoch(&args.data_dir)?;
            println!("revoked {id}");
        }
    }
    Ok(())
}
