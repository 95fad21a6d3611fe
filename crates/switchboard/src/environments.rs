//! `switchboard environments enroll ENV_ID`: on the Core host, a new enrollment token for a
//! self-hosted Environment whose first one was lost. The previous token stops working; a Runtime
//! already enrolled keeps its credential until the new token is exchanged.

use clap::{Args, Subcommand};
use switchboard_core::enrollment;

use crate::database::StoreArgs;

/// The Core URL printed in the command line when `--core-url` is not given: where `serve`
/// listens by default.
pub const DEFAULT_CORE_URL: &str = "http://127.0.0.1:8080";

#[derive(Args)]
pub struct EnvironmentsArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(subcommand)]
    pub action: EnvironmentsAction,
}

#[derive(Subcommand)]
pub enum EnvironmentsAction {
    /// Mint a new enrollment token for a self_hosted Environment and print the command to run
    /// on its machine (the previous token stops working).
    Enroll {
        /// The Environment's ID (`env_…`).
        environment_id: String,
        /// Core's address as the Runtime's machine reaches it, for the printed command.
        #[arg(long, env = "SWITCHBOARD_CORE_URL", default_value = DEFAULT_CORE_URL)]
        core_url: String,
    },
}

pub async fn run(mut args: EnvironmentsArgs) -> anyhow::Result<()> {
    let store = args.store.open().await?;
    match args.action {
        EnvironmentsAction::Enroll {
            environment_id,
            core_url,
        } => {
            let token = mint_in_any_project(store.as_ref(), &environment_id).await?;
            println!("{}", enrollment::command(&core_url, &token.secret));
        }
    }
    Ok(())
}

/// The Core host's administrator names an Environment by ID alone: it is minted in whichever
/// Project holds it (IDs are unique across Projects).
async fn mint_in_any_project(
    store: &dyn switchboard_store::Store,
    environment_id: &str,
) -> anyhow::Result<enrollment::Minted> {
    let mut last = None;
    for project in store.list_projects().await? {
        match enrollment::mint_for(store, &project.id, environment_id).await {
            Err(enrollment::MintError::Unknown(_)) => {
                last = Some(enrollment::MintError::Unknown(environment_id.to_owned()))
            }
            other => return Ok(other?),
        }
    }
    Err(last
        .unwrap_or_else(|| enrollment::MintError::Unknown(environment_id.to_owned()))
        .into())
}
