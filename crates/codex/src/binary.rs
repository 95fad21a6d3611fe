//! Where the pinned native `codex` binary lives, and which version it is.
//!
//! The npm package `@openai/codex` ships the real executable as an optional platform package;
//! Switchboard executes that native binary directly (no Node in between). The pins live here
//! only: `scripts/install-harnesses.sh` and `switchboard harness install` use the same values.

use std::path::{Path, PathBuf};

use tokio::process::Command;

/// The pinned `@openai/codex` npm version.
pub const PINNED_VERSION: &str = "0.171.0";

/// The npm package that carries the wrapper (its platform binary comes as an optional dep).
pub const NPM_PACKAGE: &str = "@openai/codex";

/// The native binary inside an npm install folder (linux x64).
pub const NATIVE_BINARY_RELATIVE_PATH: &str =
    "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";

/// Environment variable that names the codex binary explicitly.
pub const BINARY_ENV: &str = "SWITCHBOARD_CODEX_BIN";

/// The native binary of an install made by `scripts/install-harnesses.sh` under `repo_root`.
pub fn installed_binary(repo_root: &Path) -> PathBuf {
    repo_root
        .join(".harnesses/codex")
        .join(NATIVE_BINARY_RELATIVE_PATH)
}

/// `$SWITCHBOARD_CODEX_BIN` when set, else the install under `repo_root`; `None` when the file
/// does not exist.
pub fn locate(repo_root: &Path) -> Option<PathBuf> {
    let path = match std::env::var_os(BINARY_ENV) {
        Some(explicit) if !explicit.is_empty() => PathBuf::from(explicit),
        _ => installed_binary(repo_root),
    };
    path.is_file().then_some(path)
}

/// Runs `codex --version` and returns the version (`codex-cli 0.171.0` → `0.171.0`).
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
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace().last().map(str::to_owned)
}
