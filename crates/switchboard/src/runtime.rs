//! `switchboard runtime`: a Runtime in its own process, dialing Core over a WebSocket.
//!
//! It runs Sessions on the native harnesses it finds (like the local Runtime of `serve`) and
//! stays connected: when the connection drops it dials again, waiting 1 s, then twice as long
//! after each failed attempt, up to 30 s (back to 1 s once a connection has been welcomed). A
//! refusal is final: a wrong or missing token (Core answers 401) or another protocol version
//! (`hello_refused`) will not fix itself, so the command exits non-zero saying what to change.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use switchboard_runtime::remote::run_remote_with;
use switchboard_runtime::{Locator, Registry, RemoteError, RemoteOptions, RuntimeOptions};
use tokio_tungstenite::tungstenite;

/// The path Core serves Runtimes on (`switchboard_core::runtime_link::PATH`).
const CONNECT_PATH: &str = "/runtime/connect";
const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(30);

#[derive(Args)]
pub struct RuntimeArgs {
    /// Core's address: `ws://HOST:PORT` (the path defaults to `/runtime/connect`).
    #[arg(long)]
    pub core: String,
    /// The Runtime token Core was started with (`serve --runtime-token`).
    #[arg(long, env = "SWITCHBOARD_RUNTIME_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Where Session state lives and `switchboard harness install` puts harnesses.
    #[arg(long, env = "SWITCHBOARD_DATA_DIR", default_value = ".switchboard")]
    pub data_dir: PathBuf,
    /// How this Runtime introduces itself to Core; a newer connection with the same ID replaces
    /// the older one (default: `<host name>-<process id>`).
    #[arg(long, env = "SWITCHBOARD_RUNTIME_ID")]
    pub runtime_id: Option<String>,
}

pub async fn run(args: RuntimeArgs) -> anyhow::Result<()> {
    let url = connect_url(&args.core)?;
    let runtime_id = args.runtime_id.clone().unwrap_or_else(default_runtime_id);
    let data_dir = crate::paths::absolute(&args.data_dir)?;
    std::fs::create_dir_all(&data_dir)
        .with_context(|| format!("creating {}", data_dir.display()))?;
    let registry = Arc::new(Registry::standard(Locator::from_env(&data_dir)));
    let options = RemoteOptions {
        runtime_id: runtime_id.clone(),
        runtime: RuntimeOptions::for_data_dir(&data_dir),
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
            &args.token,
            registry.clone(),
            options.clone(),
            on_welcome,
        );
        let outcome = tokio::select! {
            outcome = attempt => outcome,
            () = &mut shutdown => return Ok(()),
        };
        if let Some(why) = outcome.as_ref().err().and_then(refusal) {
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
fn refusal(error: &RemoteError) -> Option<String> {
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
                    " Check --token (SWITCHBOARD_RUNTIME_TOKEN) against the --runtime-token Core was started with."
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

/// `ws://HOST:PORT` gets Core's Runtime path; a URL with a path is used as given.
fn connect_url(core: &str) -> anyhow::Result<String> {
    let parsed = url::Url::parse(core).with_context(|| format!("`{core}` is not a URL"))?;
    if !matches!(parsed.scheme(), "ws" | "wss") {
        bail!("`{core}` is not a WebSocket URL: use ws://HOST:PORT");
    }
    if parsed.path().is_empty() || parsed.path() == "/" {
        let mut with_path = parsed;
        with_path.set_path(CONNECT_PATH);
        return Ok(with_path.to_string());
    }
    Ok(core.to_owned())
}

/// `<host name>-<process id>`: stable while this process runs (so a reconnection replaces its
/// own earlier connection in Core), and distinct for two Runtimes on one host.
fn default_runtime_id() -> String {
    let host = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| {
            let name = std::fs::read_to_string(path).ok()?;
            let name = name.trim();
            (!name.is_empty()).then(|| name.to_owned())
        })
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "runtime".to_owned());
    format!("{host}-{}", std::process::id())
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
        assert!(connect_url("http://127.0.0.1:8080").is_err());
        assert!(connect_url("127.0.0.1:8080").is_err());
    }
}
