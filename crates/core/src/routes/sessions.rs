//! `/v1/agents/sessions`: create, retrieve, update, list and delete Sessions, their input
//! events and live event stream, Turns, Items and traces.
//!
//! Handlers stay thin: they gate the body, call the Session engine ([`crate::session`]), and
//! render. Reads of history (Turns, Items, lists) come from the store, which every change is
//! written to before it is published.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use switchboard_execution::parse_metadata;
use switchboard_store::{Page, PageQuery, SessionFilter};
use switchboard_wire::ApiError;
use switchboard_wire::body::SESSION_CREATE_LIMIT;
use switchboard_wire::ids::{IdKind, is_valid};

use crate::auth::Project;
use crate::edge::{ApiResult, Failure, GatedJson, json as json_response};
use crate::routes::pages::{list_envelope, page_query, unknown_cursor_is_empty};
use crate::session::hub::{StreamEnd, sse_response};
use crate::session::{self, create};
use crate::state::AppState;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/agents/sessions", get(list).post(create_session))
        .route(
            "/agents/sessions/{session_id}",
            get(retrieve).post(update).delete(delete),
        )
        .route(
            "/agents/sessions/{session_id}/events",
            get(stream_events).post(post_events),
        )
        .route("/agents/sessions/{session_id}/items", get(list_items))
        .route("/agents/sessions/{session_id}/turns", get(list_turns))
        .route("/agents/sessions/{session_id}/traces", get(list_traces))
        .route(
            "/agents/sessions/{session_id}/turns/{turn_id}",
            get(retrieve_turn),
        )
        .route(
            "/agents/sessions/{session_id}/turns/{turn_id}/items",
            get(list_turn_items),
        )
}

async fn create_session(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    headers: HeaderMap,
    GatedJson(body): GatedJson<SESSION_CREATE_LIMIT>,
) -> ApiResult<Response> {
    let created = create::create(
        &state.engine,
        &project,
        state.config.default_harness,
        &body,
        &headers,
    )
    .await?;
    Ok(match created.stream {
        Some((first, rx)) => sse_response(
            StatusCode::CREATED,
            created.session_id,
            Some(first),
            rx,
            StreamEnd::AfterTurn,
            created.obfuscate,
        ),
        None => json_response(StatusCode::CREATED, created.session),
    })
}

async fn retrieve(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    Ok(json_response(
        StatusCode::OK,
        state.engine.read(&project, &id).await?,
    ))
}

async fn update(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let session = session::update::update(&state.engine, &project, &id, &body).await?;
    Ok(json_response(StatusCode::OK, session))
}

async fn delete(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    session::update::delete(&state.engine, &project, &id).await?;
    Ok(json_response(
        StatusCode::OK,
        json!({ "id": id, "object": "agent.session.deleted", "deleted": true }),
    ))
}

async fn list(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    let filter = SessionFilter {
        agent_id: q.get("agent_id").filter(|s| !s.is_empty()).cloned(),
        metadata: metadata_filter(&q)?,
    };
    let rows = unknown_cursor_is_empty(state.store.list_sessions(&project, &page, &filter).await)?;
    let data = rows
        .data
        .iter()
        .map(create::session_json)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(page_response(data, rows.has_more))
}

/// The `metadata[k]=v` pairs of a list query. They are bounded like the metadata they match
/// (at most 16 pairs, keys up to 64 characters, values up to 512, with the same messages): a
/// filter no Session can meet is a 400, and an unbounded one would grow the store's query
/// without limit.
fn metadata_filter(q: &HashMap<String, String>) -> Result<Vec<(String, String)>, Failure> {
    let pairs: serde_json::Map<String, Value> = q
        .iter()
        .filter_map(|(k, v)| {
            let key = k.strip_prefix("metadata[")?.strip_suffix(']')?;
            Some((key.to_owned(), Value::String(v.clone())))
        })
        .collect();
    let pairs = parse_metadata(&Value::Object(pairs), "metadata")?;
    Ok(pairs
        .into_iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
        .collect())
}

fn page_response(data: Vec<Value>, has_more: bool) -> Response {
    json_response(StatusCode::OK, list_envelope(Page { data, has_more }))
}

/// The Session must exist (404 otherwise) before its history is listed.
async fn require_session(state: &AppState, project: &str, id: &str) -> ApiResult<()> {
    if !is_valid(IdKind::Session, id) || state.store.get_session(project, id).await?.is_none() {
        return Err(Failure(ApiError::not_found()));
    }
    Ok(())
}

