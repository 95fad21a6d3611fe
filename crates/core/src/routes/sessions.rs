//! `/v1/agents/sessions`: create, retrieve, update, list and delete Sessions, their input
//! events and live event stream, Turns and Items.
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
use sha2::{Digest, Sha256};
use switchboard_execution::{InputEvent, parse_input_events, parse_metadata, parse_session_update};
use switchboard_store::{IdempotencyRecord, Page, PageQuery, SessionFilter, StoreError};
use switchboard_wire::body::SESSION_CREATE_LIMIT;
use switchboard_wire::ids::{IdKind, is_valid};
use switchboard_wire::{ApiError, ErrorCode};

use crate::app::AppState;
use crate::edge::{ApiResult, Failure, GatedJson, json as json_response};
use crate::routes::pages::{list_envelope, page_query};
use crate::session::create;
use crate::session::hub::{StreamEnd, sse_response};
use crate::session::input::{self, KnownCall};
use crate::session::state::{CallDoc, Tx};

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
    headers: HeaderMap,
    GatedJson(body): GatedJson<SESSION_CREATE_LIMIT>,
) -> ApiResult<Response> {
    let created = create::create(&state.engine, &state, &body, &headers).await?;
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
    Path(id): Path<String>,
) -> ApiResult<Response> {
    Ok(json_response(StatusCode::OK, state.engine.read(&id).await?))
}

const AGENT_FIXED: &str =
    "A Session's agent is fixed at creation; create a new Session to change it.";

