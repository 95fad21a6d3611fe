//! Session creation: the admission pipeline, then one commit (core-contracts §2.3).
//!
//! Order: protocol and parser errors, the retry lookup ([`retry`]), the saved Agent (404),
//! placement rules, the model provider, the harness declaration ([`validate_selection`]), then
//! Runtime availability and capabilities. A request a harness can never run gets the
//! declaration's message even when that harness is not installed. Every rejection happens
//! before anything is written.

use std::sync::Arc;

use axum::http::HeaderMap;
use serde_json::{Map, Value, json};
use switchboard_execution::{
    EnvironmentRequest, HarnessId, ModelProvider, parse_session_create, resolve,
};
use switchboard_harness::{declaration, required_capabilities, validate_selection};
use switchboard_store::{IdempotencyRecord, SessionRecord, StoreError};
use switchboard_wire::ids::{IdKind, new_id};

use super::configuration::{configuration, snapshot, with_workspace};
use super::engine::Engine;
use super::error::SessionError;
use super::frozen_agent::FrozenAgent;
use super::hub::{Published, Subscription};
use super::idempotency;
use super::objects::{SessionStatus, session_event};
use super::runtimes::{Route, Unavailable};
use super::state::{Live, SessionDoc, SessionMeta, Tx};
use crate::clock::unix_now;

