//! Is a located harness really usable? It is when its executable runs and `--version` reports
//! exactly the pinned version.
//!
//! The heartbeat's `available` and `switchboard harness list` both come from [`probe`], so the
//! command line and Core never disagree about an install. A version mismatch is unavailable, not
//! "probably fine": adapters speak the pinned version's protocol and nothing else.

use std::path::Path;
use std::time::Duration;

use tokio::process::Command;

use crate::install::HarnessInstall;
use crate::locate::{Located, Locator};

/// The version probe's bound (the harness feasibility lab measured 0.1 s; a cold page cache on a
/// 400 MB binary is far slower, so this is generous).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// One harness's install as found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    pub install: HarnessInstall,
    pub located: Located,
    pub status: Status,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// No file at the resolved path.
    Missing,
    /// The file exists but `--version` failed or printed no version.
    Unrunnable(String),
    /// It runs, but it is another version than the pin.
    VersionMismatch { found: String },
    /// It runs and is the pinned version.
    Ready { version: String },
}

impl Installation {
    pub fn available(&self) -> bool {
        matches!(self.status, Status::Ready { .. })
    }

    /// The version the executable reported, whatever it is.
    pub fn found_version(&self) -> Option<&str> {
        match &self.status {
            Status::Ready { version } => Some(version),
            Status::VersionMismatch { found } => Some(found),
            Status::Missing | Status::Unrunnable(_) => None,
        }
    }

    /// One line for people: why the harness is or is not available.
    pub fn describe(&self) -> String {
        match &self.status {
            Status::Missing => "not installed".to_owned(),
            Status::Unrunnable(why) => format!("does not run: {why}"),
            Status::VersionMismatch { found } => format!(
                "version {found} is installed but {} is pinned",
                self.install.pinned_version
            ),
            Status::Ready { version } => format!("available ({version})"),
        }
    }
}

/// Locates and checks one harness.
pub async fn probe(locator: &Locator, install: &HarnessInstall) -> Installation {
    let located = locator.locate(install);
    let status = if !located.exists {
        Status::Missing
    } else {
        match probe_version(&located.path).await {
            Err(why) => Status::Unrunnable(why),
            Ok(version) if version == install.pinned_version => Status::Ready { version },
            Ok(found) => Status::VersionMismatch { found },
        }
    };
    Installation {
        install: *install,
        located,
        status,
    }
}

/// Runs `<binary> --version` in an empty environment and finds the version in its output
/// (`codex-cli 0.171.0`, `2.1.332 (Claude Code)`).
pub async fn probe_version(binary: &Path) -> Result<String, String> {
    let run = Command::new(binary)
        .arg("--version")
        .env_clear()
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(PROBE_TIMEOUT, run)
        .await
        .map_err(|_| format!("`--version` did not answer within {PROBE_TIMEOUT:?}"))?
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!("`--version` exited with {}", output.status));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    parse_version(&text).ok_or_else(|| format!("no version in `--version` output {text:?}"))
}

/// The first whitespace-separated token shaped like `N.N.N` (digits and dots, optionally with a
/// pre-release suffix after `-`).
pub fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|token| {
            let core = token.split('-').next().unwrap_or_default();
            let parts: Vec<&str> = core.split('.').collect();
            parts.len() == 3
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions_are_found_in_both_harnesses_outputs() {
        assert_eq!(
            parse_version("codex-cli 0.171.0\n").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(
            parse_version("2.1.332 (Claude Code)\n").as_deref(),
            Some("2.1.332")
        );
        assert_eq!(parse_version("codex-cli dev").as_deref(), None);
    }
}
