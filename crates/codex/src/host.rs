//! Sessions sharing one `codex app-server` process, each on a thread of its own.
//!
//! One app-server hosts many threads, and a further idle thread costs about 0.8 MB where a
//! process of its own costs about 23 MB (`docs/benchmarks.md`, issue 18). What a thread takes
//! on `thread/start` is per Session already: model, developer instructions, dynamic tools,
//! working directory, sandbox and approvals; `outputSchema` travels on every `turn/start`. What
//! stays process-wide is what the launch sets: the executable, the `-c` overrides (provider,
//! execution controls) and the environment (the provider key, `CODEX_HOME`). So Sessions whose
//! [`ShareKey`] is equal (same executable, same overrides, same key) share a process; a
//! Session that cannot ([`shareable`]) keeps a process of its own:
//!
//! - a Session with a placement (a workspace): its process runs in the workspace, possibly
//!   inside the workspace's own sandbox, and trusts the workspace in its config;
//! - a Session with MCP servers: each reaches codex through its own credential gateway URL, and
//!   codex starts them per process;
//! - a multi-agent Session: its children's threads are codex's, not bound to it here.
//!
//! **Isolation.** The process's inbound stream is split by thread ([`crate::demux`]); a cancel
//! is `turn/interrupt{threadId, turnId}`, which touches only that Turn. Each Session's tools,
//! instructions and sandbox are its thread's; each Session keeps its own thread-id file, receipts
//! and Turn driver. **`CODEX_HOME` is per process**, not per Session: `<root>/<key>/codex-home`,
//! the same directory for every process of that key, because codex 0.171.0's `thread/resume`
//! finds a rollout by thread id in its `CODEX_HOME` only (it takes no `path`). The Session
//! records which home its thread lives in (`thread-home` in its state directory), and later
//! launches use that home, shared or not, so turning sharing on or off never loses a thread.
//! A Session's shell commands run under codex's `read-only` sandbox, which reads the whole disk;
//! they could read the shared home's other rollouts, but they can read every other Session's
//! own `codex-home` under the Runtime's state root just the same when nothing is shared, so
//! sharing adds no exposure (`docs/benchmarks.md` says so where sharing is measured).
//!
//! **Life.** A [`Lease`] is one Session's thread on a process. The process lives while any
//! lease holds it: the last one dropped ends it (its [`HarnessChild`] kills the group). Eviction
//! unsubscribes the thread (`thread/unsubscribe`, so codex may unload it) and drops the lease;
//! the others carry on. When the process dies, every bound thread's channel closes, every
//! started Turn fails `harness_exited` (no replay: the Turn driver never resends), and each
//! Session's next Turn joins (or starts) a new process of the key and resumes its thread there.
//! A process that leaves a request unanswered for its whole timeout is hung for all of them,
//! and is ended the same way ([`end_when_unanswered`]).

use std::collections::HashMap;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use serde_json::json;
use sha2::{Digest, Sha256};
use switchboard_adapter_kit::adapter::Launch;
use switchboard_adapter_kit::cpu::Cpus;
use switchboard_adapter_kit::process::HarnessChild;
use switchboard_protocol::{ProcessPlacement, SessionConfiguration};

use crate::demux::{self, Binding, Router};
use crate::jsonrpc::{Connection, Inbound};
use crate::launch::{CONTROL_TIMEOUT, LaunchError, StateLayout, THREAD_HOME_FILE, launch};

/// Whether a Session may share a process with others of its [`ShareKey`] (see the module docs).
pub fn shareable(config: &SessionConfiguration, placement: Option<&ProcessPlacement>) -> bool {
    placement.is_none()
        && config.mcp_servers.is_empty()
        && config.mcp_stdio_servers.is_empty()
        && config.mcp_environment_servers.is_empty()
        && config.execution_controls.subagents.is_none()
}

/// What makes two Sessions' processes interchangeable: the executable, the `-c` overrides and
/// the provider key. Only its digest is kept (the key is a secret).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShareKey(String);

