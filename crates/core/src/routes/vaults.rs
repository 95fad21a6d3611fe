//! `/v1/vaults` and `/v1/vaults/{vault_id}/credentials`: create, retrieve, update, list and
//! delete (agents-api-wire §2, §12).
//!
//! Every body is validated before any lookup, and nothing is written on a rejection. Secrets
//! are sealed before the store sees them and never appear in a response. Deleting a Vault
//! deletes its credentials; Sessions that attached them fail their next dispatch that needs one
//! (the recheck in `session::credentials`), never falling back to anonymous.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};
use switchboard_execution::error_messages::invalid_value;
use switchboard_execution::parse_metadata;
use switchboard_execution::vault::{
    parse_credential_create, parse_credential_update, parse_vault_create, parse_vault_update,
};
use switchboard_store::{CredentialRecord, Page, VaultFilter, VaultRecord};
use switchboard_wire::ApiError;
use switchboard_wire::ids::{IdKind, is_valid, new_id};

use crate::auth::Project;
use crate::clock::unix_now;
use crate::edge::{ApiResult, Failure, GatedJson, json as json_response};
use crate::routes::pages::{list_envelope, page_query, unknown_cursor_is_empty};
use crate::state::AppState;
use crate::vaults::{
    ACTIVE, CredentialDoc, RotateError, STATUSES, VaultDoc, credential_object, rotate, seal_auth,
    url_policy, vault_object,
};

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/vaults", get(list_vaults).post(create_vault))
        .route(
            "/vaults/{vault_id}",
            get(retrieve_vault).post(update_vault).delete(delete_vault),
        )
        .route(
            "/vaults/{vault_id}/credentials",
            get(list_credentials).post(create_credential),
        )
        .route(
            "/vaults/{vault_id}/credentials/{credential_id}",
            get(retrieve_credential)
                .post(update_credential)
                .delete(delete_credential),
        )
}

fn not_found() -> Failure {
    Failure(ApiError::not_found())
}

fn corrupt(e: serde_json::Error) -> Failure {
    tracing::error!(error = %e, "stored vault document does not parse");
    Failure(ApiError::internal())
}

fn to_text<T: serde::Serialize>(v: &T) -> Result<String, Failure> {
    serde_json::to_string(v).map_err(corrupt)
}

impl From<RotateError> for Failure {
    fn from(e: RotateError) -> Self {
        match e {
            RotateError::Invalid(e) => e.into(),
            RotateError::Secret(e) => e.into(),
        }
    }
}

/// The Vault `id`, if it exists (a malformed ID is a missing one).
async fn vault(state: &AppState, project: &str, id: &str) -> ApiResult<(VaultRecord, VaultDoc)> {
    if !is_valid(IdKind::Vault, id) {
        return Err(not_found());
    }
    let rec = state
        .store
        .get_vault(project, id)
        .await?
        .ok_or_else(not_found)?;
    let doc = serde_json::from_str(&rec.doc).map_err(corrupt)?;
    Ok((rec, doc))
}

async fn credential(
    state: &AppState,
    project: &str,
    vault_id: &str,
    id: &str,
) -> ApiResult<(CredentialRecord, CredentialDoc)> {
    if !is_valid(IdKind::Vault, vault_id) || !is_valid(IdKind::Credential, id) {
        return Err(not_found());
    }
    let rec = state
        .store
        .get_credential(project, vault_id, id)
        .await?
        .ok_or_else(not_found)?;
    let doc = serde_json::from_str(&rec.doc).map_err(corrupt)?;
    Ok((rec, doc))
}

/// `status` (scalar, repeated, or `status[]`) and `metadata[k]=v` of a list query.
fn filter(pairs: &[(String, String)]) -> ApiResult<VaultFilter> {
    let mut f = VaultFilter::default();
    let mut metadata = serde_json::Map::new();
    for (k, v) in pairs {
        if k == "status" || k == "status[]" {
            let Some(s) = STATUSES.iter().find(|s| **s == v) else {
                return Err(invalid_value("status", v, STATUSES).into());
            };
            if !f.status.iter().any(|x| x == s) {
                f.status.push((*s).to_owned());
            }
        } else if let Some(key) = k
            .strip_prefix("metadata[")
            .and_then(|k| k.strip_suffix(']'))
        {
            metadata.insert(key.to_owned(), Value::String(v.clone()));
        }
    }
    f.metadata = parse_metadata(&Value::Object(metadata), "metadata")?
        .into_iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
        .collect();
    Ok(f)
}

fn page_of(pairs: &[(String, String)]) -> HashMap<String, String> {
    pairs.iter().cloned().collect()
}

fn list_response(data: Vec<Value>, has_more: bool) -> Response {
    json_response(StatusCode::OK, list_envelope(Page { data, has_more }))
}

