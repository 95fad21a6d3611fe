//! Workspace placements: where a Session's harness works, and the frames that touch a workspace.
//!
//! A Session on `environment: none` has no workspace ([`SessionConfiguration::workspace`] is
//! `None`). On a workspace placement the configuration names its Environment and how it is
//! placed:
//!
//! - [`WorkspacePlacement::SelfHosted`]: the user's own machine. The Runtime bound to that
//!   Environment (enrolled with its token) runs the harness directly in `directory`, a path on
//!   that machine.
//! - [`WorkspacePlacement::Managed`] (the API's `openai_hosted`): a private directory the Runtime
//!   creates under its data dir, one per Environment, in which the harness and every process it
//!   starts run inside a bubblewrap sandbox. Inside the sandbox it is mounted at
//!   [`MANAGED_WORKSPACE_DIRECTORY`], which is `directory`.
//!
//! Paths in [`WorkspaceFile`] and in the `workspace_*` frames are absolute paths inside the
//! environment (the SDK's "absolute path inside the environment"); a Runtime refuses any path
//! that leaves the workspace (`..`, another root, a symlink).
//!
//! `env` values and inline file contents are secrets or user data: `Debug` never prints them.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::configuration::SessionConfiguration;

/// Where a managed workspace is mounted inside its sandbox, and so the harness's working
/// directory there.
pub const MANAGED_WORKSPACE_DIRECTORY: &str = "/workspace";

/// The workspace of a Session, frozen with its configuration.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workspace {
    /// The Environment (`env_…`) the workspace belongs to.
    pub environment_id: String,
    pub placement: WorkspacePlacement,
    /// The harness's working directory: on the Runtime's machine for `self_hosted`,
    /// [`MANAGED_WORKSPACE_DIRECTORY`] inside the sandbox for `managed`.
    pub directory: String,
    /// Extra directories the harness may read capabilities (skills, plugins) from.
    pub capability_directories: Vec<String>,
    /// Outbound network of the sandbox; always `enabled` for `self_hosted`.
    pub network: NetworkAccess,
    /// Variables set inside the sandbox only (managed); empty for `self_hosted`.
    pub env: BTreeMap<String, String>,
    /// Written once per Environment, before its first Turn (managed only).
    pub files: Vec<WorkspaceFile>,
    /// Run once per Environment, in order, inside the sandbox, after `files` (managed only).
    /// A failing command fails preparation with `sandbox_error`.
    pub setup_commands: Vec<SetupCommand>,
}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("environment_id", &self.environment_id)
            .field("placement", &self.placement)
            .field("directory", &self.directory)
            .field("capability_directories", &self.capability_directories)
            .field("network", &self.network)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("files", &self.files)
            .field("setup_commands", &self.setup_commands)
            .finish()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkspacePlacement {
    /// The user's own machine, served by the Runtime enrolled for this Environment.
    SelfHosted,
    /// A workspace the Runtime creates and isolates with bubblewrap (`openai_hosted` in the API).
    Managed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkAccess {
    Enabled,
    /// A private network namespace: nothing outside the sandbox is reachable, except the model
    /// provider, which the Runtime relays to the harness.
    Disabled,
}

/// A file to place in the workspace. `data` is base64 (standard alphabet, padded).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceFile {
    /// Absolute path inside the environment.
    pub path: String,
    pub data: String,
}

impl fmt::Debug for WorkspaceFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkspaceFile")
            .field("path", &self.path)
            .field("data", &format_args!("<{} base64 chars>", self.data.len()))
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupCommand {
    /// A shell command line, run with `sh -c`.
    pub command: String,
    /// Absolute path inside the environment; the workspace directory when absent.
    pub cwd: Option<String>,
}

impl SessionConfiguration {
    /// The Environment this Session runs in, if it has a workspace.
    pub fn environment_id(&self) -> Option<&str> {
        self.workspace.as_ref().map(|w| w.environment_id.as_str())
    }
}

// ---------------------------------------------------------------------------------------------
// Frames that touch a workspace outside a Turn. Frame id: a request id Core chooses; the
// Runtime's `workspace_result` carries the same id.

/// Core → Runtime: write one file into an Environment's workspace (`environments.files.create`),
/// creating the workspace if it does not exist yet.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceWrite {
    pub environment_id: String,
    pub placement: WorkspacePlacement,
    pub file: WorkspaceFile,
}

impl fmt::Debug for WorkspaceWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkspaceWrite")
            .field("environment_id", &self.environment_id)
            .field("placement", &self.placement)
            .field("file", &self.file)
            .finish()
    }
}

/// Core → Runtime: list the regular files of a workspace (`environments.files.list`), every file
/// under `path` (the whole workspace when absent), recursively, sorted by path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceList {
    pub environment_id: String,
    pub placement: WorkspacePlacement,
    pub path: Option<String>,
}

/// Core → Runtime: remove a managed workspace and everything the Runtime keeps for it (the
/// Session or Environment was deleted). A self-hosted workspace is the user's directory and is
/// never removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceRemove {
    pub environment_id: String,
}

/// Runtime → Core: the outcome of a `workspace_*` request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceResult {
    pub environment_id: String,
    /// Written or listed files (empty for a removal).
    pub files: Vec<WorkspaceEntry>,
    /// `invalid_path` (the path leaves the workspace), `not_found`, `sandbox_error`, or
    /// `unsupported_operation`; null on success.
    pub error_code: Option<String>,
    pub error: Option<String>,
}

/// One regular file in a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceEntry {
    /// Absolute path inside the environment.
    pub path: String,
    pub size_bytes: u64,
}
