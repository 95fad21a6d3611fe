//! Workspace requests outside a Turn: `environments.files.{create,list}` and workspace removal,
//! sent to the Runtime hosting the workspace as `workspace_*` frames (frame id `wsreq_…`) and
//! answered by its `workspace_result`.

use std::sync::Arc;
use std::time::Duration;

use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::workspace::{
    WorkspaceEntry, WorkspaceFile, WorkspaceList, WorkspacePlacement, WorkspaceRemove,
    WorkspaceResult, WorkspaceWrite,
};
use switchboard_wire::ids::{IdKind, new_id};

use super::Environment;
use crate::session::SessionError;
use crate::session::engine::Engine;

/// How long a Runtime may take to answer a workspace request.
const WORKSPACE_TIMEOUT: Duration = Duration::from_secs(30);

/// The link that hosts (or will host) this Environment's workspace: the enrolled Runtime of a
/// self-hosted one; for a managed one, the deployment Runtime it is bound to, else any
/// deployment Runtime (the local one first).
fn hosting_link(engine: &Engine, env: &Environment) -> Option<u64> {
    match env.doc.placement {
        WorkspacePlacement::SelfHosted => engine.links.environment_link(&env.id),
        WorkspacePlacement::Managed => engine.links.deployment_link(env.doc.runtime_id.as_deref()),
    }
}

/// Sends one workspace request and waits for its result (bounded).
async fn request(
    engine: &Arc<Engine>,
    env: &Environment,
    message: CoreToRuntime,
) -> Result<WorkspaceResult, SessionError> {
    let link = hosting_link(engine, env).ok_or(SessionError::ExecutionUnavailable)?;
    if env.doc.placement == WorkspacePlacement::Managed && env.doc.runtime_id.is_none() {
        engine
            .bind_managed_host(&env.project_id, &env.id, link)
            .await;
    }
    request_on(engine, link, message).await
}

/// Sends one workspace request on `link` and waits for its result (bounded).
async fn request_on(
    engine: &Arc<Engine>,
    link: u64,
    message: CoreToRuntime,
) -> Result<WorkspaceResult, SessionError> {
    let id = new_id(IdKind::WorkspaceRequest);
    let answer = engine.links.expect_workspace_result(&id);
    if !engine.links.send(link, Some(id.clone()), message).await {
        engine.links.forget_workspace_request(&id);
        return Err(SessionError::ExecutionUnavailable);
    }
    let result = match tokio::time::timeout(WORKSPACE_TIMEOUT, answer).await {
        Ok(Ok(result)) => result,
        _ => {
            engine.links.forget_workspace_request(&id);
            return Err(SessionError::ExecutionUnavailable);
        }
    };
    match result.error_code.as_deref() {
        None => Ok(result),
        Some("invalid_path") => Err(SessionError::InvalidPath(
            result
                .error
                .unwrap_or_else(|| "The path leaves the workspace.".into()),
        )),
        Some(code) => {
            tracing::warn!(code, error = ?result.error, "workspace request failed on the Runtime");
            Err(SessionError::ExecutionUnavailable)
        }
    }
}

/// Writes one file into the workspace; returns the written entry.
pub async fn write(
    engine: &Arc<Engine>,
    env: &Environment,
    file: WorkspaceFile,
) -> Result<WorkspaceEntry, SessionError> {
    let path = file.path.clone();
    let message = WorkspaceWrite {
        environment_id: env.id.clone(),
        placement: env.doc.placement,
        file,
    };
    let result = request(engine, env, message.into()).await?;
    Ok(result.files.into_iter().next().unwrap_or(WorkspaceEntry {
        path,
        size_bytes: 0,
    }))
}

/// Every regular file under `path` (the whole workspace when `None`), sorted by path.
pub async fn list(
    engine: &Arc<Engine>,
    env: &Environment,
    path: Option<String>,
) -> Result<Vec<WorkspaceEntry>, SessionError> {
    let message = WorkspaceList {
        environment_id: env.id.clone(),
        placement: env.doc.placement,
        path,
    };
    let mut files = request(engine, env, message.into()).await?.files;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Asks the deployment Runtime hosting a deleted Session's managed workspace (`runtime_id`, or
/// any deployment Runtime when it was never bound) to remove it; whether it confirmed.
pub async fn remove_managed(
    engine: &Arc<Engine>,
    environment_id: &str,
    runtime_id: Option<&str>,
) -> bool {
    let Some(link) = engine.links.deployment_link(runtime_id) else {
        return false;
    };
    let message = WorkspaceRemove {
        environment_id: environment_id.to_owned(),
    };
    match request_on(engine, link, message.into()).await {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(environment = %environment_id, error = %e, "workspace removal unconfirmed");
            false
        }
    }
}

/// Asks the hosting Runtime to remove a managed workspace. Best effort: the Environment is
/// deleted either way, and a Runtime that is not connected has nothing of it in memory (its
/// directory is removed when it next hears of it, or by an operator).
pub async fn remove(engine: &Arc<Engine>, env: &Environment) {
    if env.doc.placement != WorkspacePlacement::Managed {
        return;
    }
    let message = WorkspaceRemove {
        environment_id: env.id.clone(),
    };
    if let Err(e) = request(engine, env, message.into()).await {
        tracing::warn!(environment = %env.id, error = %e, "workspace removal unconfirmed");
    }
}
