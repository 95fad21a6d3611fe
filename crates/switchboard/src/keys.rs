//! `switchboard keys create|list|revoke`: Project API keys in the deployment's store (the data directory's SQLite file, or `--database-url`).

use clap::{Args, Subcommand};
use switchboard_core::auth;
use switchboard_store::Store;

use crate::database::StoreArgs;
use switchboard_core::unix_now;

#[derive(Args)]
pub struct KeysArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(subcommand)]
    pub action: KeysAction,
}

#[derive(Subcommand)]
pub enum KeysAction {
    /// Create a key of a Project and print its ID and secret (the secret is shown only now).
    Create {
        /// The Project the key opens (`proj_…`); the first Project when omitted.
        #[arg(long)]
        project: Option<String>,
    },
    /// List keys: ID, Project, hint, created, revoked.
    List,
    /// Revoke a key by ID.
    Revoke { id: String },
}

pub async fn run(mut args: KeysArgs) -> anyhow::Result<()> {
    let store = args.store.open().await?;
    match args.action {
        KeysAction::Create { project } => {
            let project = match project {
                Some(id) => usable_project(store.as_ref(), &id).await?,
                None => auth::first_project(store.as_ref(), unix_now()).await?,
            };
            let secret = auth::generate_secret();
            let rec = auth::record_for(&secret, &project, unix_now());
            store.insert_api_key(&rec).await?;
            args.store.keys_changed()?;
            println!("{}\t{}", rec.id, secret);
        }
        KeysAction::List => {
            for k in store.list_api_keys().await? {
                let state = k
                    .revoked_at
                    .map_or("active".to_string(), |t| format!("revoked {t}"));
                println!(
                    "{}\t{}\t{}…\tcreated {}\t{}",
                    k.id, k.project_id, k.hint, k.created_at, state
                );
            }
        }
        KeysAction::Revoke { id } => {
            if !store.revoke_api_key(&id, unix_now()).await? {
                anyhow::bail!("no active key with ID {id}");
            }
            args.store.keys_changed()?;
            println!("revoked {id}");
        }
    }
    Ok(())
}

/// A Project a new key may open: it exists and is not archived (a key of an archived Project
/// would open nothing).
async fn usable_project(store: &dyn Store, id: &str) -> anyhow::Result<String> {
    match store.get_project(id).await? {
        Some(p) if p.archived_at.is_none() => Ok(p.id),
        Some(_) => anyhow::bail!("Project {id} is archived"),
        None => anyhow::bail!("no Project with ID {id}"),
    }
}