async fn create_vault(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let req = parse_vault_create(&body)?;
    let doc = VaultDoc { name: req.name };
    let rec = VaultRecord {
        id: new_id(IdKind::Vault),
        project_id: project,
        created_at: unix_now(),
        status: ACTIVE.to_owned(),
        metadata: Value::Object(req.metadata).to_string(),
        doc: to_text(&doc)?,
    };
    state.store.put_vault(&rec).await?;
    Ok(json_response(StatusCode::CREATED, vault_object(&rec, &doc)))
}

async fn retrieve_vault(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (rec, doc) = vault(&state, &project, &id).await?;
    Ok(json_response(StatusCode::OK, vault_object(&rec, &doc)))
}

async fn update_vault(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let patch = parse_vault_update(&body)?;
    let (mut rec, mut doc) = vault(&state, &project, &id).await?;
    if let Some(name) = patch.name {
        doc.name = name;
    }
    if let Some(metadata) = patch.metadata {
        rec.metadata = Value::Object(metadata).to_string();
    }
    rec.doc = to_text(&doc)?;
    state.store.put_vault(&rec).await?;
    Ok(json_response(StatusCode::OK, vault_object(&rec, &doc)))
}

async fn list_vaults(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    let q = page_query(&page_of(&pairs))?;
    let f = filter(&pairs)?;
    let page = unknown_cursor_is_empty(state.store.list_vaults(&project, &q, &f).await)?;
    let mut data = Vec::with_capacity(page.data.len());
    for rec in &page.data {
        let doc: VaultDoc = serde_json::from_str(&rec.doc).map_err(corrupt)?;
        data.push(vault_object(rec, &doc));
    }
    Ok(list_response(data, page.has_more))
}

async fn delete_vault(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    if !is_valid(IdKind::Vault, &id) || !state.store.delete_vault(&project, &id).await? {
        return Err(not_found());
    }
    Ok(json_response(
        StatusCode::OK,
        json!({ "id": id, "object": "vault.deleted", "deleted": true }),
    ))
}

async fn create_credential(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(vault_id): Path<String>,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let req = parse_credential_create(&body, url_policy())?;
    vault(&state, &project, &vault_id).await?;
    let now = unix_now();
    let doc = CredentialDoc {
        name: req.name,
        updated_at: now,
        auth: seal_auth(&state.secrets, req.auth)?,
    };
    let rec = CredentialRecord {
        id: new_id(IdKind::Credential),
        project_id: project,
        vault_id,
        created_at: now,
        status: ACTIVE.to_owned(),
        metadata: Value::Object(req.metadata).to_string(),
        doc: to_text(&doc)?,
    };
    state.store.put_credential(&rec).await?;
    Ok(json_response(
        StatusCode::CREATED,
        credential_object(&rec, &doc),
    ))
}

async fn retrieve_credential(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((vault_id, id)): Path<(String, String)>,
) -> ApiResult<Response> {
    let (rec, doc) = credential(&state, &project, &vault_id, &id).await?;
    Ok(json_response(StatusCode::OK, credential_object(&rec, &doc)))
}

async fn update_credential(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((vault_id, id)): Path<(String, String)>,
    GatedJson(body): GatedJson,
) -> ApiResult<Response> {
    let patch = parse_credential_update(&body)?;
    let (mut rec, mut doc) = credential(&state, &project, &vault_id, &id).await?;
    if let Some(rotation) = patch.auth {
        rotate(&state.secrets, &mut doc.auth, rotation)?;
    }
    if let Some(metadata) = patch.metadata {
        rec.metadata = Value::Object(metadata).to_string();
    }
    doc.updated_at = unix_now().max(doc.updated_at);
    rec.doc = to_text(&doc)?;
    state.store.put_credential(&rec).await?;
    Ok(json_response(StatusCode::OK, credential_object(&rec, &doc)))
}

async fn list_credentials(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path(vault_id): Path<String>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    let q = page_query(&page_of(&pairs))?;
    let f = filter(&pairs)?;
    vault(&state, &project, &vault_id).await?;
    let page = unknown_cursor_is_empty(
        state
            .store
            .list_credentials(&project, &vault_id, &q, &f)
            .await,
    )?;
    let mut data = Vec::with_capacity(page.data.len());
    for rec in &page.data {
        let doc: CredentialDoc = serde_json::from_str(&rec.doc).map_err(corrupt)?;
        data.push(credential_object(rec, &doc));
    }
    Ok(list_response(data, page.has_more))
}

async fn delete_credential(
    State(state): State<Arc<AppState>>,
    Project(project): Project,
    Path((vault_id, id)): Path<(String, String)>,
) -> ApiResult<Response> {
    let valid = is_valid(IdKind::Vault, &vault_id) && is_valid(IdKind::Credential, &id);
    if !valid
        || !state
            .store
            .delete_credential(&project, &vault_id, &id)
            .await?
    {
        return Err(not_found());
    }
    Ok(json_response(
        StatusCode::OK,
        json!({ "id": id, "object": "vault.credential.deleted", "deleted": true }),
    ))
}
