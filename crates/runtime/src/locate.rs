//! Where a harness's native executable is, before anything checks that it works.
//!
//! Resolution order, first hit wins:
//! 1. the harness's environment variable (`SWITCHBOARD_CODEX_BIN`, `SWITCHBOARD_CLAUDE_BIN`);
//!    an explicit path is never second-guessed, so a wrong one is reported rather than
//!    silently replaced by another install;
//! 2. `<data_dir>/harnesses/<dir>/<native relative path>`, where `switchboard harness install`
//!    puts it;
//! 3. the repository's `.harnesses/<dir>/…` from `scripts/install-harnesses.sh` (a development
//!    convenience: it only exists next to a source checkout; `SWITCHBOARD_NO_REPO_HARNESSES=1`
//!    turns it off).
//!
//! When nothing exists, the data-dir path is reported: it is where an install would go.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use switchboard_protocol::configuration::HarnessId;

use crate::install::{self, HarnessInstall};

/// Set (to anything but empty), [`Locator::from_env`] ignores the repository's `.harnesses/`.
pub const NO_REPO_HARNESSES_ENV: &str = "SWITCHBOARD_NO_REPO_HARNESSES";

/// Which rule produced a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Environment,
    DataDir,
    Repository,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::Environment => "environment",
            Source::DataDir => "data dir",
            Source::Repository => "repository .harnesses",
        }
    }
}

/// A resolved executable path; `exists` says whether a file is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    pub source: Source,
    pub exists: bool,
}

/// Resolves harness executables for one data directory.
#[derive(Debug, Clone)]
pub struct Locator {
    data_dir: PathBuf,
    repo_root: Option<PathBuf>,
    explicit: HashMap<HarnessId, PathBuf>,
}

impl Locator {
    /// A locator with no environment overrides and no repository fallback.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Locator {
            data_dir: data_dir.into(),
            repo_root: None,
            explicit: HashMap::new(),
        }
    }

    /// A locator that reads the overrides from the process environment (made absolute) and
    /// falls back to this source checkout's `.harnesses/` when it exists, unless
    /// [`NO_REPO_HARNESSES_ENV`] is set (tests that must see a data dir as a newcomer has it).
    pub fn from_env(data_dir: impl Into<PathBuf>) -> Self {
        let mut locator = Locator::new(data_dir);
        if std::env::var_os(NO_REPO_HARNESSES_ENV).is_none_or(|v| v.is_empty()) {
            locator.repo_root = dev_repo_root();
        }
        for row in install::ALL {
            if let Some(path) = std::env::var_os(row.binary_env).filter(|p| !p.is_empty()) {
                let path = crate::paths::absolute(&path).unwrap_or_else(|_| PathBuf::from(path));
                locator.explicit.insert(row.harness, path);
            }
        }
        locator
    }

    /// Names a harness's executable explicitly, as its environment variable would.
    pub fn with_explicit(mut self, harness: HarnessId, path: impl Into<PathBuf>) -> Self {
        self.explicit.insert(harness, path.into());
        self
    }

    /// Adds a repository whose `.harnesses/` is the last fallback.
    pub fn with_repo_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.repo_root = Some(root.into());
        self
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The folder `switchboard harness install` installs a harness into.
    pub fn install_dir(&self, row: &HarnessInstall) -> PathBuf {
        self.data_dir.join("harnesses").join(row.dir_name)
    }

    /// Where the harness's executable is (or would be, after an install).
    pub fn locate(&self, row: &HarnessInstall) -> Located {
        let found = |path: PathBuf, source| Located {
            exists: path.is_file(),
            path,
            source,
        };
        if let Some(path) = self.explicit.get(&row.harness) {
            return found(path.clone(), Source::Environment);
        }
        let in_data_dir = found(
            self.install_dir(row).join(row.native_relative_path),
            Source::DataDir,
        );
        if in_data_dir.exists {
            return in_data_dir;
        }
        if let Some(root) = &self.repo_root {
            let in_repo = found(
                root.join(".harnesses")
                    .join(row.dir_name)
                    .join(row.native_relative_path),
                Source::Repository,
            );
            if in_repo.exists {
                return in_repo;
            }
        }
        in_data_dir
    }
}

/// The source checkout this crate was built from, when it still exists (development builds).
fn dev_repo_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .ok()?;
    root.join(".harnesses").is_dir().then_some(root)
}
