//! Changes a caller makes to the Session itself: update its mutable fields, delete it.

use std::sync::Arc;

use serde_json::{Map, Value};
use switchboard_execution::parse_session_update;

use super::engine::{Engine, loaded};
use super::error::SessionError;
use super::state::Tx;

const AGENT_FIXED: &str =
    "A Session's agent is fixed at creation; create a new Session to change it.";
const ACTIVE_TURN: &str = "The Session has an active Turn. Cancel it and wait for the Session to be idle before deleting it.";

/// Applies an update body; returns the Session's public object as committed.
pub async fn update(
    engine: &Arc<Engine>,
    id: &str,
    body: &Map<String, Value>,
) -> Result<Value, SessionError> {
    let update = parse_session_update(body)?;
    let mut guard = engine.lock(id).await?;
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

/// Deletes an idle Session, its history and streams, and releases it on every Runtime that
/// prepared it.
pub async fn delete(engine: &Arc<Engine>, id: &str) -> Result<(), SessionError> {
    let mut guard = engine.lock(id).await?;
    if guard.as_ref().is_some_and(|l| l.doc.active.is_some()) {
        return Err(SessionError::Conflict(ACTIVE_TURN));
    }
    let environment_id = guard
        .as_ref()
        .and_then(|l| l.doc.workspace.as_ref())
        .map(|w| w.environment_id.clone());
    engine.store.delete_session(id).await?;
    *guard = None;
    drop(guard);
    engine.forget(id);
    engine.release(id).await;
    if let Some(env) = environment_id {
        delete_own_environment(engine, id, &env).await?;
    }
    Ok(())
}

/// The Environment a Session created goes with it: its row, and a managed workspace on the
/// Runtime hosting it. One named by `environment_id` belongs to no Session and stays.
async fn delete_own_environment(
    engine: &Arc<Engine>,
    session_id: &str,
    environment_id: &str,
) -> Result<(), SessionError> {
    let env = match crate::environments::load(engine.store.as_ref(), environment_id).await {
        Ok(env) => env,
        Err(SessionError::NotFound) => return Ok(()),
        Err(e) => return Err(e),
    };
    if env.doc.session_id.as_deref() != Some(session_id) {
        return Ok(());
    }
    engine.store.delete_environment(environment_id).await?;
    // The Session's process has ended (`release` waited): the workspace goes before the
    // delete answers; a removal the Runtime does not confirm in time is logged.
    crate::environments::files::remove(engine, &env).await;
    Ok(())
}
