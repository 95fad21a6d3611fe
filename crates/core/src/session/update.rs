//! Changes a caller makes to the Session itself: update its mutable fields, delete it.

use std::sync::Arc;

use serde_json::{Map, Value};
use switchboard_execution::parse_session_update;

use super::engine::{Engine, loaded};
use super::error::SessionError;
use super::state::Tx;
use crate::clock::unix_now;
use crate::environments::Environment;
use switchboard_protocol::workspace::WorkspacePlacement;
use switchboard_store::DeletionRecord;

const AGENT_FIXED: &str =
    "A Session's agent is fixed at creation; create a new Session to change it.";
const ACTIVE_TURN: &str = "The Session has an active Turn. Cancel it and wait for the Session to be idle before deleting it.";

/// Applies an update body; returns the Session's public object as committed.
pub async fn update(
    engine: &Arc<Engine>,
    project: &str,
    id: &str,
    body: &Map<String, Value>,
) -> Result<Value, SessionError> {
    let update = parse_session_update(body)?;
    let mut guard = engine.lock_in(project, id).await?;
    let mut tx = Tx::new(loaded(&guard)?);
    if update.agent.is_some() {
        return Err(SessionError::unsupported(Some("agent"), AGENT_FIXED));
    }
    if let Some(metadata) = update.metadata {
        tx.live.meta.metadata = metadata.unwrap_or_default();
    }
    if let Some(p) = update.prompt_cache_options {
        tx.live.doc.prompt_cache_options = p;
    }
    if let Some(r) = update.review {
        tx.live.doc.review = r;
    }
    tx.touch();
    engine.commit(&mut guard, tx).await?;
    Ok(loaded(&guard)?.to_json())
}

/// Deletes an idle Session: every stored row of it at once (the stream closes), then its
/// process, state and managed workspace on the Runtimes (see `super::deletion`). A
/// self-hosted Session's workspace directory is the user's and stays.
pub async fn delete(engine: &Arc<Engine>, project: &str, id: &str) -> Result<(), SessionError> {
    let mut guard = engine.lock_in(project, id).await?;
    let live = loaded(&guard)?;
    if live.doc.active.is_some() {
        return Err(SessionError::Conflict(ACTIVE_TURN));
    }
    let workspace = live.doc.workspace.as_ref();
    let own = match workspace {
        Some(w) => own_environment(engine, project, id, &w.environment_id).await?,
        None => None,
    };
    let self_hosted = workspace.filter(|w| w.placement == WorkspacePlacement::SelfHosted);
    let managed = own
        .as_ref()
        .filter(|env| env.doc.placement == WorkspacePlacement::Managed);
    let deletion = DeletionRecord {
        session_id: id.to_owned(),
        project_id: project.to_owned(),
        environment_id: self_hosted.map(|w| w.environment_id.clone()),
        workspace_id: managed.map(|env| env.id.clone()),
        workspace_runtime: managed.and_then(|env| env.doc.runtime_id.clone()),
        created_at: unix_now(),
    };
    let own_id = own.as_ref().map(|env| env.id.as_str());
    engine
        .store
        .delete_session(project, &deletion, own_id)
        .await?;
    *guard = None;
    drop(guard);
    engine.forget(id);
    engine.forget_on_runtimes(deletion).await;
    Ok(())
}

/// The Environment the Session created, which goes with it. One named by `environment_id`
/// belongs to no Session and stays.
async fn own_environment(
    engine: &Arc<Engine>,
    project: &str,
    session_id: &str,
    environment_id: &str,
) -> Result<Option<Environment>, SessionError> {
    match crate::environments::load(engine.store.as_ref(), project, environment_id).await {
        Ok(env) if env.doc.session_id.as_deref() == Some(session_id) => Ok(Some(env)),
        Ok(_) | Err(SessionError::NotFound) => Ok(None),
        Err(e) => Err(e),
    }
}