async fn update(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let update = parse_session_update(&body)?;
    let engine = &state.engine;
    let mut guard = engine.lock(&id).await?;
    let mut tx = Tx::new(guard.as_ref().expect("loaded"));
    if update.agent.is_some() {
        return Err(Failure(ApiError::new(
            ErrorCode::UnsupportedConfiguration,
            Some("agent".into()),
            AGENT_FIXED,
        )));
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
    Ok(json_response(
        StatusCode::OK,
        guard.as_ref().expect("committed").to_json(),
    ))
}

const ACTIVE_TURN: &str = "The Session has an active Turn. Cancel it and wait for the Session to be idle before deleting it.";

async fn delete(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> ApiResult<Response> {
    let engine = &state.engine;
    let mut guard = engine.lock(&id).await?;
    if guard.as_ref().is_some_and(|l| l.doc.active.is_some()) {
        return Err(Failure(ApiError::new(
            ErrorCode::Conflict,
            None,
            ACTIVE_TURN,
        )));
    }
    engine.store.delete_session(&id).await?;
    *guard = None;
    drop(guard);
    engine.forget(&id);
    engine.release(&id).await;
    Ok(json_response(
        StatusCode::OK,
        json!({ "id": id, "object": "agent.session.deleted", "deleted": true }),
    ))
}

async fn list(
    State(state): State<Arc<AppState>>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    let filter = SessionFilter {
        agent_id: q.get("agent_id").filter(|s| !s.is_empty()).cloned(),
        metadata: metadata_filter(&q)?,
    };
    let rows = or_empty(state.store.list_sessions(&page, &filter).await)?;
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

fn or_empty<T>(r: Result<Page<T>, StoreError>) -> Result<Page<T>, Failure> {
    match r {
        Err(StoreError::UnknownCursor) => Ok(Page {
            data: Vec::new(),
            has_more: false,
        }),
        other => Ok(other?),
    }
}

fn page_response(data: Vec<Value>, has_more: bool) -> Response {
    json_response(StatusCode::OK, list_envelope(Page { data, has_more }))
}

/// The Session must exist (404 otherwise) before its history is listed.
async fn existing(state: &AppState, id: &str) -> ApiResult<()> {
    if !is_valid(IdKind::Session, id) || state.store.get_session(id).await?.is_none() {
        return Err(Failure(ApiError::not_found()));
    }
    Ok(())
}

fn docs(texts: impl Iterator<Item = String>) -> ApiResult<Vec<Value>> {
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
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    existing(&state, &id).await?;
    let rows = or_empty(state.store.list_turns(&id, &page).await)?;
    let data = docs(rows.data.into_iter().map(|r| r.doc))?;
    Ok(page_response(data, rows.has_more))
}

async fn retrieve_turn(
    State(state): State<Arc<AppState>>,
    Path((id, turn_id)): Path<(String, String)>,
) -> ApiResult<Response> {
    existing(&state, &id).await?;
    let turn = state
        .store
        .get_turn(&id, &turn_id)
        .await?
        .ok_or(Failure(ApiError::not_found()))?;
    let doc = docs(std::iter::once(turn.doc))?.remove(0);
    Ok(json_response(StatusCode::OK, doc))
}

async fn list_items(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    items_page(&state, &id, None, &q).await
}

async fn list_turn_items(
    State(state): State<Arc<AppState>>,
    Path((id, turn_id)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    items_page(&state, &id, Some(&turn_id), &q).await
}

async fn items_page(
    state: &AppState,
    id: &str,
    turn_id: Option<&str>,
    q: &HashMap<String, String>,
) -> ApiResult<Response> {
    let page: PageQuery = page_query(q)?;
    existing(state, id).await?;
    if let Some(turn_id) = turn_id
        && state.store.get_turn(id, turn_id).await?.is_none()
    {
        return Err(Failure(ApiError::not_found()));
    }
    let rows = or_empty(state.store.list_items(id, turn_id, &page).await)?;
    let data = docs(rows.data.into_iter().map(|r| r.doc))?;
    Ok(page_response(data, rows.has_more))
}

/// `GET …/events`: live from now on, spanning Turns, until the Session is deleted.
async fn stream_events(
    State(state): State<Arc<AppState>>,
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
    let rx = state.engine.subscribe(&id).await?;
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
    Path(id): Path<String>,
    headers: HeaderMap,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let events = parse_input_events(&body)?;
    let key = crate::idempotency::key(&headers)?;
    let engine = &state.engine;
    let mut guard = engine.lock(&id).await?;
    let fingerprint = hex::encode(Sha256::digest(
        serde_json::to_string(&body["events"]).unwrap_or_default(),
    ));
    if let Some(key) = &key
        && let Some(seen) = engine.store.get_idempotency(&id, key).await?
    {
        if seen.fingerprint == fingerprint {
            return Ok(StatusCode::ACCEPTED.into_response());
        }
        return Err(crate::idempotency::conflict());
    }
    if events.is_empty() {
        return Ok(StatusCode::ACCEPTED.into_response());
    }
    let mut tx = Tx::new(guard.as_ref().expect("loaded"));
    for event in &events {
        match event {
            InputEvent::Message { input } => {
                for message in input {
                    input::message(&mut tx, message)?;
                }
            }
            InputEvent::ToolResult(result) => {
                // Calls of the running Turn are in memory; only an ended Turn's are read.
                let in_memory = tx
                    .live
                    .doc
                    .active
                    .as_ref()
                    .is_some_and(|t| t.call(&result.call_id).is_some());
                let stored = if in_memory {
                    None
                } else {
                    engine.store.get_call(&id, &result.call_id).await?
                };
                let stored = match stored {
                    Some(rec) => Some(KnownCall {
                        turn_id: rec.turn_id,
                        doc: serde_json::from_str::<CallDoc>(&rec.doc).map_err(|e| {
                            tracing::error!(error = %e, "stored call does not parse");
                            Failure(ApiError::internal())
                        })?,
                        active: false,
                    }),
                    None => None,
                };
                input::tool_result(&mut tx, result, stored)?;
            }
            InputEvent::Cancel => input::cancel(&mut tx),
        }
    }
    if let Some(key) = key {
        tx.write.idempotency = Some(IdempotencyRecord {
            session_id: id.clone(),
            key,
            fingerprint,
            created_at: crate::unix_now(),
        });
    }
    engine.commit(&mut guard, tx).await?;
    Ok(StatusCode::ACCEPTED.into_response())
}
