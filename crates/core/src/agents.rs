//! Saved Agents as the store holds them: the provider key sealed on the way in and opened on
//! the way out. The Agent routes and Session creation both read Agents through here.

use switchboard_execution::AgentConfig;
use switchboard_store::{AgentRecord, Store, StoreError};
use switchboard_wire::ids::{IdKind, is_valid};

use crate::secrets::{SecretBox, SecretError};

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// No Agent with this ID (a malformed ID included).
    #[error("no such Agent")]
    NotFound,
    #[error("stored agent configuration does not parse: {0}")]
    Corrupt(#[from] serde_json::Error),
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The stored document: the saved configuration with the provider key sealed.
pub fn seal_config(secrets: &SecretBox, cfg: &AgentConfig) -> Result<String, AgentError> {
    // Only a provider key needs sealing; without one the document is written as it is.
    if cfg.x_agents_core.model_provider.is_none() {
        return Ok(serde_json::to_string(cfg)?);
    }
    let mut cfg = cfg.clone();
    if let Some(p) = cfg.x_agents_core.model_provider.as_mut() {
        p.api_key = secrets.seal(&p.api_key)?;
    }
    Ok(serde_json::to_string(&cfg)?)
}

/// Reads a stored document back, opening the sealed provider key.
pub fn open_config(secrets: &SecretBox, text: &str) -> Result<AgentConfig, AgentError> {
    let mut cfg: AgentConfig = serde_json::from_str(text)?;
    if let Some(p) = cfg.x_agents_core.model_provider.as_mut() {
        p.api_key = secrets.open(&p.api_key)?;
    }
    Ok(cfg)
}

/// Loads an Agent of `project` by a caller-supplied ID; malformed, missing and another
/// Project's IDs are the same 404.
pub async fn load(
    store: &dyn Store,
    secrets: &SecretBox,
    project: &str,
    id: &str,
) -> Result<(AgentRecord, AgentConfig), AgentError> {
    if !is_valid(IdKind::Agent, id) {
        return Err(AgentError::NotFound);
    }
    let rec = store
        .get_agent(project, id)
        .await?
        .ok_or(AgentError::NotFound)?;
    let cfg = open_config(secrets, &rec.config)?;
    Ok((rec, cfg))
}
