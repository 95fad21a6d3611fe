//! The adapters a Runtime runs, one per harness, and the heartbeat built from them.
//!
//! Each entry pairs an [`Adapter`] with its install row (to find and probe the executable) and
//! the capabilities the adapter implements. The heartbeat advertises exactly the registered
//! harnesses: a harness with an install row but no adapter is not something this Runtime can
//! run, whatever is on disk. It also tracks the installs this Runtime started
//! ([`Registry::install_missing`]): `installing` while one runs, `failed` with its reason after,
//! and a fresh heartbeat as soon as one ends.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use switchboard_acp::{AcpAdapter, MINIMAX_CODE};
use switchboard_claude::ClaudeAdapter;
use switchboard_codex::{Codex, CodexAdapter};
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::Heartbeat;
use switchboard_protocol::{Adapter, Capabilities, HarnessAdvertisement, HarnessState};
use tokio::sync::watch;

use crate::advertise::{advertisement, capabilities};
use crate::install::{self, HarnessInstall};
use crate::installer::{self, InstallReport};
use crate::locate::{Locator, Source};
use crate::probe::probe;
use crate::workspace::sandbox::Bwrap;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    #[error("harness {0:?} has no install row, so the Runtime cannot find or probe it")]
    NotInstallable(HarnessId),
    #[error("harness {0:?} is already registered")]
    Duplicate(HarnessId),
}

struct Entry {
    adapter: Arc<dyn Adapter>,
    install: HarnessInstall,
    implemented: Capabilities,
}

/// An adapter that finds and probes its own executable (it has no npm install row: MiniMax
/// Code is not in the registry this machine reaches).
struct SelfLocated {
    adapter: Arc<dyn Adapter>,
    implemented: Capabilities,
    /// What a managed sandbox shows of the host for it, read-only (its install).
    sandbox_paths: Vec<PathBuf>,
}

/// An install this Runtime started (a harness it never tried to install has none).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Install {
    Running,
    Failed(String),
}

/// The Runtime's adapters.
pub struct Registry {
    locator: Locator,
    entries: Vec<Entry>,
    self_located: Vec<SelfLocated>,
    installs: Mutex<HashMap<HarnessId, Install>>,
    /// Bumped when an install ends, so every frame loop sends a fresh heartbeat at once.
    changed: watch::Sender<u64>,
    /// A `bwrap` that worked when the registry was made: managed workspaces are offered only
    /// with it.
    bwrap: Option<Bwrap>,
    /// The standard Codex adapter, which the warm pool starts processes of (`crate::warm`).
    codex: Option<Arc<CodexAdapter>>,
}

impl Registry {
    /// An empty registry resolving executables with `locator`.
    pub fn new(locator: Locator) -> Self {
        Registry {
            locator,
            entries: Vec::new(),
            self_located: Vec::new(),
            installs: Mutex::new(HashMap::new()),
            changed: watch::Sender::new(0),
            bwrap: Bwrap::probe(),
            codex: None,
        }
    }

    /// The same registry with `bwrap` as its sandbox (`None`: managed workspaces are off).
    pub fn with_bwrap(mut self, bwrap: Option<Bwrap>) -> Self {
        self.bwrap = bwrap;
        self
    }

    /// The sandbox managed workspaces run in, when this machine has one.
    pub fn bwrap(&self) -> Option<&Bwrap> {
        self.bwrap.as_ref()
    }

    /// The folder `harness` is installed in (its native executable's install, or the
    /// executable's own directory when it was named explicitly): what a sandbox shows of it.
    pub fn install_dir(&self, harness: HarnessId) -> Option<PathBuf> {
        let entry = self.entries.iter().find(|e| e.install.harness == harness)?;
        let binary = self.locator.locate(&entry.install).path;
        let relative = Path::new(entry.install.native_relative_path);
        let mut dir = binary.as_path();
        if binary.ends_with(relative) {
            for _ in relative.components() {
                dir = dir.parent()?;
            }
            return Some(dir.to_owned());
        }
        binary.parent().map(Path::to_owned)
    }

