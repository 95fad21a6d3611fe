//! Warm processes: `codex app-server`s started and initialized before any Session asks for one,
//! and binding one to a Session at its preparation.
//!
//! What a Session sets in codex splits in two. The process-wide part is fixed when the process
//! starts: the `-c` overrides ([`crate::overrides`]: provider, web search, code mode, Subagents;
//! [`crate::mcp`]: MCP servers), the provider key in the environment, and the placement. The
//! per-thread part travels on `thread/start` (`model`, `developerInstructions`, `dynamicTools`,
//! `cwd`, `sandbox`, `approvalPolicy`, `ephemeral`: [`crate::resume`]), and the output schema on
//! every `turn/start`. So a process started for one Session's process-wide settings serves any
//! other Session with the same ones: the [`WarmKey`] is exactly those settings, and a warm
//! process is bound only to a Session whose key is equal.
//!
//! Before it is ready a warm process runs one throwaway Turn on a loopback sink of its own
//! ([`crate::primer`]), so the bound Session's first Turn does not pay codex's first-Turn setup.
//!
//! Which Sessions can be warm: only `environment: none` Sessions without MCP servers. A
//! workspace placement fixes the process's sandbox and working directory at spawn (bubblewrap
//! wraps the process itself), and a Session's MCP servers are process-wide and point at its own
//! gateway (`runtime/src/mcp_gateway.rs`, one port per Session), so no process started before
//! the Session could carry them. With shared processes on (`--share-harness-processes`), a
//! Session that can share joins its key's shared process, never a warm one.
//!
//! Where the state goes. codex resolves `CODEX_HOME` once, canonicalized, at start, and writes
//! its rollouts there. A warm process therefore starts with its own state directory (in the
//! Runtime's pool folder), and binding makes the Session's state directory a symbolic link to
//! it: the thread id, the rollouts and the stderr log are where a cold launch of the Session
//! (after eviction) looks for them, through the link, and `thread/resume` finds the history.
//! Whoever removes the Session's state removes the link's target too.

use std::fmt;
use std::path::{Path, PathBuf};

use switchboard_adapter_kit::cpu::Cpus;
use switchboard_protocol::{AdapterError, PrepareRequest, SessionExecutor};

use crate::CodexAdapter;
use crate::executor::CodexExecutor;
use crate::launch::{CodexProcess, StateLayout, launch, launch_overrides, own_process_cpus};

/// A Session's process-wide codex settings: equal keys, interchangeable processes. Its `Debug`
/// leaves the provider key out.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct WarmKey {
    binary: PathBuf,
    overrides: Vec<String>,
    api_key: String,
    /// The CPUs the process runs on, as the Session's own would ([`own_process_cpus`]).
    cpus: Cpus,
}

impl fmt::Debug for WarmKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarmKey")
            .field("binary", &self.binary)
            .field("overrides", &self.overrides)
            .field("cpus", &self.cpus)
            .finish_non_exhaustive()
    }
}

impl WarmKey {
    /// The key of the Session `request` prepares on `adapter`, or `None` when it cannot run on a
    /// warm process (a workspace placement, MCP servers: see the module docs).
    pub fn of(adapter: &CodexAdapter, request: &PrepareRequest) -> Option<WarmKey> {
        let config = &request.configuration;
        let has_mcp = !(config.mcp_servers.is_empty()
            && config.mcp_stdio_servers.is_empty()
            && config.mcp_environment_servers.is_empty());
        if request.placement.is_some() || config.workspace.is_some() || has_mcp {
            return None;
        }
        // A Session that shares a process joins its key's shared one instead ([`crate::host`]).
        if adapter.native().host().is_some()
            && crate::host::shareable(config, request.placement.as_ref())
        {
            return None;
        }
        Some(WarmKey {
            binary: adapter.binary().to_owned(),
            overrides: launch_overrides(config, None),
            api_key: config.model_provider.api_key.clone(),
            cpus: own_process_cpus(config, None),
        })
    }
}

/// A started, initialized app-server that belongs to no Session yet, with the state directory
/// it was started in.
pub struct WarmProcess {
    key: WarmKey,
    dir: PathBuf,
    process: CodexProcess,
    /// Kept from the start: the child forgets its id once it has been reaped.
    pid: Option<u32>,
}

