//! Vaults and their credentials: the stored documents, sealing, rotation and the public objects.
//!
//! A credential's secrets (`token`, `access_token`, `refresh_token`, `client_secret`) are
//! sealed with the deployment's data key before they reach the store ([`crate::secrets`]), are
//! never returned, and are opened only into a dispatch's bearer
//! (`session::credentials::resolve_bearer`). Public objects carry the non-secret fields only.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use switchboard_execution::ValidationError;
use switchboard_execution::error_messages;
use switchboard_execution::vault::{
    AuthCreate, AuthRotate, MCP_OAUTH, RefreshCreate, STATIC_BEARER, UrlPolicy,
};
use switchboard_store::{CredentialRecord, VaultRecord};

use crate::secrets::{SecretBox, SecretError};

pub const ACTIVE: &str = "active";
pub const STATUSES: &[&str] = &["active", "archived"];

/// The deployment flag that lets credentials name HTTP MCP servers and token endpoints on
/// loopback hosts (local test servers): `SWITCHBOARD_ALLOW_LOOPBACK_CREDENTIALS=1`.
pub const ALLOW_LOOPBACK_ENV: &str = "SWITCHBOARD_ALLOW_LOOPBACK_CREDENTIALS";

pub fn url_policy() -> UrlPolicy {
    UrlPolicy {
        allow_loopback_http: std::env::var(ALLOW_LOOPBACK_ENV)
            .is_ok_and(|v| matches!(v.as_str(), "1" | "true")),
    }
}

/// A Vault's document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VaultDoc {
    pub name: Option<String>,
}

