//! What a Session's state directory holds for claude.
//!
//! Everything claude reads or writes lives under the directory the Runtime gives the executor
//! ([`StateDir`]), so a Session is hermetic (nothing of the host user's `~/.claude` is read,
//! nothing is written outside) and survives eviction: the transcript `--resume` reads is in
//! [`StateLayout::config_dir`].

use std::ops::Deref;
use std::path::PathBuf;

use switchboard_adapter_kit::state_dir::{StateDir, StateDirError};

/// The file that keeps the native session id, chosen by the adapter and kept across evictions
/// and restarts.
pub const SESSION_ID_FILE: &str = "session-id";

/// The folders and files of one Session's state directory.
#[derive(Debug, Clone)]
pub struct StateLayout(StateDir);

impl Deref for StateLayout {
    type Target = StateDir;
    fn deref(&self) -> &StateDir {
        &self.0
    }
}

impl StateLayout {
    pub fn new(root: PathBuf) -> Self {
        StateLayout(StateDir::new(root, "claude"))
    }

    /// `HOME` of the process (claude also keeps caches and MCP logs under it).
    pub fn home(&self) -> PathBuf {
        self.join("home")
    }

    /// `CLAUDE_CONFIG_DIR`: settings, `.claude.json`, and `projects/<cwd>/<session>.jsonl`,
    /// the transcripts resume reads (keyed by the working directory, which never changes).
    pub fn config_dir(&self) -> PathBuf {
        self.join("claude-config")
    }

    /// `TMPDIR` / `CLAUDE_CODE_TMPDIR`: claude stores pasted and tool images there.
    pub fn tmp_dir(&self) -> PathBuf {
        self.join("tmp")
    }

    /// The Agent's instructions, passed as `--append-system-prompt-file` (argv has a per-argument
    /// size limit that instructions could exceed).
    pub fn instructions_file(&self) -> PathBuf {
        self.join("instructions.txt")
    }

    /// Creates the folders claude needs.
    pub fn create(&self) -> Result<(), StateDirError> {
        self.create_dirs(&[self.home(), self.config_dir(), self.tmp_dir()])
    }
}