/// Stored Turn and Item documents, read back as JSON.
fn parse_stored(texts: impl Iterator<Item = String>) -> ApiResult<Vec<Value>> {
    texts
        .map(|t| {
            serde_json::from_str(&t).map_err(|e| {
                tracing::error!(error = %e, "stored document does not parse");
                Failure(ApiError::internal())
            })
        })
        .collect()
}

async fn list_turns(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    require_session(&state, &project, &id).await?;
    let rows = unknown_cursor_is_empty(state.store.list_turns(&project, &id, &page).await)?;
    let data = parse_stored(rows.data.into_iter().map(|r| r.doc))?;
    Ok(page_response(data, rows.has_more))
}

/// At most this much OTLP JSON in one page of traces (agents-api-wire §2).
const TRACES_PAGE_LIMIT: usize = 16 << 20;

/// `agent.session.trace` objects: one per root Turn whose spans have been stored (a running
/// Turn's appear once it ends), `otlp` its spans as one `ExportTraceServiceRequest`.
async fn list_traces(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    require_session(&state, &project, &id).await?;
    let rows = unknown_cursor_is_empty(state.store.list_traces(&project, &id, &page).await)?;
    if rows.data.iter().map(|r| r.spans.len()).sum::<usize>() > TRACES_PAGE_LIMIT {
        return Err(Failure(ApiError::invalid_body(
            "The traces of this page exceed 16 MiB; request fewer with a smaller `limit`.",
        )));
    }
    let data = rows
        .data
        .into_iter()
        .map(session_trace)
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(page_response(data, rows.has_more))
}

/// One stored trace as the API shows it: its batches' `resourceSpans` joined in one document.
fn session_trace(rec: switchboard_store::TraceRecord) -> ApiResult<Value> {
    let turn = parse_stored(std::iter::once(rec.turn_doc))?.remove(0);
    let mut resource_spans = Vec::new();
    for batch in parse_stored(rec.spans.lines().map(str::to_owned))? {
        if let Some(Value::Array(spans)) = batch.get("resourceSpans") {
            resource_spans.extend(spans.iter().cloned());
        }
    }
    Ok(json!({
        "id": rec.id,
        "object": "agent.session.trace",
        "session_id": rec.session_id,
        "created_at": turn["created_at"],
        "otlp": { "resourceSpans": resource_spans },
    }))
}

async fn retrieve_turn(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((id, turn_id)): Path<(String, String)>,
) -> ApiResult<Response> {
    require_session(&state, &project, &id).await?;
    let turn = state
        .store
        .get_turn(&project, &id, &turn_id)
        .await?
        .ok_or(Failure(ApiError::not_found()))?;
    let doc = parse_stored(std::iter::once(turn.doc))?.remove(0);
    Ok(json_response(StatusCode::OK, doc))
}

async fn list_items(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    items_page(&state, &project, &id, None, &q).await
}

async fn list_turn_items(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((id, turn_id)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    items_page(&state, &project, &id, Some(&turn_id), &q).await
}

async fn items_page(
    state: &AppState,
    project: &str,
    id: &str,
    turn_id: Option<&str>,
    q: &HashMap<String, String>,
) -> ApiResult<Response> {
    let page: PageQuery = page_query(q)?;
    require_session(state, project, id).await?;
    if let Some(turn_id) = turn_id
        && state.store.get_turn(project, id, turn_id).await?.is_none()
    {
        return Err(Failure(ApiError::not_found()));
    }
    let rows = unknown_cursor_is_empty(state.store.list_items(project, id, turn_id, &page).await)?;
    let data = parse_stored(rows.data.into_iter().map(|r| r.doc))?;
    Ok(page_response(data, rows.has_more))
}

/// `GET …/events`: live from now on, spanning Turns, until the Session is deleted.
async fn stream_events(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let obfuscate = match q.get("include_obfuscation").map(String::as_str) {
        None | Some("true") => true,
        Some("false") => false,
        Some(other) => {
            return Err(switchboard_execution::error_messages::invalid_value(
                "include_obfuscation",
                other,
                &["true", "false"],
            )
            .into());
        }
    };
    let rx = state.engine.subscribe(&project, &id).await?;
    Ok(sse_response(
        StatusCode::OK,
        id,
        None,
        rx,
        StreamEnd::Never,
        obfuscate,
    ))
}

/// `POST …/events`: 1–64 input events, admitted atomically; 202 with an empty body once stored.
async fn post_events(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    headers: HeaderMap,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    session::input::post_events(&state.engine, &project, &id, &body, &headers).await?;
    Ok(StatusCode::ACCEPTED.into_response())
}
