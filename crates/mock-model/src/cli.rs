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
    // Watch the signals before announcing the URL: a parent that signals right after reading
    // it must get a clean shutdown, not the default disposition.
    let stop = StopSignals::watch()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", model.base_url()).context("cannot write to stdout")?;
        stdout.flush().context("cannot flush stdout")?;
    }
    stop.wait().await?;
    model.shutdown().await;
    Ok(())
}

/// SIGINT and SIGTERM, registered when created (not when first awaited).
struct StopSignals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn watch() -> anyhow::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(StopSignals {
                interrupt: signal(SignalKind::interrupt()).context("cannot watch SIGINT")?,
                terminate: signal(SignalKind::terminate()).context("cannot watch SIGTERM")?,
            })
        }
        #[cfg(not(unix))]
        Ok(StopSignals {})
    }

    async fn wait(mut self) -> anyhow::Result<()> {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
        #[cfg(not(unix))]
        tokio::signal::ctrl_c()
            .await
            .context("cannot watch Ctrl-C")?;
        Ok(())
    }
}
