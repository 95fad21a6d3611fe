//! `switchboard projects create|list|archive`: the Projects of the deployment's store, managed on
//! the Core host. Every resource belongs to one Project, and a key sees only its own.

use clap::{Args, Subcommand};
use switchboard_core::{auth, unix_now};

use crate::database::StoreArgs;

#[derive(Args)]
pub struct ProjectsArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(subcommand)]
    pub action: ProjectsAction,
}

#[derive(Subcommand)]
pub enum ProjectsAction {
    /// Create a Project and print its ID (then `switchboard keys create --project ID`).
    Create {
        /// A name to tell Projects apart in listings.
        #[arg(long)]
        name: String,
    },
    /// List Projects: ID, name, created, archived.
    List,
    /// Archive a Project: its keys stop working at once; its resources stay stored.
    Archive { id: String },
}

pub async fn run(mut args: ProjectsArgs) -> anyhow::Result<()> {
    let store = args.store.open().await?;
    match args.action {
        ProjectsAction::Create { name } => {
            let project = auth::new_project(&name, unix_now());
            store.insert_project(&project).await?;
            println!("{}\t{}", project.id, project.name);
        }
        ProjectsAction::List => {
            for p in store.list_projects().await? {
                let state = p
                    .archived_at
                    .map_or("active".to_string(), |t| format!("archived {t}"));
                println!("{}\t{}\tcreated {}\t{}", p.id, p.name, p.created_at, state);
            }
        }
        ProjectsAction::Archive { id } => {
            if !store.archive_project(&id, unix_now()).await? {
                anyhow::bail!("no active Project with ID {id}");
            }
            // Running servers drop their cached keys, so the archived Project's stop now.
            args.store.keys_changed()?;
            println!("archived {id}");
        }
    }
    Ok(())
}
