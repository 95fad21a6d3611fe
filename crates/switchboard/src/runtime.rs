//! `switchboard runtime`: a Runtime in its own process, dialing Core over a WebSocket.
//!
//! It runs Sessions on the native harnesses it finds (like the local Runtime of `serve`) and
//! stays connected: when the connection drops it dials again, waiting 1 s, then twice as long
//! after each failed attempt, up to 30 s (back to 1 s once a connection has been welcomed). A
//! refusal is final: a wrong or missing token (Core answers 401) or another protocol version
//! (`hello_refused`) will not fix itself, so the command exits non-zero saying what to change.
//!
//! It authenticates as one of two kinds of Runtime:
//! - a deployment Runtime, with `--token` (the `serve --runtime-token`): it runs
//!   `environment: none` and managed-workspace Sessions;
//! - a self-hosted Environment's Runtime, enrolled once with `--enroll TOKEN` (the token from
//!   the Session create response or `switchboard environments enroll`): the token is exchanged
//!   for a credential kept in the data dir ([`crate::enrolled`]), and later starts without
//!   `--enroll` connect with it. Such a Runtime runs that Environment's Sessions only.
//!
//! `--enroll` wins over `--token`, which wins over a saved credential.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use switchboard_runtime::remote::run_remote_with;
use switchboard_runtime::{RemoteError, RemoteOptions};
use tokio_tungstenite::tungstenite;

use crate::enrolled::{self, Saved};

/// The path Core serves Runtimes on (`switchboard_core::runtime_link::PATH`).
const CONNECT_PATH: &str = "/runtime/connect";
/// Where an enrollment token is exchanged (`switchboard_core::runtime_link::ENROLL_PATH`).
const ENROLL_PATH: &str = "/runtime/enroll";
const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(30);

#[derive(Args)]
pub struct RuntimeArgs {
    /// Core's address: `http://HOST:PORT` or `ws://HOST:PORT` (the path defaults to
    /// `/runtime/connect`).
    #[arg(long)]
    pub core: String,
    /// The Runtime token Core was started with (`serve --runtime-token`): a deployment Runtime.
    #[arg(long, env = "SWITCHBOARD_RUNTIME_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// A self-hosted Environment's one-time enrollment token: exchanged for a credential kept
    /// in the data dir, with which this and every later start connect.
    #[arg(long, value_name = "TOKEN")]
    pub enroll: Option<String>,
    /// Where Session state lives and `switchboard harness install` puts harnesses.
    #[arg(long, env = "SWITCHBOARD_DATA_DIR", default_value = ".switchboard")]
    pub data_dir: PathBuf,
    /// How this Runtime introduces itself to Core; a newer connection with the same ID replaces
    /// the older one (default: `<host name>-<process id>`; an enrolled Runtime's is chosen at
    /// enrollment and kept in its data dir).
    #[arg(long, env = "SWITCHBOARD_RUNTIME_ID")]
    pub runtime_id: Option<String>,
    /// Threads that run this process's async work (the link to Core, the
    /// adapters). Default: half the cores, at least 1, since the harness processes need the CPUs
    /// more.
    #[arg(long, env = "SWITCHBOARD_WORKER_THREADS", value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub worker_threads: Option<u64>,
    /// Harness processes the Runtime keeps alive at once. A Turn that needs one more evicts
    /// the least recently used idle Session's process (its state stays on disk; its next Turn
    /// resumes it); when every process runs a Turn, it waits queued. Default: available memory
    /// / 128 MB, between 4 and 1024.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_live_harnesses: Option<u64>,
    /// Codex Sessions whose process-wide settings are equal share one `codex app-server`, a
    /// thread each (as `serve --share-harness-processes`).
    #[arg(long)]
    pub share_harness_processes: bool,
    /// Started, initialized Codex processes kept waiting for new Sessions, so a Session's first
    /// Turn does not wait for its harness to start. Each holds one of `--max-live-harnesses`
    /// and is ended first when a Turn needs the slot. Default: 1 (2 where memory fits 16 live
    /// processes), always below `--max-live-harnesses`; 0 turns the pool off.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=64))]
    pub warm_harnesses: Option<u64>,
    /// An OpenTelemetry collector's OTLP/HTTP base URL: this Runtime's spans of each Turn
    /// (children of Core's, by `execution_start`'s `traceparent`) are exported to `URL/v1/traces`.
    #[arg(long, env = "SWITCHBOARD_OTLP_ENDPOINT", value_name = "URL")]
    pub otlp_endpoint: Option<String>,
}

/// What this Runtime presents to Core.
enum Authority {
    Deployment(String),
    Environment(Saved),
}

impl Authority {
    fn bearer(&self) -> &str {
        match self {
            Authority::Deployment(token) => token,
            Authority::Environment(saved) => &saved.credential,
        }
    }

