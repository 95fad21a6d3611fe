//! The install table: one row per harness with everything needed to install and find it.
//!
//! Each row reuses its adapter's constants (`switchboard_codex::binary`,
//! `switchboard_claude::binary`), which read `switchboard_pins` (`crates/pins/pins.env`, also
//! sourced by `scripts/install-harnesses.sh`): an adapter refuses any other version, so the two
//! can never drift.

use switchboard_protocol::configuration::HarnessId;

/// How one harness is installed from npm and where its native executable ends up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarnessInstall {
    pub harness: HarnessId,
    /// The wire name (`codex`, `claude_code`), also the command-line argument.
    pub name: &'static str,
    /// The npm package carrying the harness. Its platform binary arrives as an *optional*
    /// dependency, so an install must never omit optional dependencies.
    pub npm_package: &'static str,
    /// The exact version; any other installed version is reported unavailable.
    pub pinned_version: &'static str,
    /// The native executable inside an install folder (linux x64). It is executed directly, with
    /// no Node wrapper in between.
    pub native_relative_path: &'static str,
    /// The folder name of the install under `harnesses/` (and the repository's `.harnesses/`,
    /// which `scripts/install-harnesses.sh` fills with the same names).
    pub dir_name: &'static str,
    /// The environment variable that names the executable explicitly.
    pub binary_env: &'static str,
}

pub const CODEX: HarnessInstall = HarnessInstall {
    harness: HarnessId::Codex,
    name: "codex",
    npm_package: switchboard_codex::binary::NPM_PACKAGE,
    pinned_version: switchboard_codex::binary::PINNED_VERSION,
    native_relative_path: switchboard_codex::binary::NATIVE_BINARY_RELATIVE_PATH,
    dir_name: "codex",
    binary_env: switchboard_codex::binary::BINARY_ENV,
};

pub const CLAUDE_CODE: HarnessInstall = HarnessInstall {
    harness: HarnessId::ClaudeCode,
    name: "claude_code",
    npm_package: switchboard_claude::binary::NPM_PACKAGE,
    pinned_version: switchboard_claude::binary::PINNED_VERSION,
    // The postinstall hard link (`.bin/claude`) is not needed: the native binary runs as is.
    native_relative_path: switchboard_claude::binary::NATIVE_BINARY_RELATIVE_PATH,
    dir_name: "claude-code",
    binary_env: switchboard_claude::binary::BINARY_ENV,
};

/// Every installable harness, in display order. MiniMax Code has no npm package reachable from
/// here (harnesses.md §0), so it has no row.
pub const ALL: [HarnessInstall; 2] = [CODEX, CLAUDE_CODE];

/// The row for a harness, if it is installable.
pub fn for_harness(harness: HarnessId) -> Option<&'static HarnessInstall> {
    ALL.iter().find(|row| row.harness == harness)
}

/// The row for a command-line name (`codex`, `claude_code`).
pub fn by_name(name: &str) -> Option<&'static HarnessInstall> {
    ALL.iter().find(|row| row.name == name)
}

impl HarnessInstall {
    /// `<package>@<version>`, what `npm install` is given.
    pub fn npm_spec(&self) -> String {
        format!("{}@{}", self.npm_package, self.pinned_version)
    }
}
