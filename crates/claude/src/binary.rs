//! Where the pinned native `claude` binary lives, and which version it is.
//!
//! The npm package `@anthropic-ai/claude-code` ships the real executable (a self-contained Bun
//! build, no Node needed) as an optional platform package; Switchboard executes that native
//! binary directly. The pins live here: the Runtime's install table reuses them, and
//! `scripts/install-harnesses.sh` repeats the same values.

use std::path::{Path, PathBuf};

use tokio::process::Command;

/// The pinned `@anthropic-ai/claude-code` npm version.
pub const PINNED_VERSION: &str = "2.1.332";

/// The npm package that carries the wrapper (its platform binary comes as an optional dep).
pub const NPM_PACKAGE: &str = "@anthropic-ai/claude-code";

/// The native binary inside an npm install folder (linux x64, glibc).
pub const NATIVE_BINARY_RELATIVE_PATH: &str =
    "node_modules/@anthropic-ai/claude-code-linux-x64/claude";

/// Environment variable that names the claude binary explicitly.
pub const BINARY_ENV: &str = "SWITCHBOARD_CLAUDE_BIN";

/// The native binary of an install made by `scripts/install-harnesses.sh` under `repo_root`.
pub fn installed_binary(repo_root: &Path) -> PathBuf {
    repo_root
        .join(".harnesses/claude-code")
        .join(NATIVE_BINARY_RELATIVE_PATH)
}

/// `$SWITCHBOARD_CLAUDE_BIN` when set, else the install under `repo_root`; `None` when the file
/// does not exist.
pub fn locate(repo_root: &Path) -> Option<PathBuf> {
    let path = match std::env::var_os(BINARY_ENV) {
        Some(explicit) if !explicit.is_empty() => PathBuf::from(explicit),
        _ => installed_binary(repo_root),
    };
    path.is_file().then_some(path)
}

/// Runs `claude --version` and returns the version (`2.1.332 (Claude Code)` → `2.1.332`).
pub async fn probe_version(binary: &Path) -> Option<String> {
    let output = Command::new(binary)
        .arg("--version")
        .env_clear()
        .output()
        .await
        .ok()?;
    if !output.status.success() {
        return None;
    }
    parse_version(&String::from_utf8_lossy(&output.stdout))
}

fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace().next().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_is_the_first_word() {
        assert_eq!(
            super::parse_version("2.1.332 (Claude Code)\n").as_deref(),
            Some("2.1.332")
        );
        assert_eq!(super::parse_version("  "), None);
    }
}