    /// What to check when Core answers 401.
    fn unauthorized_hint(&self, data_dir: &std::path::Path) -> String {
        match self {
            Authority::Deployment(_) => " Check --token (SWITCHBOARD_RUNTIME_TOKEN) against the --runtime-token Core was started with.".to_owned(),
            Authority::Environment(saved) => format!(
                " The credential in {} no longer authenticates Environment {} (it enrolled again, or was deleted): run `switchboard environments enroll {}` on the Core host and start this Runtime with --enroll.",
                enrolled::path(data_dir).display(),
                saved.environment_id,
                saved.environment_id
            ),
        }
    }
}

/// The credential this start uses: a new enrollment, the `--token`, or the saved one.
async fn authority(args: &RuntimeArgs, data_dir: &std::path::Path) -> anyhow::Result<Authority> {
    if let Some(token) = &args.enroll {
        let token_digest = switchboard_core::auth::digest(token);
        let earlier = enrolled::load(data_dir).ok().flatten();
        if let Some(earlier) = earlier.filter(|e| e.token_digest.as_ref() == Some(&token_digest)) {
            // This token was exchanged here already: the same command run again.
            return Ok(Authority::Environment(earlier));
        }
        let url = enroll_url(&args.core)?;
        let (environment_id, credential) = enrolled::exchange(&url, token).await?;
        // Re-enrolling a data dir keeps its Runtime ID.
        let runtime_id = match enrolled::load(data_dir).ok().flatten() {
            Some(earlier) => earlier.runtime_id,
            None => enrolled::new_runtime_id(&host_name()),
        };
        let saved = Saved {
            environment_id,
            credential,
            runtime_id,
            token_digest: Some(token_digest),
        };
        enrolled::save(data_dir, &saved)?;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "Enrolled for Environment {}; the credential is saved in {}",
            saved.environment_id,
            enrolled::path(data_dir).display()
        );
        let _ = out.flush();
        return Ok(Authority::Environment(saved));
    }
    if let Some(token) = &args.token {
        return Ok(Authority::Deployment(token.clone()));
    }
    match enrolled::load(data_dir)? {
        Some(saved) => Ok(Authority::Environment(saved)),
        None => bail!(
            "no credential: pass --token (a deployment Runtime) or --enroll TOKEN (a self-hosted Environment's Runtime); {} holds no saved enrollment",
            data_dir.display()
        ),
    }
}

pub async fn run(args: RuntimeArgs) -> anyhow::Result<()> {
    let url = connect_url(&args.core)?;
    let data_dir = crate::paths::absolute(&args.data_dir)?;
    std::fs::create_dir_all(&data_dir)
        .with_context(|| format!("creating {}", data_dir.display()))?;
    let authority = authority(&args, &data_dir).await?;
    let runtime_id = match (&args.runtime_id, &authority) {
        (Some(id), _) => id.clone(),
        (None, Authority::Environment(saved)) => saved.runtime_id.clone(),
        (None, Authority::Deployment(_)) => default_runtime_id(),
    };
    let registry = Arc::new(crate::serve::registry(
        &data_dir,
        args.share_harness_processes,
    ));
    let options = RemoteOptions {
        runtime_id: runtime_id.clone(),
        runtime: crate::serve::runtime_options(
            &data_dir,
            args.max_live_harnesses,
            args.warm_harnesses,
        ),
    };

    let shutdown = crate::serve::shutdown_signal()?;
    tokio::pin!(shutdown);
    let mut retry = FIRST_RETRY;
    loop {
        let welcomed = AtomicBool::new(false);
        let on_welcome = || {
            welcomed.store(true, Ordering::Relaxed);
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "Runtime {runtime_id} connected to {url}");
            let _ = out.flush();
        };
        let attempt = run_remote_with(
            &url,
            authority.bearer(),
            registry.clone(),
            options.clone(),
            on_welcome,
        );
        let outcome = tokio::select! {
            outcome = attempt => outcome,
            () = &mut shutdown => return Ok(()),
        };
        let hint = authority.unauthorized_hint(&data_dir);
        if let Some(why) = outcome.as_ref().err().and_then(|e| refusal(e, &hint)) {
            bail!(why);
        }
        if welcomed.load(Ordering::Relaxed) {
            retry = FIRST_RETRY;
        }
        match outcome {
            Ok(()) => tracing::warn!("Core closed the connection; reconnecting in {retry:?}"),
            Err(e) => tracing::warn!("{e}; reconnecting in {retry:?}"),
        }
        tokio::select! {
            () = tokio::time::sleep(retry) => {}
            () = &mut shutdown => return Ok(()),
        }
        retry = (retry * 2).min(LAST_RETRY);
    }
}

