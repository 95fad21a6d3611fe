//! The adapters a Runtime runs, one per harness, and the heartbeat built from them.
//!
//! Each entry pairs an [`Adapter`] with its install row (to find and probe the executable) and
//! the capabilities the adapter implements. The heartbeat advertises exactly the registered
//! harnesses: a harness with an install row but no adapter is not something this Runtime can
//! run, whatever is on disk.

use std::sync::Arc;

use switchboard_claude::ClaudeAdapter;
use switchboard_codex::CodexAdapter;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::Heartbeat;
use switchboard_protocol::{Adapter, Capabilities, HarnessAdvertisement};

use crate::advertise::advertisement;
use crate::install::{self, HarnessInstall};
use crate::locate::Locator;
use crate::probe::probe;

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

/// The Runtime's adapters.
pub struct Registry {
    locator: Locator,
    entries: Vec<Entry>,
}

impl Registry {
    /// An empty registry resolving executables with `locator`.
    pub fn new(locator: Locator) -> Self {
        Registry {
            locator,
            entries: Vec::new(),
        }
    }

    /// Every adapter this build has, each on the executable `locator` resolves. A missing
    /// executable is not an error here: the harness is advertised unavailable.
    pub fn standard(locator: Locator) -> Self {
        let codex = CodexAdapter::new(locator.locate(&install::CODEX).path);
        let mut registry = Registry::new(locator);
        registry
            .register(Arc::new(codex), CodexAdapter::capabilities())
            .expect("codex has an install row and is registered once");
        let claude = ClaudeAdapter::new(registry.locator.locate(&install::CLAUDE_CODE).path);
        registry
            .register(Arc::new(claude), ClaudeAdapter::capabilities())
            .expect("claude_code has an install row and is registered once");
        registry
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
    }

    pub fn locator(&self) -> &Locator {
        &self.locator
    }

    /// Probes every registered harness now.
    pub async fn advertisements(&self) -> Vec<HarnessAdvertisement> {
        let mut out = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            let installation = probe(&self.locator, &entry.install).await;
            out.push(advertisement(&installation, entry.implemented));
        }
        out
    }

    /// The `heartbeat` payload.
    pub async fn heartbeat(&self) -> Heartbeat {
        Heartbeat {
            supported_harnesses: self.advertisements().await,
        }
    }
}