impl ShareKey {
    pub fn new(binary: &Path, overrides: &[String], api_key: &str) -> Self {
        let mut digest = Sha256::new();
        digest.update(binary.as_os_str().as_encoded_bytes());
        for part in overrides.iter().map(String::as_str).chain([api_key]) {
            // Length-prefixed, so no two lists digest alike.
            digest.update((part.len() as u64).to_le_bytes());
            digest.update(part.as_bytes());
        }
        ShareKey(hex::encode(&digest.finalize()[..12]))
    }
}

/// What starting a process of a key needs.
pub struct ProcessSpec<'a> {
    pub binary: &'a Path,
    pub overrides: &'a [String],
    pub api_key: &'a str,
}

/// The shared processes of one Runtime, by [`ShareKey`], with their homes under `root`.
pub struct ProcessHost {
    root: PathBuf,
    /// Each key's process, if one lives; the per-key lock makes concurrent joins of a key start
    /// one process, not several.
    processes: Mutex<HashMap<ShareKey, Arc<tokio::sync::Mutex<Weak<SharedProcess>>>>>,
}

impl ProcessHost {
    pub fn new(root: PathBuf) -> Self {
        ProcessHost {
            root,
            processes: Mutex::default(),
        }
    }

    /// The state directory of `key`'s processes (their `codex-home`, stderr log, working dir).
    pub fn layout(&self, key: &ShareKey) -> StateLayout {
        StateLayout::new(self.root.join(&key.0))
    }

    /// A lease on `key`'s live process, starting one when none lives.
    pub async fn join(&self, key: &ShareKey, spec: ProcessSpec<'_>) -> Result<Lease, LaunchError> {
        let entry = self.entry(key, true);
        let mut slot = entry.lock().await;
        if let Some(process) = live(&slot) {
            return Ok(Lease::new(process));
        }
        let layout = self.layout(key);
        // Every CPU: the Sessions on it run their Turns at once.
        let started = launch(
            spec.binary,
            &layout,
            None,
            Cpus::Any,
            spec.overrides,
            spec.api_key,
        )
        .await?;
        let router = Arc::new(Router::default());
        tokio::spawn(demux::run(
            router.clone(),
            started.connection.clone(),
            started.inbound,
        ));
        let process = Arc::new(SharedProcess {
            child: Mutex::new(started.child),
            connection: started.connection,
            router,
        });
        *slot = Arc::downgrade(&process);
        tokio::spawn(end_when_unanswered(Arc::downgrade(&process)));
        Ok(Lease::new(process))
    }

    /// A lease on `key`'s process if one lives; never starts one.
    pub async fn join_live(&self, key: &ShareKey) -> Option<Lease> {
        let entry = self.entry(key, false);
        let slot = entry.lock().await;
        live(&slot).map(Lease::new)
    }