    /// What a managed sandbox of `harness` shows of the host, read-only: the install of an
    /// installable harness ([`Registry::install_dir`]), or the paths a self-located agent's
    /// profile names (MiniMax Code's install and the runtime it needs).
    pub fn sandbox_paths(&self, harness: HarnessId) -> Vec<PathBuf> {
        if let Some(dir) = self.install_dir(harness) {
            return vec![dir];
        }
        self.self_located
            .iter()
            .find(|e| e.adapter.harness() == harness)
            .map(|e| e.sandbox_paths.clone())
            .unwrap_or_default()
    }

    /// `implemented` plus what the Runtime itself provides for workspaces: it places every
    /// process in a self-hosted directory, reads and writes workspace files, and, with a
    /// working `bwrap`, creates managed workspaces.
    fn with_workspaces(&self, implemented: Capabilities) -> Capabilities {
        Capabilities {
            local_environment: true,
            workspace_read_preparation: true,
            workspace_output_export: true,
            managed_workspace: self.bwrap.is_some(),
            ..implemented
        }
    }

    /// Every adapter this build has, each on the executable `locator` resolves. A missing
    /// executable is not an error here: the harness is advertised unavailable.
    pub fn standard(locator: Locator) -> Self {
        let codex = Arc::new(CodexAdapter::new(locator.locate(&install::CODEX).path));
        let claude = ClaudeAdapter::new(locator.locate(&install::CLAUDE_CODE).path);
        let mut registry = Registry::new(locator);
        // Each adapter goes in with the install row it was located by, one per harness, so
        // neither of `register`'s refusals can apply.
        registry.entries = vec![
            Entry {
                adapter: codex.clone(),
                install: install::CODEX,
                implemented: CodexAdapter::capabilities(),
            },
            Entry {
                adapter: Arc::new(claude),
                install: install::CLAUDE_CODE,
                implemented: ClaudeAdapter::capabilities(),
            },
        ];
        registry.self_located = vec![minimax_code()];
        registry.codex = Some(codex);
        registry
    }

