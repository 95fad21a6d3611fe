//! `switchboard mock-model`: the server as a command, for the SDK suite, the offline demo and
//! users' CI.
//!
//! The first stdout line is the base URL, flushed at once, so a parent process can read one
//! line and go; nothing else is printed to stdout. It serves until SIGINT or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;

use crate::{MockConfig, MockModel, Scenario};

/// Arguments of `switchboard mock-model`.
#[derive(Debug, Clone, clap::Args)]
pub struct MockModelArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// Scenario file (JSON rules, see docs/mock-model.md). Without it the built-in default answers.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Append every request and reply to this file as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
}

/// Starts the server, prints its base URL as the first stdout line and serves until signalled.
pub async fn run(args: MockModelArgs) -> anyhow::Result<()> {
    let scenario = match &args.script {
        Some(path) => Some(Scenario::load(path)?),
        None => None,
    };
    let model = MockModel::start(MockConfig {
        listen: args.listen,
        scenario,
        journal_path: args.journal,
    })
    .await?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", model.base_url()).context("cannot write to stdout")?;
        stdout.flush().context("cannot flush stdout")?;
    }
    wait_for_signal().await?;
    model.shutdown().await;
    Ok(())
}

async fn wait_for_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate()).context("cannot watch SIGTERM")?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result.context("cannot watch SIGINT")?,
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c()
        .await
        .context("cannot watch Ctrl-C")?;
    Ok(())
}
