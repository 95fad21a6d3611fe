//! Vault credentials of a Session's HTTP MCP servers (core-contracts §5.4).
//!
//! At create, [`bind`] checks the attached Vaults (a missing one is a 404) and picks each HTTP
//! server's credential: an explicit `credential_id` must be in an attached Vault with
//! `mcp_server_url == server_url`; without one, the unique matching credential is used (two
//! are a 409), and none means anonymous. The selection is frozen in the Session document
//! ([`BoundCredential`]) and an implicit one is written into the tool's `credential_id`, so
//! reads show it. At dispatch, [`resolve_bearer`] rechecks the binding against the store
//! (Vault, credential, type, URL) and opens the secret into the bearer, refreshing an expired
//! OAuth token once; any failure fails the work and never falls back to anonymous.

use serde::{Deserialize, Serialize};
use switchboard_execution::error_messages;
use switchboard_execution::vault::{
    EndpointAuth, UrlPolicy, rfc3339_from_seconds, rfc3339_seconds,
};
use switchboard_execution::{McpTransport, Tool};
use switchboard_store::{CredentialRecord, Store};
use switchboard_wire::ids::{IdKind, is_valid};

use super::error::SessionError;
use crate::oauth::{RefreshRequest, Refreshed};
use crate::secrets::SecretBox;
use crate::vaults::{ACTIVE, CredentialDoc, StoredAuth, StoredRefresh};

/// One HTTP MCP server's frozen credential selection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundCredential {
    pub server_label: String,
    pub vault_id: String,
    pub credential_id: String,
    /// `static_bearer` or `mcp_oauth`, as selected.
    pub kind: String,
    /// The credential's URL as selected (equal to the server's `server_url`).
    pub mcp_server_url: String,
}

/// Checks `vault_ids` and binds every HTTP MCP server of `tools` (see the module docs). An
/// implicitly selected credential's ID is written into its tool.
pub async fn bind(
    store: &dyn Store,
    project: &str,
    vault_ids: &[String],
    tools: &mut [Tool],
) -> Result<Vec<BoundCredential>, SessionError> {
    for id in vault_ids {
        let active = is_valid(IdKind::Vault, id)
            && store
                .get_vault(project, id)
                .await?
                .is_some_and(|v| v.status == ACTIVE);
        if !active {
            return Err(SessionError::NotFound);
        }
    }
    let has_http = tools
        .iter()
        .any(|t| matches!(t, Tool::Mcp(m) if matches!(m.transport, McpTransport::Http { .. })));
    if !has_http {
        return Ok(Vec::new());
    }
    // A Vault attached twice offers its credentials once.
    let mut unique: Vec<String> = Vec::with_capacity(vault_ids.len());
    for id in vault_ids {
        if !unique.contains(id) {
            unique.push(id.clone());
        }
    }
    let mut candidates: Vec<(CredentialRecord, CredentialDoc)> = Vec::new();
    for rec in store.credentials_of(project, &unique).await? {
        let doc: CredentialDoc = serde_json::from_str(&rec.doc)?;
        candidates.push((rec, doc));
    }
    let mut bound = Vec::new();
    for tool in tools.iter_mut() {
        let Tool::Mcp(server) = tool else { continue };
        let McpTransport::Http { server_url, .. } = &server.transport else {
            continue;
        };
        let chosen = match &server.credential_id {
            Some(id) => {
                if vault_ids.is_empty() {
                    return Err(SessionError::CredentialSelection(
                        error_messages::MCP_CREDENTIAL_NEEDS_VAULT.to_owned(),
                    ));
                }
                let found = candidates
                    .iter()
                    .find(|(rec, _)| &rec.id == id)
                    .ok_or_else(|| {
                        SessionError::CredentialSelection(
                            error_messages::mcp_credential_not_in_vault(id),
                        )
                    })?;
                if found.1.auth.mcp_server_url() != server_url {
                    return Err(SessionError::CredentialSelection(
                        error_messages::mcp_credential_url_mismatch(id, server_url),
                    ));
                }
                found
            }
            None => {
                let mut matches = candidates
                    .iter()
                    .filter(|(_, doc)| doc.auth.mcp_server_url() == server_url);
                let Some(first) = matches.next() else {
                    continue; // anonymous
                };
                if matches.next().is_some() {
                    return Err(SessionError::CredentialConflict(
                        error_messages::mcp_credential_ambiguous(server_url),
                    ));
                }
                first
            }
        };
        bound.push(BoundCredential {
            server_label: server.server_label.clone(),
            vault_id: chosen.0.vault_id.clone(),
            credential_id: chosen.0.id.clone(),
            kind: chosen.1.auth.type_name().to_owned(),
            mcp_server_url: chosen.1.auth.mcp_server_url().to_owned(),
        });
        server.credential_id = Some(chosen.0.id.clone());
    }
    Ok(bound)
}

/// An opened bearer token. Its `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Bearer(pub String);

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Bearer(<redacted>)")
    }
}

/// Why a frozen binding cannot give its bearer at dispatch. The work fails with this message;
/// it never runs anonymously instead.
#[derive(Debug, thiserror::Error)]
pub enum CredentialUnavailable {
    #[error(
        "The vault credential of MCP server {label} is unavailable: its vault was deleted or is no longer attached."
    )]
    Vault { label: String },
    #[error("The vault credential of MCP server {label} is unavailable: it was deleted.")]
    Credential { label: String },
    #[error(
        "The vault credential of MCP server {label} no longer matches it: its type or mcp_server_url changed."
    )]
    Changed { label: String },
    #[error(
        "The OAuth access token of MCP server {label} has expired and the credential cannot be refreshed."
    )]
    Expired { label: String },
    #[error("The OAuth access token of MCP server {label} has expired and refreshing it failed.")]
    Refresh { label: String },
    #[error("Credential storage is unavailable.")]
    Storage,
}