    /// The same registry with Codex Sessions sharing `codex app-server` processes, a thread
    /// each, where their process-wide settings are equal (`switchboard_codex::host`); the
    /// shared processes' homes live under `root`. Off unless asked for
    /// (`--share-harness-processes`): one process's death fails every started Turn on it.
    pub fn with_shared_codex_processes(mut self, root: PathBuf) -> Self {
        let binary = self.locator.locate(&install::CODEX).path;
        let codex = Codex::default().with_shared_processes(root);
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| e.install.harness == HarnessId::Codex)
        {
            let adapter = Arc::new(CodexAdapter::with_harness(binary, codex));
            entry.adapter = adapter.clone();
            self.codex = Some(adapter);
        }
        self
    }

    /// The Codex adapter warm processes are started for (the one Sessions run on).
    pub fn codex(&self) -> Option<Arc<CodexAdapter>> {
        self.codex.clone()
    }

    /// Adds an adapter that implements `implemented`.
    pub fn register(
        &mut self,
        adapter: Arc<dyn Adapter>,
        implemented: Capabilities,
    ) -> Result<(), RegistryError> {
        let harness = adapter.harness();
        let install =
            *install::for_harness(harness).ok_or(RegistryError::NotInstallable(harness))?;
        if self.adapter(harness).is_some() {
            return Err(RegistryError::Duplicate(harness));
        }
        self.entries.push(Entry {
            adapter,
            install,
            implemented,
        });
        Ok(())
    }

    pub fn adapter(&self, harness: HarnessId) -> Option<Arc<dyn Adapter>> {
        self.entries
            .iter()
            .find(|e| e.install.harness == harness)
            .map(|e| e.adapter.clone())
            .or_else(|| {
                self.self_located
                    .iter()
                    .find(|e| e.adapter.harness() == harness)
                    .map(|e| e.adapter.clone())
            })
    }

    pub fn locator(&self) -> &Locator {
        &self.locator
    }

    /// A self-located adapter's own advertisement, with the Runtime's workspaces, narrowed to
    /// its declaration.
    async fn self_advertisement(&self, entry: &SelfLocated) -> HarnessAdvertisement {
        let mut ad = entry.adapter.advertise().await;
        ad.capabilities = capabilities(ad.harness, self.with_workspaces(entry.implemented));
        ad
    }

    /// Probes every registered harness now. A running install is advertised `installing`
    /// (its files are not complete yet); a failed one `failed` with its reason, until the
    /// harness is found usable after all (installed by hand, say).
    pub async fn advertisements(&self) -> Vec<HarnessAdvertisement> {
        let mut out = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            let harness = entry.install.harness;
            let install = self.install_state(harness);
            let implemented = self.with_workspaces(entry.implemented);
            if install == Some(Install::Running) {
                let caps = capabilities(harness, implemented);
                out.push(HarnessAdvertisement::new(
                    harness,
                    HarnessState::Installing,
                    None,
                    caps,
                ));
                continue;
            }
            let installation = probe(&self.locator, &entry.install).await;
            let mut ad = advertisement(&installation, implemented);
            if let (Some(Install::Failed(reason)), false) = (install, ad.available) {
                ad = HarnessAdvertisement::new(
                    harness,
                    HarnessState::Failed { reason },
                    None,
                    ad.capabilities,
                );
            }
            out.push(ad);
        }
        for entry in &self.self_located {
            out.push(self.self_advertisement(entry).await);
        }
        out
    }

    /// The install states, even after a panic elsewhere while they were held: each change is
    /// one insert or remove, so what a poisoned lock holds is still consistent.
    fn installs(&self) -> MutexGuard<'_, HashMap<HarnessId, Install>> {
        self.installs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn install_state(&self, harness: HarnessId) -> Option<Install> {
        self.installs().get(&harness).cloned()
    }

    /// Changes that call for a heartbeat now (an install ended).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Installs each of `harnesses` that is registered, not usable, and would be found in the
    /// data dir (an explicit path from the environment is never replaced), one after another
    /// in the background. Every one of them is advertised `installing` from when this returns;
    /// the harnesses it installs are returned.
    pub async fn install_missing(
        self: &Arc<Self>,
        harnesses: &[HarnessId],
        report: Arc<dyn InstallReport>,
    ) -> Vec<HarnessId> {
        let mut rows = Vec::new();
        for harness in harnesses {
            let Some(entry) = self.entries.iter().find(|e| e.install.harness == *harness) else {
                continue;
            };
            if rows.contains(&entry.install) {
                continue;
            }
            let installation = probe(&self.locator, &entry.install).await;
            if installation.available() || installation.located.source == Source::Environment {
                continue;
            }
            rows.push(entry.install);
        }
        {
            let mut installs = self.installs();
            for row in &rows {
                installs.insert(row.harness, Install::Running);
            }
        }
        let started = rows.iter().map(|r| r.harness).collect();
        let this = self.clone();
        tokio::spawn(async move {
            for row in rows {
                let outcome =
                    installer::install(this.locator.data_dir(), &row, report.as_ref()).await;
                let state = outcome.err().map(|e| Install::Failed(e.to_string()));
                {
                    let mut installs = this.installs();
                    match state {
                        Some(failed) => installs.insert(row.harness, failed),
                        None => installs.remove(&row.harness),
                    };
                }
                this.changed.send_modify(|n| *n += 1);
            }
        });
        started
    }

    /// The `heartbeat` payload.
    pub async fn heartbeat(&self) -> Heartbeat {
        Heartbeat {
            supported_harnesses: self.advertisements().await,
        }
    }
}

/// MiniMax Code on the ACP adapter, at `SWITCHBOARD_MINIMAX_CODE_BIN` or `mcode` on `PATH`
/// (none: advertised unavailable with the reason), on every placement: a managed sandbox
/// reaches the adapter's `functions` server through the host's loopback (network enabled) or
/// the relay's loopback bridge (network disabled).
fn minimax_code() -> SelfLocated {
    let binary = MINIMAX_CODE.locate(Path::new(""));
    let sandbox_paths = binary
        .as_deref()
        .map(|b| MINIMAX_CODE.sandbox_paths(b))
        .unwrap_or_default();
    SelfLocated {
        adapter: Arc::new(AcpAdapter::new(MINIMAX_CODE, binary)),
        implemented: MINIMAX_CODE.advertised(),
        sandbox_paths,
    }
}
