//! Where the pinned native `claude` binary lives, and which version it is.
//!
//! The npm package `@anthropic-ai/claude-code` ships the real executable (a self-contained Bun
//! build, no Node needed) as an optional platform package; Switchboard executes that native
//! binary directly. The pins come from `switchboard_pins` (`crates/pins/pins.env`), which
//! every other reader shares.

use switchboard_adapter_kit::binary::PinnedBinary;

/// The pinned `@anthropic-ai/claude-code` npm version.
pub const PINNED_VERSION: &str = switchboard_pins::CLAUDE_CODE_VERSION;

/// The npm package that carries the wrapper (its platform binary comes as an optional dep).
pub const NPM_PACKAGE: &str = switchboard_pins::CLAUDE_CODE_PACKAGE;

/// The native binary inside an npm install folder (linux x64, glibc).
pub const NATIVE_BINARY_RELATIVE_PATH: &str = switchboard_pins::CLAUDE_CODE_NATIVE;

/// Environment variable that names the claude binary explicitly.
pub const BINARY_ENV: &str = "SWITCHBOARD_CLAUDE_BIN";

/// The pin as the adapter kit checks it.
pub const PINNED: PinnedBinary = PinnedBinary {
    pinned_version: PINNED_VERSION,
    native_relative_path: NATIVE_BINARY_RELATIVE_PATH,
    install_dir: ".harnesses/claude-code",
    binary_env: BINARY_ENV,
    parse_version,
};

/// The version in what `--version` printed (`2.1.332 (Claude Code)` → `2.1.332`).
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