impl WarmProcess {
    /// Starts and initializes codex for `key` in the state directory `dir` (created), and runs
    /// its primer Turn ([`crate::primer`]).
    pub async fn start(key: WarmKey, dir: PathBuf) -> Result<WarmProcess, AdapterError> {
        let layout = StateLayout::new(dir.clone());
        let mut process = launch(
            &key.binary,
            &layout,
            None,
            key.cpus,
            &key.overrides,
            &key.api_key,
        )
        .await
        .map_err(|e| AdapterError::Launch(e.to_string()))?;
        if let Err(error) = crate::primer::prime(&mut process, &layout).await {
            process.shutdown().await;
            return Err(AdapterError::Launch(format!("priming failed: {error}")));
        }
        let pid = process.child.id();
        Ok(WarmProcess {
            key,
            dir,
            process,
            pid,
        })
    }

    pub fn key(&self) -> &WarmKey {
        &self.key
    }

    /// Its state directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The process id it was started with (also after it has exited).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Whether the process has exited (it must then be discarded, never bound).
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.process.child.try_wait(), Ok(None))
    }

    /// Ends the process and removes its state directory (no Session's state yet).
    pub async fn end(self) {
        self.process.shutdown().await;
        let _ = tokio::fs::remove_dir_all(&self.dir).await;
    }
}

/// Why a warm process could not be bound.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("the Session's state directory {0} already exists")]
    StateExists(PathBuf),
    #[error("cannot link the Session's state directory to the warm process's: {0}")]
    Link(std::io::Error),
}

/// Prepares the Session of `request` on `warm`, whose key must be the request's
/// ([`WarmKey::of`]): the Session's state directory, which must not exist yet, becomes a link
/// to the warm process's, and its thread opens on the process. The same checks as a cold
/// preparation run first. On failure the process is ended and the link removed.
pub async fn prepare(
    adapter: &CodexAdapter,
    request: PrepareRequest,
    warm: WarmProcess,
) -> Result<Box<dyn SessionExecutor>, AdapterError> {
    debug_assert_eq!(WarmKey::of(adapter, &request).as_ref(), Some(&warm.key));
    let state_dir = request.state_dir.clone();
    let launch = match adapter.launch(request) {
        Ok(launch) => launch,
        Err(error) => {
            warm.end().await;
            return Err(error);
        }
    };
    if let Err(error) = link(&warm.dir, &state_dir) {
        warm.end().await;
        return Err(AdapterError::Launch(error.to_string()));
    }
    let managed_dir = adapter.native().managed_dir().to_owned();
    match CodexExecutor::prepare_on(launch, managed_dir, warm.process).await {
        Ok(executor) => Ok(Box::new(executor)),
        Err(error) => {
            let _ = std::fs::remove_file(&state_dir);
            let _ = std::fs::remove_dir_all(&warm.dir);
            Err(error)
        }
    }
}

/// Makes `state_dir` a link to `target`.
fn link(target: &Path, state_dir: &Path) -> Result<(), BindError> {
    if state_dir.symlink_metadata().is_ok() {
        return Err(BindError::StateExists(state_dir.to_owned()));
    }
    if let Some(parent) = state_dir.parent() {
        std::fs::create_dir_all(parent).map_err(BindError::Link)?;
    }
    // Absolute: a relative target would be read from the link's own folder.
    let target = std::fs::canonicalize(target).map_err(BindError::Link)?;
    std::os::unix::fs::symlink(target, state_dir).map_err(BindError::Link)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Codex;
    use switchboard_protocol::ExecutionControls;

    fn request() -> PrepareRequest {
        PrepareRequest {
            session_id: "sess_1".into(),
            configuration: crate::overrides::tests::config(ExecutionControls::default()),
            state_dir: "/tmp/sess_1".into(),
            placement: None,
        }
    }

    /// A Session that would join a shared process never takes a warm one; with sharing off the
    /// same Session is keyed, and a provider key of its own makes another key.
    #[test]
    fn a_shareable_session_is_warm_only_without_shared_processes() {
        let own = CodexAdapter::new("/bin/codex".into());
        let shared = CodexAdapter::with_harness(
            "/bin/codex".into(),
            Codex::default().with_shared_processes("/tmp/shared".into()),
        );
        let key = WarmKey::of(&own, &request()).expect("keyed without sharing");
        assert_eq!(WarmKey::of(&shared, &request()), None);
        let mut other = request();
        other.configuration.model_provider.api_key = "another".into();
        assert_ne!(WarmKey::of(&own, &other), Some(key));
    }
}