fn harness_name(h: HarnessId) -> String {
    serde_json::to_value(h)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Why a Session cannot be admitted on `harness`, and what fixes it.
fn unavailable_message(harness: HarnessId, why: Unavailable) -> String {
    let name = harness_name(harness);
    match why {
        Unavailable::Harness if !declaration(harness).native.adapter => {
            format!("No Runtime can run the {name} harness: it has no adapter in this build.")
        }
        Unavailable::Harness | Unavailable::Installing => format!(
            "No connected Runtime can run the {name} harness right now. Install it on a Runtime (`switchboard harness install {name}`) and try again."
        ),
        Unavailable::Failed(reason) => format!(
            "No connected Runtime can run the {name} harness: {reason}. Retry the install on the Runtime (`switchboard harness install {name}`) and try again."
        ),
        Unavailable::Capability(c) => format!(
            "No connected Runtime advertises the {} capability for the {name} harness.",
            c.as_str()
        ),
    }
}

/// A created Session: its public object, and the creation stream's subscription when the
/// request asked for `stream: true`.
pub struct Created {
    pub session: Value,
    pub session_id: String,
    pub stream: Option<(Published, Subscription)>,
    /// `stream_options.include_obfuscation`.
    pub obfuscate: bool,
}

/// Admits and creates a Session. `default_harness` runs it when neither the request nor its
/// Agent selects one.
#[tracing::instrument(name = "session.admission", skip_all, fields(session.id = tracing::field::Empty))]
pub async fn create(
    engine: &Arc<Engine>,
    project: &str,
    default_harness: HarnessId,
    body: &Map<String, Value>,
    headers: &HeaderMap,
) -> Result<Created, SessionError> {
    let req = parse_session_create(body)?;
    let key = idempotency::key(headers)?.map(|key| IdempotencyRecord {
        project_id: project.to_owned(),
        session_id: String::new(),
        key,
        fingerprint: idempotency::fingerprint(body),
        created_at: unix_now(),
    });
    if let Some(key) = &key
        && let Some(seen) = engine.store.get_create_key(project, &key.key).await?
    {
        return retry(engine, &seen, key, req.stream, req.include_obfuscation).await;
    }
    let saved = match &req.agent_id {
        Some(id) => Some(
            crate::agents::load(engine.store.as_ref(), &engine.secrets, project, id)
                .await?
                .1,
        ),
        None => None,
    };
    let mut agent = resolve(saved.as_ref(), req.agent.as_ref())?;
    agent.x_agents_core = agent.x_agents_core.overridden_by(&req.x_agents_core);
    // Vault credentials bind before execution admission (core-contracts §2.3 step 4).
    let credentials = super::credentials::bind(
        engine.store.as_ref(),
        project,
        &req.vault_ids,
        &mut agent.tools,
    )
    .await?;

    let session_id = new_id(IdKind::Session);
    tracing::Span::current().record("session.id", session_id.as_str());
    let now = unix_now();
    let workspace = super::workspace::admit(engine, project, &req, &session_id, now).await?;
    let placement = req.environment.placement();
    let harness = agent.x_agents_core.harness.unwrap_or(default_harness);
    let provider: ModelProvider = match &agent.x_agents_core.model_provider {
        Some(p) => p.clone(),
        None => engine
            .default_provider(harness)
            .ok_or(SessionError::ModelProviderRequired)?,
    };
    let mut snap = snapshot(&agent, req.agent_id.clone(), placement.clone(), harness);
    snap.model_provider = Some(provider.clone());
    let decl = declaration(harness);
    validate_selection(decl, &snap)?;

    let stored_workspace = workspace.as_ref().map(|w| w.environment.workspace());
    let config = with_workspace(
        configuration(&snap, &provider),
        stored_workspace.clone(),
        &engine.secrets,
    )?;
    let required = required_capabilities(&snap);
    // A self-hosted Environment's Runtime may not exist yet: its input waits for it.
    let gated = !matches!(req.environment, EnvironmentRequest::SelfHosted { .. });
    match engine
        .links
        .pick(config.harness, &required, "", Route::Deployment)
    {
        // Being installed: admitted, and its Turn waits in `queued` until the install ends.
        Ok(_) | Err(Unavailable::Installing) => {}
        Err(_) if !gated && declaration(harness).native.adapter => {}
        Err(why) => {
            // On replicas, a Runtime of another replica runs it (the Turn is handed over).
            let key = super::replica::route_key(Route::Deployment, config.harness.as_str());
            if !engine.served_elsewhere(&key).await {
                return Err(SessionError::unsupported(
                    None,
                    unavailable_message(harness, why),
                ));
            }
        }
    }

    // Everything is admitted: build the Session, provider key sealed in its document.
    let mut stored_agent = agent.clone();
    if let Some(p) = stored_agent.x_agents_core.model_provider.as_mut() {
        p.api_key = engine.secrets.seal(&p.api_key)?;
    }
    let environment = match &workspace {
        Some(w) => w.environment.session_json(&engine.settings.public_url),
        None => json!({ "type": "none" }),
    };
    let live = Live {
        meta: SessionMeta {
            id: session_id.clone(),
            project_id: project.to_owned(),
            created_at: now,
            agent_id: req.agent_id.clone(),
            metadata: req.metadata.clone(),
        },
        doc: SessionDoc {
            agent: FrozenAgent::new(stored_agent)?,
            harness,
            placement,
            environment,
            status: SessionStatus::Idle,
            required_actions: Vec::new(),
            last_active_at: now,
            error: None,
            usage_sum: Some(Default::default()),
            ended_turns: 0,
            vault_ids: req.vault_ids.clone(),
            credentials,
            prompt_cache_options: req.prompt_cache_options.clone(),
            review: req.review.clone(),
            active: None,
            workspace: stored_workspace,
            reservation: None,
            environment_failed: false,
            subagents: Default::default(),
            seq: 0,
        },
        config: Arc::new(config),
        agent_stored: false,
    };
    // The enrollment is shown in the create response only (its token is never stored).
    let enrollment = workspace.as_ref().and_then(|w| w.enrollment_json(engine));
    let created = session_event(
        "agent.session.created",
        with_enrollment(live.to_json(), enrollment.as_ref()),
    );
    let mut tx = Tx::new(&live);
    tx.touch();
    if let Some(w) = &workspace
        && w.created
    {
        tx.write.environment = Some(w.environment.record()?);
    }
    tx.write.create_key = key.clone().map(|k| IdempotencyRecord {
        session_id: session_id.clone(),
        ..k
    });
    let reserved = req.input.is_some() && engine.reserve_if_offline(&mut tx, true);
    for message in req.input.iter().flatten() {
        super::input::message(&mut tx, message)?;
    }
    if reserved {
        Engine::publish_pending(&mut tx);
    }
    engine.claim_new(&session_id).await?;
    let mut guard = engine.lock_new(live).await;
    // The creation stream subscribes before anything is published, so it misses nothing.
    let stream = req.stream.then(|| {
        let rx = engine.hub.subscribe(&session_id);
        (Published::new(&with_event_id(created)), rx)
    });
    if let Err(e) = engine.commit(&mut guard, tx).await {
        *guard = None;
        drop(guard);
        engine.forget(&session_id);
        // A concurrent create with the same key committed first: this is its retry.
        if let (SessionError::Store(StoreError::Conflict(_)), Some(key)) = (&e, &key)
            && let Some(seen) = engine.store.get_create_key(project, &key.key).await?
        {
            return retry(engine, &seen, key, req.stream, req.include_obfuscation).await;
        }
        return Err(e);
    }
    let session = with_enrollment(
        guard.as_ref().ok_or(SessionError::NotFound)?.to_json(),
        enrollment.as_ref(),
    );
    Ok(Created {
        session,
        session_id,
        stream,
        obfuscate: req.include_obfuscation,
    })
}

/// The answer to a create whose key was already used (`seen`): the same request gets its
/// Session as it is now, 201 again; a stream opens with `agent.session.created` carrying that
/// Session and continues live until its Turn ends (at once when no Turn is running). Another
/// request, or a Session deleted since, is a conflict.
async fn retry(
    engine: &Arc<Engine>,
    seen: &IdempotencyRecord,
    request: &IdempotencyRecord,
    stream: bool,
    obfuscate: bool,
) -> Result<Created, SessionError> {
    if seen.fingerprint != request.fingerprint {
        return Err(SessionError::IdempotencyConflict);
    }
    let (session, rx) = match engine
        .read_and_subscribe(&seen.project_id, &seen.session_id)
        .await
    {
        Ok(found) => found,
        Err(SessionError::NotFound) => return Err(SessionError::IdempotencyConflict),
        // Another replica holds it (a concurrent create there won the key): the store has
        // every committed change, so its row is the Session as it is now. Its live events are
        // that replica's.
        Err(SessionError::Moved(_)) => {
            match engine
                .store
                .get_session(&seen.project_id, &seen.session_id)
                .await?
            {
                Some(rec) => (session_json(&rec)?, None),
                None => return Err(SessionError::IdempotencyConflict),
            }
        }
        Err(e) => return Err(e),
    };
    let stream = stream.then(|| {
        let created = session_event("agent.session.created", session.clone());
        // No Turn is running: a closed channel ends the stream after its first event.
        let rx = rx.unwrap_or_else(Subscription::closed);
        (Published::new(&with_event_id(created)), rx)
    });
    Ok(Created {
        session,
        session_id: seen.session_id.clone(),
        stream,
        obfuscate,
    })
}

/// A self-hosted Session's create response: `x_agents_core.enrollment{token, command}`.
fn with_enrollment(mut session: Value, enrollment: Option<&Value>) -> Value {
    if let Some(e) = enrollment
        && let Some(x) = session
            .get_mut("x_agents_core")
            .and_then(Value::as_object_mut)
    {
        x.insert("enrollment".into(), e.clone());
    }
    session
}

fn with_event_id(mut event: Value) -> Value {
    super::events::with_event_id(&mut event);
    event
}

/// The public object of a stored Session row (lists read rows, not locks).
pub fn session_json(rec: &SessionRecord) -> Result<Value, SessionError> {
    let (meta, doc) = super::engine::parse_record(rec)?;
    Ok(super::state::session_json(&meta, &doc))
}