/// The bearer of one frozen binding, rechecked: the Vault still exists, is active and is among
/// the Session's `vault_ids` (and of the Session's Project: the store reads only that
/// Project's Vaults); the credential is still in it, active, of the same type and for the same URL.
/// `now` is Unix seconds. An `mcp_oauth` token whose `expires_at` has passed is refreshed once
/// (the new token is stored, sealed) when the credential has refresh, else not used. The token
/// endpoint's SSRF policy is the deployment's ([`crate::vaults::url_policy`]).
pub async fn resolve_bearer(
    store: &dyn Store,
    secrets: &SecretBox,
    project: &str,
    vault_ids: &[String],
    bound: &BoundCredential,
    now: i64,
) -> Result<Bearer, CredentialUnavailable> {
    resolve_bearer_with(
        store,
        secrets,
        project,
        vault_ids,
        bound,
        now,
        crate::vaults::url_policy(),
    )
    .await
}

/// [`resolve_bearer`] under an explicit token-endpoint policy.
pub async fn resolve_bearer_with(
    store: &dyn Store,
    secrets: &SecretBox,
    project: &str,
    vault_ids: &[String],
    bound: &BoundCredential,
    now: i64,
    policy: UrlPolicy,
) -> Result<Bearer, CredentialUnavailable> {
    let label = bound.server_label.clone();
    let vault = store
        .get_vault(project, &bound.vault_id)
        .await
        .map_err(|e| storage(&e))?;
    if !vault_ids.contains(&bound.vault_id) || vault.is_none_or(|v| v.status != ACTIVE) {
        return Err(CredentialUnavailable::Vault { label });
    }
    let mut rec = store
        .get_credential(project, &bound.vault_id, &bound.credential_id)
        .await
        .map_err(|e| storage(&e))?
        .filter(|c| c.status == ACTIVE)
        .ok_or(CredentialUnavailable::Credential {
            label: label.clone(),
        })?;
    let mut doc: CredentialDoc = serde_json::from_str(&rec.doc).map_err(|e| storage(&e))?;
    if doc.auth.type_name() != bound.kind || doc.auth.mcp_server_url() != bound.mcp_server_url {
        return Err(CredentialUnavailable::Changed { label });
    }
    let sealed = match &mut doc.auth {
        StoredAuth::StaticBearer { token, .. } => token.clone(),
        StoredAuth::McpOauth {
            access_token,
            expires_at,
            refresh,
            ..
        } => {
            let expired = expires_at
                .as_deref()
                .and_then(rfc3339_seconds)
                .is_some_and(|at| at <= now);
            if !expired {
                access_token.clone()
            } else {
                let Some(r) = refresh.as_mut() else {
                    return Err(CredentialUnavailable::Expired { label });
                };
                let fresh = refreshed(secrets, r, policy, &label).await?;
                *access_token = secrets.seal(&fresh.access_token).map_err(|e| storage(&e))?;
                *expires_at = fresh.expires_in.map(|s| rfc3339_from_seconds(now + s));
                if let Some(t) = fresh.refresh_token {
                    r.refresh_token = secrets.seal(&t).map_err(|e| storage(&e))?;
                }
                doc.updated_at = now.max(doc.updated_at);
                rec.doc = serde_json::to_string(&doc).map_err(|e| storage(&e))?;
                store.put_credential(&rec).await.map_err(|e| storage(&e))?;
                return Ok(Bearer(fresh.access_token));
            }
        }
    };
    secrets.open(&sealed).map(Bearer).map_err(|e| storage(&e))
}

/// One refresh of `r` (secrets opened here), no retry.
async fn refreshed(
    secrets: &SecretBox,
    r: &StoredRefresh,
    policy: UrlPolicy,
    label: &str,
) -> Result<Refreshed, CredentialUnavailable> {
    let client_secret = match &r.client_secret {
        Some(s) => Some(secrets.open(s).map_err(|e| storage(&e))?),
        None => None,
    };
    let request = RefreshRequest {
        token_endpoint: &r.token_endpoint,
        client_id: &r.client_id,
        method: EndpointAuth::parse(&r.token_endpoint_auth).unwrap_or(EndpointAuth::None),
        client_secret,
        refresh_token: secrets.open(&r.refresh_token).map_err(|e| storage(&e))?,
        resource: r.resource.as_deref(),
        scope: r.scope.as_deref(),
    };
    crate::oauth::refresh(request, policy).await.map_err(|e| {
        tracing::warn!(server_label = %label, error = %e, "OAuth refresh failed");
        CredentialUnavailable::Refresh {
            label: label.to_owned(),
        }
    })
}

fn storage(e: &dyn std::fmt::Display) -> CredentialUnavailable {
    tracing::error!(error = %e, "credential storage failure at dispatch");
    CredentialUnavailable::Storage
}

/// Every bearer of a Session's frozen bindings, by server label.
pub async fn resolve_bearers(
    store: &dyn Store,
    secrets: &SecretBox,
    project: &str,
    vault_ids: &[String],
    bound: &[BoundCredential],
    now: i64,
) -> Result<Vec<(String, Bearer)>, CredentialUnavailable> {
    let mut out = Vec::with_capacity(bound.len());
    for b in bound {
        let bearer = resolve_bearer(store, secrets, project, vault_ids, b, now).await?;
        out.push((b.server_label.clone(), bearer));
    }
    Ok(out)
}
