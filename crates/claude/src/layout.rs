//! What a Session's state directory holds.
//!
//! Everything claude reads or writes lives under the directory the Runtime gives the executor,
//! so a Session is hermetic (nothing of the host user's `~/.claude` is read, nothing is written
//! outside) and survives eviction: the transcript `--resume` reads is in [`StateLayout::config_dir`].

use std::path::PathBuf;

/// The folders and files of one Session's state directory.
#[derive(Debug, Clone)]
pub struct StateLayout {
    pub root: PathBuf,
}

impl StateLayout {
    pub fn new(root: PathBuf) -> Self {
        StateLayout { root }
    }

    /// `HOME` of the process (claude also keeps caches and MCP logs under it).
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// `CLAUDE_CONFIG_DIR`: settings, `.claude.json`, and `projects/<cwd>/<session>.jsonl`,
    /// the transcripts resume reads.
    pub fn config_dir(&self) -> PathBuf {
        self.root.join("claude-config")
    }

    /// `TMPDIR` / `CLAUDE_CODE_TMPDIR`: claude stores pasted and tool images there.
    pub fn tmp_dir(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// The working directory. It never changes: claude keys transcripts by it.
    pub fn work_dir(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The Agent's instructions, passed as `--append-system-prompt-file` (argv has a per-argument
    /// size limit that instructions could exceed).
    pub fn instructions_file(&self) -> PathBuf {
        self.root.join("instructions.txt")
    }

    /// The native session id, chosen by the adapter and kept across evictions and restarts.
    pub fn session_id_file(&self) -> PathBuf {
        self.root.join("session-id")
    }

    pub fn stderr_log(&self) -> PathBuf {
        self.root.join("claude-stderr.log")
    }

    pub fn create(&self) -> std::io::Result<()> {
        for dir in [
            self.home(),
            self.config_dir(),
            self.tmp_dir(),
            self.work_dir(),
        ] {
            std::fs::create_dir_all(dir)?;
        }
        Ok(())
    }
}
