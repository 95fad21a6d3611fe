//! `switchboard serve`: opens the store (embedded SQLite, or PostgreSQL), ensures a Project API key, and serves the API.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use switchboard_core::secrets::SecretBox;
use switchboard_core::session::replica::Replica;
use switchboard_core::{AppState, CoreConfig, auth, router};
use switchboard_execution::{HarnessId, ModelProvider, ProviderProtocol};
use switchboard_runtime::install::{self, HarnessInstall};
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions};
use switchboard_store::SqliteStore;

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Where the embedded store and the data key live.
    #[arg(long, env = "SWITCHBOARD_DATA_DIR", default_value = ".switchboard")]
    pub data_dir: PathBuf,
    /// A PostgreSQL database (`postgres://user:password@host/db`) to keep the store in, instead
    /// of the embedded SQLite file in the data directory. Its migrations run at start.
    #[arg(long, env = "SWITCHBOARD_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// The file holding the data key that seals provider keys and credentials (base64, 32
    /// bytes; created when absent), shared by every replica on one database. Default:
    /// `secret.key` in the data directory. A start with another key than the one the store's
    /// secrets were sealed with refuses.
    #[arg(long, env = "SWITCHBOARD_DATA_KEY_FILE", value_name = "PATH")]
    pub data_key_file: Option<PathBuf>,
    /// The harness a Session runs on when neither it nor its Agent selects one.
    #[arg(long, default_value = "codex", value_parser = parse_harness)]
    pub default_harness: HarnessId,
    /// The deployment's model provider (a Responses API root such as `http://127.0.0.1:9000/v1`),
    /// for Sessions whose Agent and request name none.
    #[arg(long, env = "SWITCHBOARD_MODEL_PROVIDER_URL")]
    pub model_provider_url: Option<String>,
    /// The API key sent to `--model-provider-url`.
    #[arg(
        long,
        env = "SWITCHBOARD_MODEL_PROVIDER_KEY",
        default_value = "",
        hide_env_values = true
    )]
    pub model_provider_key: String,
    /// The deployment's Anthropic-protocol model provider (an API root such as
    /// `http://127.0.0.1:9000`), for Claude Code Sessions whose Agent and request name none.
    #[arg(long, env = "SWITCHBOARD_ANTHROPIC_PROVIDER_URL")]
    pub anthropic_provider_url: Option<String>,
    /// The API key sent to `--anthropic-provider-url`.
    #[arg(
        long,
        env = "SWITCHBOARD_ANTHROPIC_PROVIDER_KEY",
        default_value = "",
        hide_env_values = true
    )]
    pub anthropic_provider_key: String,
    /// The bearer token deployment Runtimes (`switchboard runtime --token`) present on
    /// `/runtime/connect`; they are refused when it is unset. A self-hosted Environment's
    /// Runtime authenticates with its enrolled credential instead.
    #[arg(long, env = "SWITCHBOARD_RUNTIME_TOKEN", hide_env_values = true)]
    pub runtime_token: Option<String>,
    /// The URL Runtimes on other machines dial to reach this Core, as the self-hosted
    /// enrollment command names it; `http://<listen address>` when unset.
    #[arg(long)]
    pub public_url: Option<String>,
    /// Threads that run this process's async work (Core's requests and Sessions, the Runtime,
    /// its adapters). Default: half the cores, at least 1, since the harness processes need the
    /// CPUs more (one per core with --no-local-runtime, which runs none).
    #[arg(long, env = "SWITCHBOARD_WORKER_THREADS", value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub worker_threads: Option<u64>,
    /// Start no local Runtime: every Runtime is remote. `/readyz` answers 200 once one of them
    /// advertises a usable harness.
    #[arg(long)]
    pub no_local_runtime: bool,
    /// Also install this harness at start when the local Runtime does not find it (repeatable;
    /// the default harness always is, unless --no-install).
    #[arg(long = "install-harness", value_name = "H", value_parser = crate::harness::parse_harness)]
    pub install_harnesses: Vec<&'static HarnessInstall>,
    /// Install no missing harness at start: a harness that is not found stays `missing`.
    #[arg(long)]
    pub no_install: bool,
    /// Seconds a client has to send a request's headers (a new connection's first request from
    /// its accept, a later one from its first byte). The connection is closed when it passes.
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub header_read_timeout: u64,
    /// Seconds a kept-alive connection may wait idle for its next request before it is closed
    /// (longer than common clients' pool expiry, so that a client rarely reuses a connection the
    /// server is closing). A live event stream is not idle: its keepalives keep it open.
    #[arg(long, default_value_t = 30, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_alive_timeout: u64,
    /// Seconds a request body may stall between two chunks before it is answered 408.
    #[arg(long, default_value_t = 30, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub body_read_timeout: u64,
    /// Seconds Turns running at SIGTERM/SIGINT get to finish before they fail; a second signal
    /// exits at once.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub shutdown_grace: u64,
    /// Open connections served at once; more wait to be accepted until one closes.
    #[arg(long, default_value_t = 4096, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Harness processes the Runtime keeps alive at once. A Turn that needs one more evicts
    /// the least recently used idle Session's process (its state stays on disk; its next Turn
    /// resumes it); when every process runs a Turn, it waits queued. Default: available memory
    /// / 128 MB, between 4 and 1024.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_live_harnesses: Option<u64>,
    /// Codex Sessions whose process-wide settings are equal (provider, key, execution controls;
    /// no workspace, MCP servers or Subagents) share one `codex app-server`, a thread each
    /// (about 1.5 MB per further idle Session instead of about 22 MB each, docs/benchmarks.md). A shared process that dies fails
    /// the started Turn of every Session on it.
    #[arg(long)]
    pub share_harness_processes: bool,
    /// Started, initialized Codex processes kept waiting for new Sessions, so a Session's first
    /// Turn does not wait for its harness to start. Each holds one of `--max-live-harnesses`
    /// and is ended first when a Turn needs the slot. Default: 1 (2 where memory fits 16 live
    /// processes), always below `--max-live-harnesses`; 0 turns the pool off.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=64))]
    pub warm_harnesses: Option<u64>,
    /// Seconds a Runtime gets to prepare a Session, a wait for a process slot aside. A test
    /// knob (a queued first Turn outlasting it), hidden from `--help`.
    #[arg(long, default_value_t = 120, value_name = "SECONDS", hide = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub preparation_timeout: u64,
    /// Seconds event rows are kept on PostgreSQL for other replicas' streams before they are
    /// swept. A test knob, hidden from `--help`.
    #[arg(long, default_value_t = 300, value_name = "SECONDS", hide = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub event_retention: u64,
    /// With `--database-url`: the base URL other replicas on the database reach this one at,
    /// to forward requests for the Sessions it holds. Default: `http://<listen address>`.
    #[arg(long, value_name = "URL")]
    pub replica_address: Option<String>,
    /// Milliseconds a replica's Session claims (and its heartbeat) live unrenewed; a dead
    /// replica's Sessions are taken over once they pass. A test knob, hidden from `--help`.
    #[arg(long, default_value_t = 10_000, value_name = "MS", hide = true, value_parser = clap::value_parser!(u64).range(300..))]
    pub claim_ttl: u64,
    /// Serve Prometheus metrics at `/metrics` on the main listener to `Authorization: Bearer
    /// <this token>` only (never to a Project key). Without it or `--metrics-listen`,
    /// `/metrics` is not served.
    #[arg(
        long,
        env = "SWITCHBOARD_METRICS_TOKEN",
        hide_env_values = true,
        value_name = "T"
    )]
    pub metrics_token: Option<String>,
    /// Serve Prometheus metrics at `/metrics` on this separate address (no token: bind it where
    /// only the scraper reaches; `127.0.0.1:0` picks a free port).
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,
    /// An OpenTelemetry collector's OTLP/HTTP base URL (`http://127.0.0.1:4318`): every
    /// request's and Turn's spans are exported to `URL/v1/traces` (JSON bodies). Unset, nothing
    /// is exported.
    #[arg(long, env = "SWITCHBOARD_OTLP_ENDPOINT", value_name = "URL")]
    pub otlp_endpoint: Option<String>,
}

