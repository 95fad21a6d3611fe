//! The Environment of a Session being created (core-contracts §2.3 steps 3 and 5 for the
//! workspace placements): an existing managed Environment named by `environment_id`, or a new
//! one (managed, or self-hosted with its first enrollment token), written with the Session.

use std::sync::Arc;

use serde_json::{Value, json};
use switchboard_execution::hosted_environment::HostedEnvironment;
use switchboard_execution::{EnvironmentRequest, SessionCreate, ValidationError};
use switchboard_protocol::WorkspacePlacement;

use super::engine::Engine;
use super::error::SessionError;
use crate::enrollment::{self, Minted};
use crate::environments::{self, Environment};

/// The Environment an admitted create runs in.
pub struct Admitted {
    pub environment: Environment,
    /// Made by this create (written in its transaction).
    pub created: bool,
    /// A self-hosted Environment's first enrollment token.
    pub enrollment: Option<Minted>,
}

impl Admitted {
    /// `{token, command}`: the line to run on the machine that hosts the workspace.
    pub fn enrollment_json(&self, engine: &Engine) -> Option<Value> {
        self.enrollment.as_ref().map(|m| {
            json!({
                "token": m.secret,
                "command": enrollment::command(&engine.settings.public_url, &m.secret),
            })
        })
    }
}

/// Resolves and admits the request's Environment; `None` on `environment: none`.
pub async fn admit(
    engine: &Arc<Engine>,
    project: &str,
    req: &SessionCreate,
    session_id: &str,
    now: i64,
) -> Result<Option<Admitted>, SessionError> {
    match &req.environment {
        EnvironmentRequest::None => Ok(None),
        EnvironmentRequest::SelfHosted {
            workspace_directory,
            capability_directories,
        } => {
            let token = enrollment::mint_token();
            let dirs = capability_directories
                .as_ref()
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default();
            let mut env = environments::self_hosted(
                project,
                workspace_directory,
                dirs,
                token.digest.clone(),
                now,
            );
            env.doc.session_id = Some(session_id.to_owned());
            Ok(Some(Admitted {
                environment: env,
                created: true,
                enrollment: Some(token),
            }))
        }
        EnvironmentRequest::OpenaiHosted(hosted) => {
            hosted_environment(engine, project, req, hosted, session_id, now)
                .await
                .map(Some)
        }
    }
}

async fn hosted_environment(
    engine: &Arc<Engine>,
    project: &str,
    req: &SessionCreate,
    hosted: &HostedEnvironment,
    session_id: &str,
    now: i64,
) -> Result<Admitted, SessionError> {
    if let Some(id) = &hosted.environment_id {
        if let Some(param) = &hosted.configured {
            return Err(ValidationError::new(
                param.clone(),
                format!(
                    "An existing Environment keeps its own configuration; omit '{param}' when environment.environment_id is set."
                ),
            )
            .into());
        }
        let environment = environments::load(engine.store.as_ref(), project, id).await?;
        if environment.doc.placement != WorkspacePlacement::Managed {
            return Err(SessionError::NotFound);
        }
        return Ok(Admitted {
            environment,
            created: false,
            enrollment: None,
        });
    }
    if let Some((param, message)) = &hosted.unbuilt {
        return Err(SessionError::unsupported(Some(param), message.clone()));
    }
    let mut environment =
        environments::managed(project, hosted, &engine.secrets, req.vault_ids.clone(), now)?;
    environment.doc.session_id = Some(session_id.to_owned());
    Ok(Admitted {
        environment,
        created: true,
        enrollment: None,
    })
}
