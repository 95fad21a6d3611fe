//! `switchboard serve`: opens the embedded store, ensures a Project API key, and serves the API.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use switchboard_core::secrets::SecretBox;
use switchboard_core::{AppState, CoreConfig, auth, router};
use switchboard_execution::HarnessId;
use switchboard_store::SqliteStore;

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Where the embedded store and the data key live.
    #[arg(long, env = "SWITCHBOARD_DATA_DIR", default_value = ".switchboard")]
    pub data_dir: PathBuf,
    /// The harness a Session runs on when neither it nor its Agent selects one.
    #[arg(long, default_value = "codex", value_parser = parse_harness)]
    pub default_harness: HarnessId,
}

fn parse_harness(s: &str) -> Result<HarnessId, String> {
    HarnessId::parse(s)
        .ok_or_else(|| format!("unknown harness '{s}' (codex, claude_code, minimax_code)"))
}

/// Opens (creating) the data directory and its store.
pub async fn open_store(data_dir: &std::path::Path) -> anyhow::Result<SqliteStore> {
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("creating {}", data_dir.display()))?;
    SqliteStore::open(&data_dir.join("switchboard.sqlite"))
        .await
        .context("opening the embedded store")
}

pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let store = open_store(&args.data_dir).await?;
    let secrets = SecretBox::load_or_create(&args.data_dir).context("loading the data key")?;
    let wanted = std::env::var("SWITCHBOARD_API_KEY")
        .ok()
        .filter(|s| !s.is_empty());
    let created = auth::bootstrap(&store, wanted.as_deref(), switchboard_core::unix_now()).await?;

    let state = Arc::new(AppState {
        store: Arc::new(store),
        keys: auth::KeyCache::new(&args.data_dir),
        secrets,
        config: CoreConfig {
            data_dir: args.data_dir.clone(),
            default_harness: args.default_harness,
        },
    });
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let addr = listener.local_addr()?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Switchboard is listening at http://{addr}/v1")?;
        if let Some(key) = created.filter(|_| wanted.is_none()) {
            writeln!(out, "Project API key (shown once): {key}")?;
        }
        out.flush()?;
    }
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("signal handler");
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
