//! Environments: the workspaces Sessions run in (`/v1/agents/environments`).
//!
//! - [`doc`]: the stored document and the public shapes.
//! - [`files`]: `environments.files.{create,list}`, answered by the Runtime hosting the
//!   workspace through `workspace_*` frames.
//!
//! A managed Environment (`openai_hosted`) is made by `environments.create` or by a Session
//! create that does not name one; a self-hosted one only by a Session create. Either is written
//! in the same transaction as the Session that makes it.

pub mod doc;
pub mod files;

use std::collections::BTreeMap;

use switchboard_execution::hosted_environment::HostedEnvironment;
use switchboard_protocol::{SetupCommand, WorkspacePlacement};
use switchboard_wire::ids::{IdKind, is_valid, new_id};

use crate::secrets::{SecretBox, SecretError};
use crate::session::SessionError;
pub use doc::{Environment, EnvironmentDoc, EnvironmentStatus, FileDoc};

/// A new managed Environment from its request; `env` values are sealed here.
pub fn managed(
    project: &str,
    req: &HostedEnvironment,
    secrets: &SecretBox,
    vault_ids: Vec<String>,
    now: i64,
) -> Result<Environment, SecretError> {
    let env = req
        .env
        .iter()
        .map(|(k, v)| Ok((k.clone(), secrets.seal(v)?)))
        .collect::<Result<BTreeMap<_, _>, SecretError>>()?;
    Ok(Environment {
        id: new_id(IdKind::Environment),
        project_id: project.to_owned(),
        created_at: now,
        enrollment_digest: None,
        credential_digest: None,
        doc: EnvironmentDoc {
            placement: WorkspacePlacement::Managed,
            status: EnvironmentStatus::Pending,
            runtime_id: None,
            session_id: None,
            capability_directories: req.capability_directories.clone(),
            workspace_directory: None,
            network_disabled: req.network_disabled,
            env,
            files: req
                .files
                .iter()
                .map(|f| FileDoc {
                    id: new_id(IdKind::File),
                    path: f.path.clone(),
                    size_bytes: f.size_bytes,
                    data: f.data.clone(),
                })
                .collect(),
            setup_commands: req
                .setup_commands
                .iter()
                .map(|c| SetupCommand {
                    command: c.command.clone(),
                    cwd: c.cwd.clone(),
                })
                .collect(),
            vault_ids,
        },
    })
}

/// A new self-hosted Environment; its first enrollment token's digest is `enrollment_digest`.
pub fn self_hosted(
    project: &str,
    workspace_directory: &str,
    capability_directories: Vec<String>,
    enrollment_digest: String,
    now: i64,
) -> Environment {
    Environment {
        id: new_id(IdKind::Environment),
        project_id: project.to_owned(),
        created_at: now,
        enrollment_digest: Some(enrollment_digest),
        credential_digest: None,
        doc: EnvironmentDoc {
            placement: WorkspacePlacement::SelfHosted,
            status: EnvironmentStatus::Pending,
            runtime_id: None,
            session_id: None,
            capability_directories,
            workspace_directory: Some(workspace_directory.to_owned()),
            network_disabled: false,
            env: BTreeMap::new(),
            files: Vec::new(),
            setup_commands: Vec::new(),
            vault_ids: Vec::new(),
        },
    }
}

/// A stored Environment of `project`; a malformed, missing or another Project's ID is the
/// public 404.
pub async fn load(
    store: &dyn switchboard_store::Store,
    project: &str,
    id: &str,
) -> Result<Environment, SessionError> {
    if !is_valid(IdKind::Environment, id) {
        return Err(SessionError::NotFound);
    }
    let rec = store
        .get_environment(project, id)
        .await?
        .ok_or(SessionError::NotFound)?;
    Ok(Environment::from_record(&rec)?)
}

/// The prefix that keeps `environments.create` keys apart from Session create keys in the one
/// create-key table.
const CREATE_KEY_PREFIX: &str = "environments.create:";

