//! Paths from flags, made absolute once as a command starts (see `switchboard_runtime::paths`).

use std::path::{Path, PathBuf};

use anyhow::Context;

/// `path` against the directory the command was started in.
pub fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    switchboard_runtime::paths::absolute(path)
        .with_context(|| format!("cannot make {} absolute", path.display()))
}

/// `Some(path)` made absolute.
pub fn absolute_opt(path: Option<&Path>) -> anyhow::Result<Option<PathBuf>> {
    path.map(absolute).transpose()
}
