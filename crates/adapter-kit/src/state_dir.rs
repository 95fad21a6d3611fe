//! A Session's state directory.
//!
//! The Runtime gives each executor a directory of its own, and everything the harness reads or
//! writes lives under it: a Session is hermetic (nothing of the host user's harness setup is
//! read, nothing is written outside) and survives eviction, because what resume needs stays on
//! disk there. Whatever the harness, the process runs in the directory's fixed working directory
//! and appends its stderr to a log file in it, and the adapter keeps the Session's native id in a
//! small file so that a restarted Runtime finds it again. Each adapter names its own folders and
//! files on top of a [`StateDir`].

use std::path::{Path, PathBuf};

/// A state directory (or a file in it) that could not be created or written. It is defined
/// here, below the process that fails to spawn because of it, so the two modules point one way.
#[derive(Debug, thiserror::Error)]
#[error("cannot prepare the state directory {path}: {source}")]
pub struct StateDirError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// The state directory of one Session on one harness.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
    harness: &'static str,
}

impl StateDir {
    /// The directory at `root` for a Session on `harness` (the name in its log file's name).
    pub fn new(root: PathBuf, harness: &'static str) -> Self {
        StateDir { root, harness }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A file or folder directly in the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// The working directory of the process. It never changes (a harness may key its records by
    /// it), and the Session has no workspace, so it stays empty.
    pub fn work_dir(&self) -> PathBuf {
        self.join("work")
    }

    /// Where the process's stderr goes, appended across launches.
    pub fn stderr_log(&self) -> PathBuf {
        self.join(&format!("{}-stderr.log", self.harness))
    }

    /// Creates `dirs`, then the working directory.
    pub fn create_dirs(&self, dirs: &[PathBuf]) -> Result<(), StateDirError> {
        dirs.iter()
            .chain([&self.work_dir()])
            .try_for_each(std::fs::create_dir_all)
            .map_err(|source| self.error(source))
    }

    /// Writes `contents` to `path` (a file in the directory), as an error of the directory.
    pub fn write_file(&self, path: &Path, contents: &str) -> Result<(), StateDirError> {
        std::fs::write(path, contents).map_err(|source| self.error(source))
    }

    fn error(&self, source: std::io::Error) -> StateDirError {
        StateDirError {
            path: self.root.clone(),
            source,
        }
    }

    /// The id recorded in the file `name`, if there is one.
    pub fn read_id(&self, name: &str) -> Option<String> {
        let text = std::fs::read_to_string(self.join(name)).ok()?;
        let id = text.trim();
        (!id.is_empty()).then(|| id.to_owned())
    }

    /// Records `id` in the file `name`.
    pub fn write_id(&self, name: &str, id: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.root)?;
        std::fs::write(self.join(name), id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_ids_live_under_the_root() {
        let root = std::env::temp_dir().join(format!("adapter-kit-state-{}", std::process::id()));
        let dir = StateDir::new(root.clone(), "fake");
        assert_eq!(dir.stderr_log(), root.join("fake-stderr.log"));
        dir.create_dirs(&[dir.join("home")]).unwrap();
        assert!(dir.join("home").is_dir() && dir.work_dir().is_dir());
        assert_eq!(dir.read_id("session-id"), None);
        dir.write_id("session-id", " abc\n").unwrap();
        assert_eq!(dir.read_id("session-id").as_deref(), Some("abc"));
        std::fs::write(dir.join("session-id"), "\n").unwrap();
        assert_eq!(dir.read_id("session-id"), None);
        std::fs::remove_dir_all(root).unwrap();
    }
}