/// `POST /v1/agents/environments`: a managed Environment. The same `Idempotency-Key` with the
/// same body answers with that Environment again; with another body (or once it is deleted),
/// 409.
pub async fn create(
    engine: &std::sync::Arc<crate::session::engine::Engine>,
    project: &str,
    body: &serde_json::Map<String, serde_json::Value>,
    headers: &axum::http::HeaderMap,
) -> Result<Environment, SessionError> {
    use crate::session::idempotency;
    use switchboard_store::{IdempotencyRecord, SessionWrite, StoreError};

    let (hosted, vault_ids) = parse_create(body)?;
    let key = idempotency::key(headers)?.map(|k| IdempotencyRecord {
        project_id: project.to_owned(),
        session_id: String::new(),
        key: format!("{CREATE_KEY_PREFIX}{k}"),
        fingerprint: idempotency::fingerprint(body),
        created_at: crate::clock::unix_now(),
    });
    if let Some(key) = &key
        && let Some(seen) = engine.store.get_create_key(project, &key.key).await?
    {
        return retry(engine, &seen, key).await;
    }
    if let Some((param, message)) = &hosted.unbuilt {
        return Err(SessionError::unsupported(Some(param), message.clone()));
    }
    let env = managed(
        project,
        &hosted,
        &engine.secrets,
        vault_ids,
        crate::clock::unix_now(),
    )?;
    let write = SessionWrite {
        environment: Some(env.record()?),
        create_key: key.clone().map(|k| IdempotencyRecord {
            session_id: env.id.clone(),
            ..k
        }),
        ..Default::default()
    };
    match engine.store.write_session(write).await {
        Ok(()) => Ok(env),
        Err(StoreError::Conflict(_)) if key.is_some() => {
            let key = key.as_ref().ok_or(SessionError::IdempotencyConflict)?;
            match engine.store.get_create_key(project, &key.key).await? {
                Some(seen) => retry(engine, &seen, key).await,
                None => Err(SessionError::IdempotencyConflict),
            }
        }
        Err(e) => Err(e.into()),
    }
}

async fn retry(
    engine: &crate::session::engine::Engine,
    seen: &switchboard_store::IdempotencyRecord,
    request: &switchboard_store::IdempotencyRecord,
) -> Result<Environment, SessionError> {
    if seen.fingerprint != request.fingerprint {
        return Err(SessionError::IdempotencyConflict);
    }
    match load(engine.store.as_ref(), &seen.project_id, &seen.session_id).await {
        Err(SessionError::NotFound) => Err(SessionError::IdempotencyConflict),
        other => other,
    }
}

/// `{environment*: {type: "openai_hosted", …}, vault_ids?}`.
fn parse_create(
    body: &serde_json::Map<String, serde_json::Value>,
) -> Result<(HostedEnvironment, Vec<String>), SessionError> {
    use switchboard_execution::error_messages;
    if let Some(key) = body
        .keys()
        .find(|k| !matches!(k.as_str(), "environment" | "vault_ids"))
    {
        return Err(error_messages::unknown(key).into());
    }
    let vault_ids = match body.get("vault_ids") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(v) => v
            .as_array()
            .and_then(|a| a.iter().map(|s| s.as_str().map(str::to_owned)).collect())
            .ok_or_else(|| error_messages::invalid_type("vault_ids", "an array of strings", v))?,
    };
    let environment = body
        .get("environment")
        .ok_or_else(|| error_messages::missing("environment"))?;
    let hosted = switchboard_execution::hosted_environment::parse_hosted_environment(
        environment,
        "environment",
    )?;
    Ok((hosted, vault_ids))
}

/// Deleting an Environment a Session still runs in (409 `conflict_error`; our wording).
pub const OWNED_BY_SESSION: &str =
    "This Environment belongs to a Session; delete the Session to delete it.";

/// Deletes an Environment and removes its managed workspace on the Runtime hosting it.
pub async fn delete(
    engine: &std::sync::Arc<crate::session::engine::Engine>,
    project: &str,
    id: &str,
) -> Result<(), SessionError> {
    let env = load(engine.store.as_ref(), project, id).await?;
    if let Some(session_id) = &env.doc.session_id
        && engine
            .store
            .get_session(project, session_id)
            .await?
            .is_some()
    {
        return Err(SessionError::Conflict(OWNED_BY_SESSION));
    }
    engine.store.delete_environment(project, id).await?;
    files::remove(engine, &env).await;
    Ok(())
}