/// The message for an error that retrying cannot fix, or `None` for one worth retrying.
/// `unauthorized_hint` ends the message of a 401.
fn refusal(error: &RemoteError, unauthorized_hint: &str) -> Option<String> {
    match error {
        RemoteError::BadUrl { .. } | RemoteError::Refused { .. } => Some(error.to_string()),
        RemoteError::Connect { url, source } => match source.as_ref() {
            tungstenite::Error::Http(response) if response.status().is_client_error() => {
                let status = response.status();
                let detail = response
                    .body()
                    .as_deref()
                    .and_then(|body| serde_json::from_slice::<serde_json::Value>(body).ok())
                    .and_then(|body| body["error"]["message"].as_str().map(str::to_owned))
                    .unwrap_or_default();
                let hint = if status.as_u16() == 401 {
                    unauthorized_hint
                } else {
                    " Is this the address of a Switchboard Core?"
                };
                Some(format!(
                    "Core at {url} refused this Runtime: HTTP {status}. {detail}{hint}"
                ))
            }
            _ => None,
        },
        RemoteError::Handshake(_) | RemoteError::Timeout(_) | RemoteError::Transport(_) => None,
    }
}

/// `--core` with the scheme `scheme` maps to (`ws`/`wss` for the connection, `http`/`https`
/// for the enrollment): Core prints `http://` in its enroll command, a WebSocket URL is as good.
fn core_url(core: &str, websocket: bool) -> anyhow::Result<url::Url> {
    let mut parsed = url::Url::parse(core).with_context(|| format!("`{core}` is not a URL"))?;
    let scheme = match (parsed.scheme(), websocket) {
        ("ws" | "http", true) => "ws",
        ("wss" | "https", true) => "wss",
        ("ws" | "http", false) => "http",
        ("wss" | "https", false) => "https",
        _ => bail!("`{core}` is not a Core URL: use http://HOST:PORT or ws://HOST:PORT"),
    };
    if parsed.scheme() != scheme {
        // `url` refuses no change between these special schemes.
        parsed
            .set_scheme(scheme)
            .map_err(|()| anyhow::anyhow!("`{core}` is not a Core URL"))?;
    }
    Ok(parsed)
}

fn is_root(url: &url::Url) -> bool {
    url.path().is_empty() || url.path() == "/"
}

/// `ws://HOST:PORT` (or `http://`) gets Core's Runtime path; a URL with a path is used as given.
fn connect_url(core: &str) -> anyhow::Result<String> {
    let mut url = core_url(core, true)?;
    if is_root(&url) {
        url.set_path(CONNECT_PATH);
    }
    Ok(url.to_string())
}

/// The enrollment URL beside the connection URL: Core's root gets `/runtime/enroll`, a URL
/// ending in `/runtime/connect` (behind a proxy) the same prefix.
fn enroll_url(core: &str) -> anyhow::Result<String> {
    let mut url = core_url(core, false)?;
    if is_root(&url) {
        url.set_path(ENROLL_PATH);
    } else if let Some(prefix) = url.path().strip_suffix(CONNECT_PATH) {
        let path = format!("{prefix}{ENROLL_PATH}");
        url.set_path(&path);
    } else {
        bail!("cannot tell where to enroll from `{core}`: give Core's root URL, http://HOST:PORT");
    }
    Ok(url.to_string())
}

/// `<host name>-<process id>`: stable while this process runs (so a reconnection replaces its
/// own earlier connection in Core), and distinct for two Runtimes on one host.
fn default_runtime_id() -> String {
    format!("{}-{}", host_name(), std::process::id())
}

fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| {
            let name = std::fs::read_to_string(path).ok()?;
            let name = name.trim();
            (!name.is_empty()).then(|| name.to_owned())
        })
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "runtime".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_gets_the_runtime_path() {
        assert_eq!(
            connect_url("ws://127.0.0.1:8080").unwrap(),
            "ws://127.0.0.1:8080/runtime/connect"
        );
        assert_eq!(
            connect_url("ws://core.example:9/").unwrap(),
            "ws://core.example:9/runtime/connect"
        );
        assert_eq!(
            connect_url("ws://core.example:9/proxy/runtime/connect").unwrap(),
            "ws://core.example:9/proxy/runtime/connect"
        );
        assert_eq!(
            connect_url("http://127.0.0.1:8080").unwrap(),
            "ws://127.0.0.1:8080/runtime/connect"
        );
        assert_eq!(
            connect_url("https://core.example").unwrap(),
            "wss://core.example/runtime/connect"
        );
        assert!(connect_url("ftp://127.0.0.1:8080").is_err());
        assert!(connect_url("127.0.0.1:8080").is_err());
    }

    #[test]
    fn the_enroll_url_sits_beside_the_connect_url() {
        assert_eq!(
            enroll_url("http://127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080/runtime/enroll"
        );
        assert_eq!(
            enroll_url("wss://core.example/").unwrap(),
            "https://core.example/runtime/enroll"
        );
        assert_eq!(
            enroll_url("ws://core.example:9/proxy/runtime/connect").unwrap(),
            "http://core.example:9/proxy/runtime/enroll"
        );
        assert!(enroll_url("ws://core.example:9/elsewhere").is_err());
    }
}
