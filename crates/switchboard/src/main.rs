//! `switchboard`: one binary for the server, its key management and the offline mock model.

mod database;
mod enrolled;
mod environments;
mod harness;
mod keep_alive;
mod keys;
mod listen;
mod metrics;
mod paths;
mod projects;
mod runtime;
mod serve;
mod traces;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "switchboard",
    version,
    about = "A self-hostable OpenAI Agents API server on native agent harnesses"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run Core with the embedded store and (unless --no-local-runtime) the local Runtime.
    Serve(Box<serve::ServeArgs>),
    /// Manage Project API keys (stored as digests, never in plain text).
    Keys(keys::KeysArgs),
    /// Manage Projects: every resource belongs to one, and a key sees only its own.
    Projects(projects::ProjectsArgs),
    /// Run the scripted, deterministic mock model provider on loopback.
    MockModel(switchboard_mock_model::cli::MockModelArgs),
    /// Install the pinned native harnesses and show what the Runtime will find.
    Harness(harness::HarnessArgs),
    /// Run a Runtime that dials Core over a WebSocket and runs its Sessions here.
    Runtime(runtime::RuntimeArgs),
    /// Manage self-hosted Environments from the Core host (a new enrollment token).
    Environments(environments::EnvironmentsArgs),
    /// Inside a managed workspace's sandbox without network: relay the model provider, then run
    /// the harness (started by the Runtime, not by people).
    #[command(hide = true)]
    SandboxRelay {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
}

impl Command {
    /// The async threads of a process that hosts harness processes: `--worker-threads`, else
    /// half the cores (`switchboard_runtime::capacity`); `None` (one per core, tokio's default)
    /// for one that hosts none.
    fn worker_threads(&self) -> Option<usize> {
        let (asked, hosts_harnesses) = match self {
            Command::Serve(a) => (a.worker_threads, !a.no_local_runtime),
            Command::Runtime(a) => (a.worker_threads, true),
            _ => (None, false),
        };
        match asked {
            Some(n) => usize::try_from(n).ok(),
            None if hosts_harnesses => {
                Some(switchboard_runtime::capacity::default_worker_threads_beside_harnesses())
            }
            None => None,
        }
    }
}

/// mimalloc instead of glibc's malloc: Core allocates per request (JSON trees, header maps,
/// IDs), and glibc's `malloc`/`free`/`malloc_consolidate` were ~15 % of an Agent create's
/// samples; mimalloc raised Agent create throughput by ~40 % in `front_door` (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // `serve` traces its Turns (for `sessions.traces`, and OTLP with `--otlp-endpoint`); a
    // remote Runtime exports its side of them with its own `--otlp-endpoint`.
    let telemetry = match &cli.command {
        Command::Serve(a) => Some(a.otlp_endpoint.as_deref()),
        Command::Runtime(a) => a.otlp_endpoint.as_deref().map(Some),
        _ => None,
    }
    .map(switchboard_telemetry::Telemetry::new)
    .transpose()?;
    // `switchboard=info`: the binary's own few lines (a harness install ending).
    switchboard_telemetry::Telemetry::install(telemetry.as_ref(), "warn,switchboard=info");
    let turn_spans = telemetry.as_ref().map(|t| t.turns().clone());
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = cli.command.worker_threads() {
        rt.worker_threads(threads);
    }
    let rt = rt.enable_all().build()?;
    let result = rt.block_on(async move {
        match cli.command {
            Command::Serve(a) => serve::run(*a, turn_spans).await,
            Command::Keys(a) => keys::run(a).await,
            Command::Projects(a) => projects::run(a).await,
            Command::MockModel(mut a) => {
                a.script = paths::absolute_opt(a.script.as_deref())?;
                a.journal = paths::absolute_opt(a.journal.as_deref())?;
                switchboard_mock_model::cli::run(a).await
            }
            Command::Harness(a) => harness::run(a).await,
            Command::Runtime(a) => runtime::run(a).await,
            Command::Environments(a) => environments::run(a).await,
            Command::SandboxRelay { args } => {
                let code = switchboard_runtime::workspace::relay::run_inside(args).await?;
                std::process::exit(code)
            }
        }
    });
    // Outside the runtime: the exporter's last batch is sent with a blocking client.
    if let Some(telemetry) = telemetry {
        telemetry.shutdown();
    }
    result
}