    /// Removes `dir`, a key's home directory under this host's root, when no process of that
    /// key lives and `unused` (run on a blocking thread) says no Session names it any more. The
    /// key's lock is held meanwhile, so no join starts a process on it. Whether it was removed.
    pub async fn remove_if_unused(
        &self,
        dir: &Path,
        unused: impl FnOnce() -> bool + Send + 'static,
    ) -> bool {
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name().and_then(|n| n.to_str()))
        else {
            return false;
        };
        if !crate::released::same_dir(parent, &self.root) {
            return false;
        }
        let entry = self.entry(&ShareKey(name.to_owned()), false);
        let slot = entry.lock().await;
        if live(&slot).is_some() {
            return false;
        }
        let dir = dir.to_owned();
        let removed =
            tokio::task::spawn_blocking(move || unused() && std::fs::remove_dir_all(&dir).is_ok())
                .await
                .unwrap_or(false);
        drop(slot);
        removed
    }

    /// The slot of `key`'s process (made when missing). With `prune`, other keys' entries go
    /// once their process has ended and no join holds them, so the map holds live keys only (a
    /// key's home stays on disk, for its threads).
    fn entry(&self, key: &ShareKey, prune: bool) -> Arc<tokio::sync::Mutex<Weak<SharedProcess>>> {
        let mut processes = self.processes.lock().unwrap_or_else(|e| e.into_inner());
        if prune {
            processes.retain(|k, entry| {
                k == key
                    || Arc::strong_count(entry) > 1
                    || entry.try_lock().map_or(true, |p| p.strong_count() > 0)
            });
        }
        processes.entry(key.clone()).or_default().clone()
    }

    /// Whether `key` has a live process, or one starting (a join would then launch nothing).
    pub fn has_live(&self, key: &ShareKey) -> bool {
        let entry = self
            .processes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned();
        entry.is_some_and(|entry| match entry.try_lock() {
            Ok(slot) => live(&slot).is_some(),
            // A join holds it: it is starting the process, or has found it live.
            Err(_) => true,
        })
    }

    /// The process ids of the live shared processes (for observers: tests, measurements).
    pub fn process_ids(&self) -> Vec<u32> {
        let entries: Vec<_> = self
            .processes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        entries
            .iter()
            .filter_map(|e| live(&*e.try_lock().ok()?))
            .filter_map(|p| p.id())
            .collect()
    }
}

/// The process in a key's slot, if it still lives.
fn live(slot: &Weak<SharedProcess>) -> Option<Arc<SharedProcess>> {
    slot.upgrade().filter(|p| p.is_alive())
}

/// Ends a shared process once a request to it went unanswered for its whole timeout (a Turn's
/// `turn/start`, an interrupt at a Turn's deadline, an unsubscribe): it is hung for every
/// Session on it. Letting go of the one Session that saw the timeout would leave the others'
/// started Turns waiting for their deadlines and every next Turn joining it again. Ended, it
/// fails each started Turn `harness_exited` (no replay), and each Session's next Turn resumes
/// its thread on a new process, as when a shared process dies.
async fn end_when_unanswered(process: Weak<SharedProcess>) {
    let Some(mut unanswered) = process.upgrade().map(|p| p.connection.unanswered()) else {
        return;
    };
    if unanswered.wait_for(|gone| *gone).await.is_err() {
        return;
    }
    if let Some(process) = process.upgrade() {
        tracing::warn!(pid = ?process.id(), "a shared codex process stopped answering; ending it");
        process.end();
    }
}

/// One app-server hosting several Sessions' threads.
pub struct SharedProcess {
    child: Mutex<HarnessChild>,
    connection: Arc<Connection>,
    router: Arc<Router>,
}

impl SharedProcess {
    fn is_alive(&self) -> bool {
        let exited = self
            .child
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .try_wait()
            .map_or(true, |status| status.is_some());
        !exited && !self.router.is_closed()
    }

    fn id(&self) -> Option<u32> {
        self.child.lock().unwrap_or_else(|e| e.into_inner()).id()
    }

    /// Kills the process group; its output ends, and with it every bound thread's channel.
    fn end(&self) {
        self.child
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .kill_group();
    }
}

/// One Session's hold on a shared process: first the process, then (once its thread is open)
/// the routing of that thread's messages.
pub struct Lease {
    process: Arc<SharedProcess>,
    bound: Option<(String, u64)>,
}

impl Lease {
    fn new(process: Arc<SharedProcess>) -> Self {
        Lease {
            process,
            bound: None,
        }
    }

    /// The process's connection, shared with the other Sessions on it.
    pub fn connection(&self) -> &Arc<Connection> {
        &self.process.connection
    }

    /// Routes `thread_id`'s messages to the returned channel; `None` when the process died.
    pub fn bind(
        &mut self,
        thread_id: &str,
    ) -> Option<tokio::sync::mpsc::UnboundedReceiver<Inbound>> {
        let Binding { token, inbound } = self.process.router.bind(thread_id)?;
        self.bound = Some((thread_id.to_owned(), token));
        Some(inbound)
    }