/// How long open connections get to finish their request in flight once serving stops.
const DRAIN: Duration = Duration::from_secs(5);

/// The default harness (when it has an install row) and every `--install-harness`.
fn to_install(args: &ServeArgs) -> Vec<switchboard_protocol::HarnessId> {
    let default = install::ALL
        .iter()
        .find(|row| row.name == args.default_harness.as_str());
    default
        .into_iter()
        .chain(args.install_harnesses.iter().copied())
        .map(|row| row.harness)
        .collect()
}

fn parse_harness(s: &str) -> Result<HarnessId, String> {
    HarnessId::parse(s)
        .ok_or_else(|| format!("unknown harness '{s}' (codex, claude_code, minimax_code)"))
}

/// The standard adapters on a data dir's executables, with shared Codex processes when
/// `share` (`--share-harness-processes`), their homes beside the Sessions' state.
pub fn registry(data_dir: &std::path::Path, share: bool) -> Registry {
    let registry = Registry::standard(Locator::from_env(data_dir));
    if share {
        registry
            .with_shared_codex_processes(RuntimeOptions::for_data_dir(data_dir).shared_codex_root())
    } else {
        registry
    }
}

/// The Runtime's options for a data dir, with `--max-live-harnesses` and `--warm-harnesses`
/// when given (the warm default is the machine's, under the live bound).
pub fn runtime_options(
    data_dir: &std::path::Path,
    max_live: Option<u64>,
    warm: Option<u64>,
) -> RuntimeOptions {
    let mut options = RuntimeOptions::for_data_dir(data_dir);
    if let Some(n) = max_live.and_then(|n| usize::try_from(n).ok()) {
        options.max_live_harnesses = n;
    }
    options.warm_harnesses = match warm.and_then(|n| usize::try_from(n).ok()) {
        Some(n) => n.min(options.max_live_harnesses.saturating_sub(1)),
        None => switchboard_runtime::capacity::default_warm_harnesses(options.max_live_harnesses),
    };
    options
}

