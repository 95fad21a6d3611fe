//! `/v1/agents/sessions/{id}/subagents`: a multi-agent Session's Subagents, their Items, their
//! Turns and each Turn's Items (agents-api-wire §2), read from the store. Every page is a
//! `CursorPage`; an ID of another Session or Subagent is a 404, like an unknown one.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::Value;
use switchboard_store::Page;
use switchboard_wire::ApiError;
use switchboard_wire::ids::{IdKind, is_valid};

use crate::auth::Project;
use crate::edge::{ApiResult, Failure, json as json_response};
use crate::routes::pages::{list_envelope, page_query, unknown_cursor_is_empty};
use crate::state::AppState;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/agents/sessions/{session_id}/subagents", get(list))
        .route(
            "/agents/sessions/{session_id}/subagents/{subagent_id}",
            get(retrieve),
        )
        .route(
            "/agents/sessions/{session_id}/subagents/{subagent_id}/items",
            get(list_items),
        )
        .route(
            "/agents/sessions/{session_id}/subagents/{subagent_id}/turns",
            get(list_turns),
        )
        .route(
            "/agents/sessions/{session_id}/subagents/{subagent_id}/turns/{turn_id}",
            get(retrieve_turn),
        )
        .route(
            "/agents/sessions/{session_id}/subagents/{subagent_id}/turns/{turn_id}/items",
            get(list_turn_items),
        )
}

fn not_found() -> Failure {
    Failure(ApiError::not_found())
}

fn parse(doc: &str) -> ApiResult<Value> {
    serde_json::from_str(doc).map_err(|e| {
        tracing::error!(error = %e, "stored document does not parse");
        Failure(ApiError::internal())
    })
}

fn page_response(docs: Vec<String>, has_more: bool) -> ApiResult<Response> {
    let data = docs
        .iter()
        .map(|d| parse(d))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(json_response(
        StatusCode::OK,
        list_envelope(Page { data, has_more }),
    ))
}

/// The Session must exist (404 otherwise).
async fn require_session(state: &AppState, project: &str, id: &str) -> ApiResult<()> {
    if !is_valid(IdKind::Session, id) || state.store.get_session(project, id).await?.is_none() {
        return Err(not_found());
    }
    Ok(())
}

/// The Subagent must be the Session's (404 otherwise); its stored document.
async fn require_subagent(
    state: &AppState,
    project: &str,
    id: &str,
    subagent_id: &str,
) -> ApiResult<String> {
    require_session(state, project, id).await?;
    Ok(state
        .store
        .get_subagent(project, id, subagent_id)
        .await?
        .ok_or_else(not_found)?
        .doc)
}

async fn list(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    require_session(&state, &project, &id).await?;
    let rows = unknown_cursor_is_empty(state.store.list_subagents(&project, &id, &page).await)?;
    page_response(
        rows.data.into_iter().map(|r| r.doc).collect(),
        rows.has_more,
    )
}

async fn retrieve(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((id, subagent_id)): Path<(String, String)>,
) -> ApiResult<Response> {
    let doc = require_subagent(&state, &project, &id, &subagent_id).await?;
    Ok(json_response(StatusCode::OK, parse(&doc)?))
}

async fn list_turns(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((id, subagent_id)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    require_subagent(&state, &project, &id, &subagent_id).await?;
    let rows = unknown_cursor_is_empty(
        state
            .store
            .list_child_turns(&project, &id, &subagent_id, &page)
            .await,
    )?;
    page_response(
        rows.data.into_iter().map(|r| r.doc).collect(),
        rows.has_more,
    )
}

async fn retrieve_turn(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((id, subagent_id, turn_id)): Path<(String, String, String)>,
) -> ApiResult<Response> {
    require_subagent(&state, &project, &id, &subagent_id).await?;
    let turn = state
        .store
        .get_child_turn(&project, &id, &subagent_id, &turn_id)
        .await?
        .ok_or_else(not_found)?;
    Ok(json_response(StatusCode::OK, parse(&turn.doc)?))
}

async fn list_items(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((id, subagent_id)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    items_page(&state, &project, &id, &subagent_id, None, &q).await
}

async fn list_turn_items(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((id, subagent_id, turn_id)): Path<(String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    items_page(&state, &project, &id, &subagent_id, Some(&turn_id), &q).await
}

async fn items_page(
    state: &AppState,
    project: &str,
    id: &str,
    subagent_id: &str,
    turn_id: Option<&str>,
    q: &HashMap<String, String>,
) -> ApiResult<Response> {
    let page = page_query(q)?;
    require_subagent(state, project, id, subagent_id).await?;
    if let Some(turn_id) = turn_id
        && state
            .store
            .get_child_turn(project, id, subagent_id, turn_id)
            .await?
            .is_none()
    {
        return Err(not_found());
    }
    let rows = unknown_cursor_is_empty(
        state
            .store
            .list_child_items(project, id, subagent_id, turn_id, &page)
            .await,
    )?;
    page_response(
        rows.data.into_iter().map(|r| r.doc).collect(),
        rows.has_more,
    )
}
