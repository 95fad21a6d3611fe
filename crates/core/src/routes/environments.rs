//! `/v1/agents/environments`: create, retrieve and list Environments, and the files of a
//! workspace (agents-api-wire §2, §12). File operations go to the Runtime hosting the
//! workspace ([`crate::environments::files`]).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use switchboard_execution::ValidationError;
use switchboard_execution::error_messages::{self, invalid_value};
use switchboard_execution::hosted_environment::{parse_file_create, workspace_path};
use switchboard_protocol::workspace::WorkspaceFile;
use switchboard_store::{EnvironmentFilter, Order};

use crate::auth::Project;
use crate::edge::{ApiResult, GatedJson, json as json_response};
use crate::environments::{self, Environment, files};
use crate::routes::pages::{list_envelope, page_query, unknown_cursor_is_empty};
use crate::state::AppState;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/agents/environments", get(list).post(create))
        .route(
            "/agents/environments/{environment_id}",
            get(retrieve).delete(delete),
        )
        .route(
            "/agents/environments/{environment_id}/files",
            get(list_files).post(create_file),
        )
}

async fn create(
    State(state): State<Arc<AppState>>,
    project: Project,
    headers: HeaderMap,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let env = environments::create(&state.engine, project.id(), &body, &headers).await?;
    Ok(json_response(StatusCode::CREATED, env.info_json()))
}

async fn retrieve(
    State(state): State<Arc<AppState>>,
    project: Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let env = environments::load(state.store.as_ref(), project.id(), &id).await?;
    Ok(json_response(StatusCode::OK, env.info_json()))
}

/// Not in the SDK 3.57 surface; the issue asks that deleting an Environment removes its
/// workspace. One a Session created goes with that Session instead (409 while it exists).
async fn delete(
    State(state): State<Arc<AppState>>,
    project: Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    environments::delete(&state.engine, project.id(), &id).await?;
    Ok(json_response(
        StatusCode::OK,
        json!({ "id": id, "object": "agent.environment.deleted", "deleted": true }),
    ))
}

const TYPES: &[&str] = &["openai_hosted", "self_hosted"];

async fn list(
    State(state): State<Arc<AppState>>,
    project: Project,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    let kind = match q.get("type").map(String::as_str) {
        None => None,
        Some(t) if TYPES.contains(&t) => Some(t.to_owned()),
        Some(other) => return Err(invalid_value("type", other, TYPES).into()),
    };
    let rows = unknown_cursor_is_empty(
        state
            .store
            .list_environments(project.id(), &page, &EnvironmentFilter { kind })
            .await,
    )?;
    let data = rows
        .data
        .iter()
        .map(|r| Environment::from_record(r).map(|e| e.info_json()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(crate::session::SessionError::from)?;
    Ok(json_response(
        StatusCode::OK,
        list_envelope(switchboard_store::Page {
            data,
            has_more: rows.has_more,
        }),
    ))
}

/// `{type: "inline", data, path}`; `file_id` files need a Files API this service does not have.
async fn create_file(
    State(state): State<Arc<AppState>>,
    project: Project,
    Path(id): Path<String>,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let Some(file) = parse_file_create(&Value::Object(body))? else {
        return Err(ValidationError::new(
            Some("type".to_owned()),
            "This service does not support file_id files; send the contents inline with type 'inline'.",
        )
        .into());
    };
    let env = environments::load(state.store.as_ref(), project.id(), &id).await?;
    let written = files::write(
        &state.engine,
        &env,
        WorkspaceFile {
            path: file.path,
            data: file.data,
        },
    )
    .await?;
    Ok(json_response(
        StatusCode::CREATED,
        file_json(&env.id, &written),
    ))
}

fn file_json(environment_id: &str, f: &switchboard_protocol::workspace::WorkspaceEntry) -> Value {
    json!({
        "object": "agent.environment.file",
        "environment_id": environment_id,
        "path": f.path,
        "size_bytes": f.size_bytes,
    })
}

/// A TokenPage: `{object: "list", data, next}`; `page` is the opaque `next` of the page before
/// (the last path it listed).
async fn list_files(
    State(state): State<Arc<AppState>>,
    project: Project,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let page = page_query(&q)?;
    let path = match q.get("path") {
        Some(p) => Some(workspace_path(&Value::String(p.clone()), "path")?),
        None => None,
    };
    let after = match q.get("page").filter(|p| !p.is_empty()) {
        Some(token) => Some(
            URL_SAFE_NO_PAD
                .decode(token)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| error_messages::rule("page", "Invalid 'page': not a page token."))?,
        ),
        None => None,
    };
    let env = environments::load(state.store.as_ref(), project.id(), &id).await?;
    let mut entries = files::list(&state.engine, &env, path).await?;
    if page.order == Order::Desc {
        entries.reverse();
    }
    let rest: Vec<_> = entries
        .into_iter()
        .filter(|e| match (&after, page.order) {
            (None, _) => true,
            (Some(a), Order::Asc) => e.path > *a,
            (Some(a), Order::Desc) => e.path < *a,
        })
        .collect();
    let limit = page.limit as usize;
    let next = (rest.len() > limit).then(|| URL_SAFE_NO_PAD.encode(&rest[limit - 1].path));
    let data: Vec<Value> = rest
        .iter()
        .take(limit)
        .map(|f| file_json(&env.id, f))
        .collect();
    Ok(json_response(
        StatusCode::OK,
        json!({ "object": "list", "data": data, "next": next, "has_more": next.is_some() }),
    ))
}