    /// Whether the process still lives.
    pub fn is_alive(&self) -> bool {
        self.process.is_alive()
    }

    /// The process's id (what the Runtime counts once for all the Sessions on it).
    pub fn process_id(&self) -> Option<u32> {
        self.process.id()
    }

    /// Asks codex to unload the bound thread (it stays on disk; a later `thread/resume` loads
    /// it again). The answer is not waited on past the control timeout, and a failure changes
    /// nothing: dropping the lease stops the routing either way.
    pub async fn unsubscribe(&self) {
        if let Some((thread_id, _)) = &self.bound {
            let params = json!({"threadId": thread_id});
            let _ = self
                .process
                .connection
                .request("thread/unsubscribe", params, CONTROL_TIMEOUT)
                .await;
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some((thread_id, token)) = &self.bound {
            self.process.router.unbind(thread_id, *token);
        }
    }
}

/// Where a Session's thread lives and its processes run.
pub enum Home {
    /// A process of its own on `layout` (the Session's state directory, or the home its thread
    /// was recorded in).
    Own(StateLayout),
    /// A thread on the shared process of `key`.
    Shared(Arc<ProcessHost>, ShareKey),
}

impl Home {
    /// Shared when `host` is given, the Session is [`shareable`] and its thread (if any) lives in
    /// the key's home; else the home its thread was recorded in, else its own.
    pub fn choose(
        host: Option<Arc<ProcessHost>>,
        launch: &Launch,
        layout: &StateLayout,
        overrides: &[String],
        has_thread: bool,
    ) -> Home {
        let recorded = layout
            .read_id(THREAD_HOME_FILE)
            .map(PathBuf::from)
            .or_else(|| has_thread.then(|| layout.codex_home()));
        if let Some(host) =
            host.filter(|_| shareable(&launch.configuration, launch.placement.as_ref()))
        {
            let key = ShareKey::new(
                &launch.binary,
                overrides,
                &launch.configuration.model_provider.api_key,
            );
            if recorded
                .as_ref()
                .is_none_or(|home| *home == host.layout(&key).codex_home())
            {
                return Home::Shared(host, key);
            }
        }
        match recorded.as_deref().and_then(std::path::Path::parent) {
            Some(root) if recorded.as_ref() != Some(&layout.codex_home()) => {
                Home::Own(StateLayout::new(root.to_owned()))
            }
            _ => Home::Own(layout.clone()),
        }
    }
}

impl Home {
    /// Whether the thread lives outside the Session's state directory `layout`.
    pub fn is_foreign(&self, layout: &StateLayout) -> bool {
        match self {
            Home::Own(own) => own.root() != layout.root(),
            Home::Shared(..) => true,
        }
    }
}

/// A Session's connection to its process: one of its own, or its thread's lease on a shared one.
pub enum Link {
    Own(Arc<Connection>),
    Shared(Lease),
}

impl Link {
    /// The connection a Turn talks on.
    pub fn connection(&self) -> Arc<Connection> {
        match self {
            Link::Own(connection) => connection.clone(),
            Link::Shared(lease) => lease.connection().clone(),
        }
    }

