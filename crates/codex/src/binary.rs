//! Where the pinned native `codex` binary lives, and which version it is.
//!
//! The npm package `@openai/codex` ships the real executable as an optional platform package;
//! Switchboard executes that native binary directly (no Node in between). The pins come from
//! `switchboard_pins` (`crates/pins/pins.env`), which every other reader shares.

use switchboard_adapter_kit::binary::PinnedBinary;

/// The pinned `@openai/codex` npm version.
pub const PINNED_VERSION: &str = switchboard_pins::CODEX_VERSION;

/// The npm package that carries the wrapper (its platform binary comes as an optional dep).
pub const NPM_PACKAGE: &str = switchboard_pins::CODEX_PACKAGE;

/// The native binary inside an npm install folder (linux x64).
pub const NATIVE_BINARY_RELATIVE_PATH: &str = switchboard_pins::CODEX_NATIVE;

/// Environment variable that names the codex binary explicitly.
pub const BINARY_ENV: &str = "SWITCHBOARD_CODEX_BIN";

/// The pin as the adapter kit checks it.
pub const PINNED: PinnedBinary = PinnedBinary {
    pinned_version: PINNED_VERSION,
    native_relative_path: NATIVE_BINARY_RELATIVE_PATH,
    install_dir: ".harnesses/codex",
    binary_env: BINARY_ENV,
    parse_version,
};

/// The version in what `--version` printed (`codex-cli 0.171.0` → `0.171.0`).
fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace().last().map(str::to_owned)
}
