//! The Codex adapter (work in progress).

/// The pinned `@openai/codex` npm version; `scripts/install-harnesses.sh` installs the same.
pub const PINNED_VERSION: &str = "0.171.0";