/// Opens (creating) the data directory and its store.
pub async fn open_store(data_dir: &std::path::Path) -> anyhow::Result<SqliteStore> {
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("creating {}", data_dir.display()))?;
    SqliteStore::open(&data_dir.join("switchboard.sqlite"))
        .await
        .context("opening the embedded store")
}

pub async fn run(
    mut args: ServeArgs,
    turn_spans: Option<switchboard_telemetry::TurnSpans>,
) -> anyhow::Result<()> {
    args.data_dir = crate::paths::absolute(&args.data_dir)?;
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("creating {}", args.data_dir.display()))?;
    let secrets = match &args.data_key_file {
        Some(path) => SecretBox::load_or_create_file(path)
            .with_context(|| format!("loading the data key from {}", path.display()))?,
        None => SecretBox::load_or_create(&args.data_dir).context("loading the data key")?,
    };
    let store =
        crate::database::open(&args.data_dir, args.database_url.as_deref(), &secrets).await?;
    if let Some(turn_spans) = &turn_spans {
        turn_spans.attach(Arc::new(crate::traces::StoreTraces(store.clone())));
    }
    let wanted = std::env::var("SWITCHBOARD_API_KEY")
        .ok()
        .filter(|s| !s.is_empty());
    let created = auth::bootstrap(
        store.as_ref(),
        wanted.as_deref(),
        switchboard_core::unix_now(),
    )
    .await?;

    let provider = |protocol, url: &Option<String>, key: &str| {
        url.clone().map(|base_url| ModelProvider {
            protocol,
            base_url,
            api_key: key.to_owned(),
            context_window: None,
            max_output_tokens: None,
        })
    };
    let default_providers = [
        provider(
            ProviderProtocol::Responses,
            &args.model_provider_url,
            &args.model_provider_key,
        ),
        provider(
            ProviderProtocol::Anthropic,
            &args.anthropic_provider_url,
            &args.anthropic_provider_key,
        ),
    ]
    .into_iter()
    .flatten();
    // Bound first: the enrollment command names the address it got.
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let addr = listener.local_addr()?;
    // Before anything records: the recorder is process-wide.
    let metrics_token = args.metrics_token.clone().filter(|t| !t.is_empty());
    let exposition = if metrics_token.is_some() || args.metrics_listen.is_some() {
        Some(crate::metrics::install(metrics_token)?)
    } else {
        None
    };
    let mut state = AppState::new(
        store,
        secrets,
        CoreConfig {
            data_dir: args.data_dir.clone(),
            default_harness: args.default_harness,
            runtime_token: args.runtime_token.clone(),
            public_url: args
                .public_url
                .clone()
                .unwrap_or_else(|| format!("http://{addr}")),
            reservation_deadline: switchboard_core::state::RESERVATION_DEADLINE,
            preparation_timeout: Duration::from_secs(args.preparation_timeout),
        },
        default_providers,
    );
    state.metrics = exposition;
    let state = Arc::new(state);
    let metrics_addr = match args.metrics_listen {
        Some(addr) => Some(crate::metrics::listen(addr, state.clone()).await?),
        None => None,
    };
    // Other replicas' events and key changes, before any stream can open.
    switchboard_core::replicas::start(&state, Duration::from_secs(args.event_retention))
        .await
        .context("listening for other replicas' commits (PostgreSQL LISTEN)")?;
    // On PostgreSQL this serve is one replica of several: it claims the Sessions it loads.
    if let Some(claims) = state.store.claims() {
        let address = args
            .replica_address
            .clone()
            .unwrap_or_else(|| format!("http://{addr}"));
        let replica = Replica::new(address, Duration::from_millis(args.claim_ttl), claims)
            .context("building the replica's HTTP client")?;
        tracing::info!(replica = %replica.id, address = %replica.address, "serving as a replica");
        state.engine.replicate(replica);
    }
    state
        .engine
        .recover()
        .await
        .context("settling Turns left by the last run")?;

    if args.no_local_runtime {
        if args.runtime_token.as_deref().is_none_or(str::is_empty) {
            tracing::warn!(
                "--no-local-runtime without --runtime-token: no deployment Runtime can connect, so only self-hosted Environments' Sessions (on their enrolled Runtimes) can run"
            );
        }
    } else {
        // The local Runtime: same protocol, in-memory channels.
        let registry = Arc::new(registry(&args.data_dir, args.share_harness_processes));
        if !args.no_install {
            // Marked `installing` before the first heartbeat, so a Session that selects one
            // is admitted and waits for it.
            // The spinner shows the install on stderr; one log line says how it ended.
            registry
                .install_missing(&to_install(&args), crate::harness::Spinner::logging())
                .await;
        }
        let options = runtime_options(&args.data_dir, args.max_live_harnesses, args.warm_harnesses);
        let local = LocalRuntime::start(registry, options);
        let (to_runtime, from_runtime) = local.into_channels();
        state
            .engine
            .attach("local".to_owned(), true, None, to_runtime, from_runtime);
    }
    // Watch the signals before announcing the address (a parent may signal at once).
    let mut signals = Signals::install()?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Switchboard is listening at http://{addr}/v1")?;
        if let Some(metrics) = metrics_addr {
            writeln!(out, "Metrics at http://{metrics}/metrics")?;
        }
        if let Some(key) = created.filter(|_| wanted.is_none()) {
            writeln!(out, "Project API key (shown once): {key}")?;
        }
        out.flush()?;
    }
    let engine = state.engine.clone();
    let limits = crate::listen::Limits {
        header_read_timeout: Duration::from_secs(args.header_read_timeout),
        keep_alive_timeout: Duration::from_secs(args.keep_alive_timeout),
        body_read_timeout: Duration::from_secs(args.body_read_timeout),
        max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
    };
    let grace = Duration::from_secs(args.shutdown_grace);
    let stopped = async move {
        signals.recv().await;
        tracing::info!(
            grace_seconds = grace.as_secs(),
            "shutting down: no new connections; running Turns get the grace period"
        );
        // A second signal does not wait for anything.
        tokio::spawn(async move {
            signals.recv().await;
            tracing::warn!("second signal: exiting at once");
            std::process::exit(130);
        });
    };
    let finish = async move {
        let failed = engine.drain(grace).await;
        if failed > 0 {
            tracing::warn!(failed, "Turns still running after the grace period failed");
        }
        // Live event streams never end on their own; end them (after the terminal events
        // above) so shutdown can finish.
        engine.hub.close_all();
        // Its Sessions are settled: other replicas may load them at once.
        engine.retire().await;
    };
    crate::listen::serve(listener, router(state), limits, stopped, finish, DRAIN).await?;
    Ok(())
}

/// SIGINT and SIGTERM, as often as they come.
struct Signals {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Signals {
    /// Installs the handlers now, so a failure is reported before serving.
    fn install() -> anyhow::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                int: signal(SignalKind::interrupt()).context("installing the SIGINT handler")?,
                term: signal(SignalKind::terminate()).context("installing the SIGTERM handler")?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next SIGINT or SIGTERM.
    async fn recv(&mut self) {
        #[cfg(unix)]
        tokio::select! { _ = self.int.recv() => {}, _ = self.term.recv() => {} }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Resolves on SIGINT or SIGTERM. The handlers are installed when this is called, not when
/// the future is first polled, so a failure to install them is reported before serving.
pub(crate) fn shutdown_signal()
-> anyhow::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
        let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
        Ok(async move {
            tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