/// A credential's document: public fields and sealed secrets.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CredentialDoc {
    pub name: String,
    pub updated_at: i64,
    pub auth: StoredAuth,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StoredAuth {
    StaticBearer {
        mcp_server_url: String,
        /// Sealed.
        token: String,
    },
    McpOauth {
        mcp_server_url: String,
        expires_at: Option<String>,
        /// Sealed.
        access_token: String,
        refresh: Option<StoredRefresh>,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredRefresh {
    pub client_id: String,
    pub token_endpoint: String,
    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub token_endpoint_auth: String,
    /// Sealed; present for the `client_secret_*` methods.
    pub client_secret: Option<String>,
    /// Sealed.
    pub refresh_token: String,
    pub resource: Option<String>,
    pub scope: Option<String>,
}

impl StoredAuth {
    pub fn type_name(&self) -> &'static str {
        match self {
            StoredAuth::StaticBearer { .. } => STATIC_BEARER,
            StoredAuth::McpOauth { .. } => MCP_OAUTH,
        }
    }

    pub fn mcp_server_url(&self) -> &str {
        match self {
            StoredAuth::StaticBearer { mcp_server_url, .. }
            | StoredAuth::McpOauth { mcp_server_url, .. } => mcp_server_url,
        }
    }

    /// The public `auth`: no secret.
    pub fn public(&self) -> Value {
        match self {
            StoredAuth::StaticBearer { mcp_server_url, .. } => {
                json!({ "type": STATIC_BEARER, "mcp_server_url": mcp_server_url })
            }
            StoredAuth::McpOauth {
                mcp_server_url,
                expires_at,
                refresh,
                ..
            } => json!({
                "type": MCP_OAUTH,
                "mcp_server_url": mcp_server_url,
                "expires_at": expires_at,
                "refresh": refresh.as_ref().map(|r| json!({
                    "client_id": r.client_id,
                    "token_endpoint": r.token_endpoint,
                    "token_endpoint_auth": { "type": r.token_endpoint_auth },
                    "resource": r.resource,
                    "scope": r.scope,
                })),
            }),
        }
    }
}

/// Seals a created credential's secrets.
pub fn seal_auth(secrets: &SecretBox, auth: AuthCreate) -> Result<StoredAuth, SecretError> {
    Ok(match auth {
        AuthCreate::StaticBearer {
            mcp_server_url,
            token,
        } => StoredAuth::StaticBearer {
            mcp_server_url,
            token: secrets.seal(&token)?,
        },
        AuthCreate::McpOauth {
            mcp_server_url,
            access_token,
            expires_at,
            refresh,
        } => StoredAuth::McpOauth {
            mcp_server_url,
            expires_at,
            access_token: secrets.seal(&access_token)?,
            refresh: refresh.map(|r| seal_refresh(secrets, r)).transpose()?,
        },
    })
}

fn seal_refresh(secrets: &SecretBox, r: RefreshCreate) -> Result<StoredRefresh, SecretError> {
    Ok(StoredRefresh {
        client_id: r.client_id,
        token_endpoint: r.token_endpoint,
        token_endpoint_auth: r.token_endpoint_auth.as_str().to_owned(),
        client_secret: r.client_secret.map(|s| secrets.seal(&s)).transpose()?,
        refresh_token: secrets.seal(&r.refresh_token)?,
        resource: r.resource,
        scope: r.scope,
    })
}

/// Why a rotation cannot apply: the body does not fit the stored credential, or sealing failed.
#[derive(Debug, thiserror::Error)]
pub enum RotateError {
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    #[error(transparent)]
    Secret(#[from] SecretError),
}

/// Applies a rotation to `auth` (of the same type), sealing what it brings. A new access token
/// without an `expires_at` clears the expiry (the SDK's documented rule).
pub fn rotate(
    secrets: &SecretBox,
    auth: &mut StoredAuth,
    rotation: AuthRotate,
) -> Result<(), RotateError> {
    if rotation.type_name() != auth.type_name() {
        return Err(error_messages::credential_type_change("auth.type", auth.type_name()).into());
    }
    match (auth, rotation) {
        (StoredAuth::StaticBearer { token, .. }, AuthRotate::StaticBearer { token: new }) => {
            *token = secrets.seal(&new)?;
        }
        (
            StoredAuth::McpOauth {
                expires_at,
                access_token,
                refresh,
                ..
            },
            AuthRotate::McpOauth {
                access_token: new_access,
                expires_at: new_expiry,
                refresh: new_refresh,
            },
        ) => {
            if let Some(r) = new_refresh {
                let stored = refresh.as_mut().ok_or_else(|| {
                    error_messages::rule("auth.refresh", error_messages::CREDENTIAL_NO_REFRESH)
                })?;
                if let Some(a) = &r.token_endpoint_auth
                    && a.method.as_str() != stored.token_endpoint_auth
                {
                    return Err(error_messages::credential_endpoint_auth_change(
                        "auth.refresh.token_endpoint_auth.type",
                        &stored.token_endpoint_auth,
                    )
                    .into());
                }
                if let Some(t) = r.refresh_token {
                    stored.refresh_token = secrets.seal(&t)?;
                }
                if let Some(scope) = r.scope {
                    stored.scope = scope;
                }
                if let Some(secret) = r.token_endpoint_auth.and_then(|a| a.client_secret) {
                    stored.client_secret = Some(secrets.seal(&secret)?);
                }
            }
            match (new_access, new_expiry) {
                (Some(t), expiry) => {
                    *access_token = secrets.seal(&t)?;
                    *expires_at = expiry.flatten();
                }
                (None, Some(expiry)) => *expires_at = expiry,
                (None, None) => {}
            }
        }
        _ => {}
    }
    Ok(())
}

fn metadata_of(text: &str) -> Value {
    serde_json::from_str::<Map<String, Value>>(text)
        .map(Value::Object)
        .unwrap_or_else(|_| json!({}))
}

/// The public Vault object.
pub fn vault_object(rec: &VaultRecord, doc: &VaultDoc) -> Value {
    json!({
        "id": rec.id,
        "object": "vault",
        "name": doc.name,
        "metadata": metadata_of(&rec.metadata),
        "created_at": rec.created_at,
    })
}

/// The public credential object: metadata and the non-secret `auth` only.
pub fn credential_object(rec: &CredentialRecord, doc: &CredentialDoc) -> Value {
    json!({
        "id": rec.id,
        "object": "vault.credential",
        "vault_id": rec.vault_id,
        "name": doc.name,
        "metadata": metadata_of(&rec.metadata),
        "created_at": rec.created_at,
        "updated_at": doc.updated_at,
        "auth": doc.auth.public(),
    })
}
