//! A harness pinned to one version, run as its native executable.
//!
//! Each harness ships on npm with its real executable in an optional platform package, and
//! Switchboard runs that executable directly (no Node in between). An adapter speaks the protocol
//! of exactly one version, so a [`PinnedBinary`] names that version, where an install keeps the
//! executable and which environment variable names it explicitly, and the harness is advertised
//! available only when the executable's `--version` reports exactly the pin.

use std::path::{Path, PathBuf};

use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::{AdapterError, Capabilities, HarnessAdvertisement, HarnessState};
use tokio::process::Command;

/// One harness's pin and how to find and check its executable.
#[derive(Debug, Clone, Copy)]
pub struct PinnedBinary {
    /// The pinned npm version.
    pub pinned_version: &'static str,
    /// The executable inside an npm install folder.
    pub native_relative_path: &'static str,
    /// The install folder under the repository root that `scripts/install-harnesses.sh` fills.
    pub install_dir: &'static str,
    /// The environment variable that names the executable explicitly.
    pub binary_env: &'static str,
    /// The version in what `--version` printed.
    pub parse_version: fn(&str) -> Option<String>,
}

impl PinnedBinary {
    /// The executable of an install made by `scripts/install-harnesses.sh` under `repo_root`.
    pub fn installed_binary(&self, repo_root: &Path) -> PathBuf {
        repo_root
            .join(self.install_dir)
            .join(self.native_relative_path)
    }

    /// The executable named by [`PinnedBinary::binary_env`] when that is set, else the install
    /// under `repo_root`; `None` when the file does not exist.
    pub fn locate(&self, repo_root: &Path) -> Option<PathBuf> {
        let path = match std::env::var_os(self.binary_env) {
            Some(explicit) if !explicit.is_empty() => {
                crate::paths::absolute(&explicit).unwrap_or_else(|_| PathBuf::from(explicit))
            }
            _ => self.installed_binary(repo_root),
        };
        path.is_file().then_some(path)
    }

    /// Runs `<binary> --version` with an empty environment and returns the version it reports.
    pub async fn probe_version(&self, binary: &Path) -> Option<String> {
        let output = Command::new(binary)
            .arg("--version")
            .env_clear()
            .output()
            .await
            .ok()?;
        if !output.status.success() {
            return None;
        }
        (self.parse_version)(&String::from_utf8_lossy(&output.stdout))
    }

    /// What the Runtime advertises for the executable at `binary`: available only at the pin.
    pub async fn advertise(
        &self,
        harness: HarnessId,
        binary: &Path,
        capabilities: Capabilities,
    ) -> HarnessAdvertisement {
        let version = self.probe_version(binary).await;
        let state = match version.as_deref() {
            Some(v) if v == self.pinned_version => HarnessState::Available,
            Some(v) => HarnessState::Failed {
                reason: format!(
                    "version {v} is installed but {} is pinned",
                    self.pinned_version
                ),
            },
            None if binary.is_file() => HarnessState::Failed {
                reason: format!("{} does not answer `--version`", binary.display()),
            },
            None => HarnessState::Missing,
        };
        HarnessAdvertisement::new(harness, state, version, capabilities)
    }
}

/// Refuses to prepare a Session on an executable that is not there.
pub fn require(binary: &Path) -> Result<(), AdapterError> {
    if binary.is_file() {
        Ok(())
    } else {
        Err(AdapterError::Unavailable(format!(
            "{} does not exist",
            binary.display()
        )))
    }
}
