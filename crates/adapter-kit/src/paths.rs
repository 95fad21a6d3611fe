//! Paths from flags and environment variables, made absolute once at start-up.
//!
//! A harness runs in its Session's own working directory, so a relative path (the default
//! `--data-dir .switchboard`, a relative `SWITCHBOARD_CODEX_BIN`) would name another file there.
//! Every such path goes through [`absolute`] as it is read, against the directory the command
//! was started in.

use std::path::{Path, PathBuf};

/// `path` against the current directory (lexically: no symlink is resolved and the file need
/// not exist yet).
pub fn absolute(path: impl AsRef<Path>) -> std::io::Result<PathBuf> {
    std::path::absolute(path.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_joined_to_the_current_directory() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(absolute(".switchboard").unwrap(), cwd.join(".switchboard"));
        assert_eq!(absolute("/abs/x").unwrap(), PathBuf::from("/abs/x"));
    }
}