    /// Whether the process behind the link still lives (an own process is watched by its slot).
    pub fn is_alive(&self) -> bool {
        match self {
            Link::Own(_) => true,
            Link::Shared(lease) => lease.is_alive(),
        }
    }
}

impl Deref for Link {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        match self {
            Link::Own(connection) => connection,
            Link::Shared(lease) => lease.connection(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use switchboard_protocol::ExecutionControls;

    fn launch(state: &Path) -> Launch {
        Launch {
            binary: "/bin/codex".into(),
            state_dir: state.to_owned(),
            configuration: crate::overrides::tests::config(ExecutionControls::default()),
            turn_deadline: Duration::from_secs(1),
            placement: None,
        }
    }

    fn shared_root(home: &Home) -> Option<PathBuf> {
        match home {
            Home::Shared(host, key) => Some(host.layout(key).root().to_owned()),
            Home::Own(_) => None,
        }
    }

    fn own_root(home: &Home) -> Option<PathBuf> {
        match home {
            Home::Own(layout) => Some(layout.root().to_owned()),
            Home::Shared(..) => None,
        }
    }

    /// Turning sharing on or off never moves a thread away from the home it lives in.
    #[test]
    fn a_thread_is_always_resumed_in_the_home_it_was_recorded_in() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("sess");
        let layout = StateLayout::new(state.clone());
        let host = Arc::new(ProcessHost::new(dir.path().join("shared")));
        let choose = |host: Option<&Arc<ProcessHost>>, has_thread| {
            Home::choose(host.cloned(), &launch(&state), &layout, &[], has_thread)
        };
        // No thread yet: shared when sharing is on, its own otherwise.
        let shared = shared_root(&choose(Some(&host), false)).unwrap();
        assert!(shared.starts_with(dir.path().join("shared")));
        assert_eq!(own_root(&choose(None, false)), Some(state.clone()));
        // A thread from before sharing (no record) stays in the Session's own home.
        assert_eq!(own_root(&choose(Some(&host), true)), Some(state.clone()));
        // A thread recorded in the shared home: shared again, and with sharing off, an own
        // process on that home.
        let home = shared.join("codex-home");
        layout
            .write_id(crate::launch::THREAD_HOME_FILE, &home.to_string_lossy())
            .unwrap();
        assert_eq!(
            shared_root(&choose(Some(&host), true)),
            Some(shared.clone())
        );
        let off = choose(None, true);
        assert_eq!(own_root(&off), Some(shared));
        assert!(
            off.is_foreign(&layout),
            "released through codex, not with the directory"
        );
        // Another key's Session (another provider key) never joins that home.
        let mut other = launch(&state);
        other.configuration.model_provider.api_key = "another".into();
        let home = Home::choose(Some(host.clone()), &other, &layout, &[], true);
        assert!(
            own_root(&home).is_some(),
            "its thread is in the first key's home"
        );
    }

    /// A key whose process has ended leaves the map at the next join of another key.
    #[tokio::test]
    async fn an_ended_keys_entry_goes_at_the_next_join() {
        let dir = tempfile::tempdir().unwrap();
        let host = ProcessHost::new(dir.path().join("shared"));
        let missing = dir.path().join("no-codex-here");
        let spec = || ProcessSpec {
            binary: &missing,
            overrides: &[],
            api_key: "k",
        };
        let (first, second) = (ShareKey("first".into()), ShareKey("second".into()));
        assert!(host.join(&first, spec()).await.is_err(), "no binary");
        let keys = |host: &ProcessHost| {
            let mut keys: Vec<String> = host
                .processes
                .lock()
                .unwrap()
                .keys()
                .map(|k| k.0.clone())
                .collect();
            keys.sort();
            keys
        };
        assert_eq!(keys(&host), ["first"]);
        assert!(host.join(&second, spec()).await.is_err());
        assert_eq!(keys(&host), ["second"]);
    }

    #[test]
    fn only_sessions_without_a_workspace_mcp_servers_or_subagents_share() {
        let config = crate::overrides::tests::config(ExecutionControls::default());
        assert!(shareable(&config, None));
        let multi_agent = crate::overrides::tests::config(ExecutionControls {
            subagents: Some(switchboard_protocol::subagents::SubagentControl {
                max_concurrent: None,
            }),
            ..Default::default()
        });
        assert!(!shareable(&multi_agent, None));
        let keys = |key: &str| ShareKey::new(Path::new("/bin/codex"), &["a=1".into()], key);
        assert_eq!(keys("k"), keys("k"));
        assert_ne!(keys("k"), keys("other"));
        assert_ne!(
            ShareKey::new(Path::new("/bin/codex"), &["a=1".into(), "b".into()], "k"),
            ShareKey::new(Path::new("/bin/codex"), &["a=1b".into()], "k"),
        );
    }
}
