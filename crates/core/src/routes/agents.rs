//! `/v1/agents`: create, retrieve, update, list and delete saved Agents.
//!
//! Saving runs protocol validation only (the execution parser), never a harness declaration:
//! an Agent is resource data, and qualification happens at Session creation. The model
//! provider's `api_key` is sealed before it reaches the store and never echoed.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde::Serialize;
use serde_json::json;
use switchboard_execution::{
    AgentConfig, parse_agent_create, parse_agent_update, public::AgentPublic,
};
use switchboard_store::{AgentRecord, Page};
use switchboard_wire::ApiError;
use switchboard_wire::ids::{IdKind, is_valid, new_id};

use crate::agents::{AgentError, load, open_config, seal_config};
use crate::auth::Project;
use crate::clock::unix_now;
use crate::edge::{ApiResult, Failure, GatedJson, json as json_response};
use crate::routes::pages::{list_envelope, page_query, unknown_cursor_is_empty};
use crate::state::AppState;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/agents", get(list).post(create))
        .route(
            "/agents/{agent_id}",
            get(retrieve).post(update).delete(delete),
        )
}

/// The public Agent object.
pub fn agent_object<'a>(rec: &'a AgentRecord, cfg: &'a AgentConfig) -> AgentObject<'a> {
    AgentObject {
        id: &rec.id,
        object: "agent",
        created_at: rec.created_at,
        updated_at: rec.updated_at,
        fields: AgentPublic(cfg),
    }
}

/// An `agent` response object, written straight to the response bytes.
#[derive(Serialize)]
pub struct AgentObject<'a> {
    id: &'a str,
    object: &'static str,
    created_at: i64,
    updated_at: i64,
    #[serde(flatten)]
    fields: AgentPublic<'a>,
}

async fn create(
    State(state): State<Arc<AppState>>,
    project: Project,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let cfg = parse_agent_create(&body)?;
    let t = unix_now();
    let rec = AgentRecord {
        id: new_id(IdKind::Agent),
        project_id: project.0,
        created_at: t,
        updated_at: t,
        config: seal_config(&state.secrets, &cfg)?,
    };
    state.store.insert_agent(&rec).await?;
    Ok(json_response(StatusCode::CREATED, agent_object(&rec, &cfg)))
}

async fn retrieve(
    State(state): State<Arc<AppState>>,
    project: Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (rec, cfg) = load(state.store.as_ref(), &state.secrets, project.id(), &id).await?;
    Ok(json_response(StatusCode::OK, agent_object(&rec, &cfg)))
}

async fn update(
    State(state): State<Arc<AppState>>,
    project: Project,
    Path(id): Path<String>,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    // The body gate and protocol validation come before the lookup, as for every route.
    let patch = parse_agent_update(&body)?;
    let (mut rec, mut cfg) = load(state.store.as_ref(), &state.secrets, project.id(), &id).await?;
    cfg.apply(patch);
    rec.updated_at = unix_now().max(rec.updated_at);
    rec.config = seal_config(&state.secrets, &cfg)?;
    if !state.store.update_agent(&rec).await? {
        return Err(Failure(ApiError::not_found()));
    }
    Ok(json_response(StatusCode::OK, agent_object(&rec, &cfg)))
}

async fn delete(
    State(state): State<Arc<AppState>>,
    project: Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    if !is_valid(IdKind::Agent, &id) || !state.store.delete_agent(project.id(), &id).await? {
        return Err(Failure(ApiError::not_found()));
    }
    Ok(json_response(
        StatusCode::OK,
        json!({ "id": id, "object": "agent.deleted", "deleted": true }),
    ))
}

async fn list(
    State(state): State<Arc<AppState>>,
    project: Project,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let q = page_query(&q)?;
    let page = unknown_cursor_is_empty(state.store.list_agents(project.id(), &q).await)?;
    let mut data = Vec::with_capacity(page.data.len());
    for rec in &page.data {
        let cfg = open_config(&state.secrets, &rec.config)?;
        let object = serde_json::to_value(agent_object(rec, &cfg)).map_err(AgentError::from)?;
        data.push(object);
    }
    Ok(json_response(
        StatusCode::OK,
        list_envelope(Page {
            data,
            has_more: page.has_more,
        }),
    ))
}
