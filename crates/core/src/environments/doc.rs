//! An Environment's stored document and its public shapes: `EnvironmentInfo`
//! (`agent.environment`, agents-api-wire §12) and a Session's `environment` (§3).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use switchboard_protocol::{
    MANAGED_WORKSPACE_DIRECTORY, NetworkAccess, SetupCommand, Workspace, WorkspaceFile,
    WorkspacePlacement,
};
use switchboard_store::EnvironmentRecord;

use crate::secrets::{SecretBox, SecretError};

/// `EnvironmentInfo.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentStatus {
    Pending,
    Ready,
    Connected,
    Disconnected,
    Failed,
}

/// A file placed in a managed workspace by its configuration (contents kept to write it
/// before the first Turn).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDoc {
    pub id: String,
    pub path: String,
    pub size_bytes: u64,
    pub data: String,
}

/// Core's document of an Environment row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvironmentDoc {
    pub placement: WorkspacePlacement,
    pub status: EnvironmentStatus,
    /// The deployment Runtime hosting a managed workspace, bound on first use.
    #[serde(default)]
    pub runtime_id: Option<String>,
    /// The Session that created it: deleting that Session deletes the Environment.
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub capability_directories: Vec<String>,
    /// Self-hosted: the directory on the user's machine.
    #[serde(default)]
    pub workspace_directory: Option<String>,
    #[serde(default)]
    pub network_disabled: bool,
    /// Values sealed with the deployment's data key; never returned.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub files: Vec<FileDoc>,
    /// Never returned.
    #[serde(default)]
    pub setup_commands: Vec<SetupCommand>,
    #[serde(default)]
    pub vault_ids: Vec<String>,
}

/// An Environment: its row identity and document.
#[derive(Debug, Clone)]
pub struct Environment {
    pub id: String,
    /// The Project it belongs to (its Sessions' Project).
    pub project_id: String,
    pub created_at: i64,
    pub enrollment_digest: Option<String>,
    pub credential_digest: Option<String>,
    pub doc: EnvironmentDoc,
}

impl Environment {
    pub fn from_record(rec: &EnvironmentRecord) -> Result<Environment, serde_json::Error> {
        Ok(Environment {
            id: rec.id.clone(),
            project_id: rec.project_id.clone(),
            created_at: rec.created_at,
            enrollment_digest: rec.enrollment_digest.clone(),
            credential_digest: rec.credential_digest.clone(),
            doc: serde_json::from_str(&rec.doc)?,
        })
    }

    pub fn record(&self) -> Result<EnvironmentRecord, serde_json::Error> {
        Ok(EnvironmentRecord {
            id: self.id.clone(),
            project_id: self.project_id.clone(),
            created_at: self.created_at,
            kind: self.kind().into(),
            enrollment_digest: self.enrollment_digest.clone(),
            credential_digest: self.credential_digest.clone(),
            doc: serde_json::to_string(&self.doc)?,
        })
    }

    /// The public `type`.
    pub fn kind(&self) -> &'static str {
        match self.doc.placement {
            WorkspacePlacement::Managed => "openai_hosted",
            WorkspacePlacement::SelfHosted => "self_hosted",
        }
    }

    fn files_json(&self) -> Vec<Value> {
        self.doc
            .files
            .iter()
            .map(|f| json!({ "id": f.id, "type": "inline", "path": f.path, "size_bytes": f.size_bytes }))
            .collect()
    }

    /// `EnvironmentInfo`.
    pub fn info_json(&self) -> Value {
        json!({
            "id": self.id,
            "object": "agent.environment",
            "created_at": self.created_at,
            "type": self.kind(),
            "status": self.doc.status,
            "files": self.files_json(),
            "skills": [],
            "plugins": [],
        })
    }

    /// The Session's `environment`. `remote_url`: the Core URL the enrolled Runtime dials.
    pub fn session_json(&self, remote_url: &str) -> Value {
        match self.doc.placement {
            WorkspacePlacement::Managed => json!({
                "type": "openai_hosted",
                "id": self.id,
                "capability_directories": self.doc.capability_directories,
                "files": self.files_json(),
                "network": {
                    "access": if self.doc.network_disabled { "disabled" } else { "enabled" },
                    "allowed_domains": [],
                },
                "packages": { "npm": [], "python": [], "system": [] },
                "plugins": [],
                "skills": [],
            }),
            WorkspacePlacement::SelfHosted => json!({
                "type": "self_hosted",
                "id": self.id,
                "capability_directories": self.doc.capability_directories,
                "remote_url": remote_url,
                "workspace_directory": self.doc.workspace_directory,
            }),
        }
    }

    /// The workspace a Session on this Environment is configured with; `env` still sealed
    /// (a Session document keeps it so), opened by [`open_env`] at dispatch.
    pub fn workspace(&self) -> Workspace {
        let d = &self.doc;
        Workspace {
            environment_id: self.id.clone(),
            placement: d.placement,
            directory: match d.placement {
                WorkspacePlacement::Managed => MANAGED_WORKSPACE_DIRECTORY.into(),
                WorkspacePlacement::SelfHosted => d.workspace_directory.clone().unwrap_or_default(),
            },
            capability_directories: d.capability_directories.clone(),
            network: if d.network_disabled {
                NetworkAccess::Disabled
            } else {
                NetworkAccess::Enabled
            },
            env: d.env.clone(),
            files: d
                .files
                .iter()
                .map(|f| WorkspaceFile {
                    path: f.path.clone(),
                    data: f.data.clone(),
                })
                .collect(),
            setup_commands: d.setup_commands.clone(),
        }
    }
}

/// The workspace with its `env` values opened.
pub fn open_env(mut workspace: Workspace, secrets: &SecretBox) -> Result<Workspace, SecretError> {
    for value in workspace.env.values_mut() {
        *value = secrets.open(value)?;
    }
    Ok(workspace)
}
