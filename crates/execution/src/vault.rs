//! Vault and credential request bodies (agents-api-wire §12, the pinned SDK's params).
//!
//! A Vault has an optional `name` (trimmed, 1–256 bytes) and `metadata`. A credential has a
//! `name`, `metadata` and an `auth` union: `static_bearer{mcp_server_url, token}` or
//! `mcp_oauth{mcp_server_url, access_token, expires_at?, refresh?}`; `environment_variable` is
//! refused (it serves `openai_hosted` environments only). Secrets are write-only: the parser
//! returns them for sealing and no message repeats one. `mcp_server_url` and `token_endpoint`
//! are HTTPS URLs; HTTP on a loopback host only when the deployment allows it
//! ([`UrlPolicy`]). An update rotates the secrets of the credential's own type.

use serde_json::{Map, Value};

use crate::error::ValidationError;
use crate::error_messages::{self, kind, rule};
use crate::metadata::parse_metadata;
use crate::object_reader::ObjectReader;
use crate::scalar;

pub use crate::rfc3339::{rfc3339_from_seconds, rfc3339_seconds};

/// The longest secret accepted (as for a model provider key).
pub const MAX_SECRET_BYTES: usize = 16 * 1024;
const MAX_NAME_BYTES: usize = 256;

/// Which URLs a credential may name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Accept `http://` on a loopback host (local test servers), a deployment flag.
    pub allow_loopback_http: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VaultCreate {
    pub name: Option<String>,
    pub metadata: Map<String, Value>,
}

/// Omitted members stay; `name: Some(None)` clears the name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VaultUpdate {
    pub name: Option<Option<String>>,
    pub metadata: Option<Map<String, Value>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointAuth {
    None,
    ClientSecretBasic,
    ClientSecretPost,
}

impl EndpointAuth {
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointAuth::None => "none",
            EndpointAuth::ClientSecretBasic => "client_secret_basic",
            EndpointAuth::ClientSecretPost => "client_secret_post",
        }
    }

    pub fn parse(s: &str) -> Option<EndpointAuth> {
        match s {
            "none" => Some(EndpointAuth::None),
            "client_secret_basic" => Some(EndpointAuth::ClientSecretBasic),
            "client_secret_post" => Some(EndpointAuth::ClientSecretPost),
            _ => None,
        }
    }
}

#[derive(Clone, PartialEq)]
pub struct RefreshCreate {
    pub client_id: String,
    pub refresh_token: String,
    pub token_endpoint: String,
    pub token_endpoint_auth: EndpointAuth,
    /// Present exactly for the two `client_secret_*` methods.
    pub client_secret: Option<String>,
    pub resource: Option<String>,
    pub scope: Option<String>,
}

#[derive(Clone, PartialEq)]
pub enum AuthCreate {
    StaticBearer {
        mcp_server_url: String,
        token: String,
    },
    McpOauth {
        mcp_server_url: String,
        access_token: String,
        /// RFC 3339, as sent.
        expires_at: Option<String>,
        refresh: Option<RefreshCreate>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct CredentialCreate {
    pub name: String,
    pub metadata: Map<String, Value>,
    pub auth: AuthCreate,
}

/// `token_endpoint_auth` of a rotation: the method (which must stay) and an optional new secret.
#[derive(Clone, PartialEq)]
pub struct EndpointRotate {
    pub method: EndpointAuth,
    pub client_secret: Option<String>,
}

#[derive(Clone, PartialEq, Default)]
pub struct RefreshRotate {
    pub refresh_token: Option<String>,
    /// Omitted keeps the scope; `Some(None)` stops sending one.
    pub scope: Option<Option<String>>,
    pub token_endpoint_auth: Option<EndpointRotate>,
}

#[derive(Clone, PartialEq)]
pub enum AuthRotate {
    StaticBearer {
        token: String,
    },
    McpOauth {
        access_token: Option<String>,
        /// Omitted keeps the expiry (cleared when a new access token comes); `Some(None)` clears it.
        expires_at: Option<Option<String>>,
        refresh: Option<RefreshRotate>,
    },
}

impl AuthRotate {
    pub fn type_name(&self) -> &'static str {
        match self {
            AuthRotate::StaticBearer { .. } => STATIC_BEARER,
            AuthRotate::McpOauth { .. } => MCP_OAUTH,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct CredentialUpdate {
    pub auth: Option<AuthRotate>,
    pub metadata: Option<Map<String, Value>>,
}

/// Secrets never print: only the type and the URL.
impl std::fmt::Debug for AuthCreate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (kind, url) = match self {
            AuthCreate::StaticBearer { mcp_server_url, .. } => (STATIC_BEARER, mcp_server_url),
            AuthCreate::McpOauth { mcp_server_url, .. } => (MCP_OAUTH, mcp_server_url),
        };
        write!(f, "AuthCreate({kind}, {url}, <secrets redacted>)")
    }
}

impl std::fmt::Debug for AuthRotate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AuthRotate({}, <secrets redacted>)", self.type_name())
    }
}

pub const STATIC_BEARER: &str = "static_bearer";
pub const MCP_OAUTH: &str = "mcp_oauth";
const ENVIRONMENT_VARIABLE: &str = "environment_variable";
const AUTH_TYPES: &[&str] = &[MCP_OAUTH, STATIC_BEARER, ENVIRONMENT_VARIABLE];

pub fn parse_vault_create(body: &Map<String, Value>) -> Result<VaultCreate, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let mut out = VaultCreate {
        name: None,
        metadata: Map::new(),
    };
    obj.read(&["metadata", "name"], |key, value, path| {
        match key {
            "metadata" => out.metadata = parse_metadata(value, path)?,
            "name" => out.name = Some(name(scalar::string(value, path)?, path)?),
            _ => {}
        }
        Ok(())
    })?;
    Ok(out)
}

pub fn parse_vault_update(body: &Map<String, Value>) -> Result<VaultUpdate, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let mut out = VaultUpdate::default();
    obj.read(&["metadata", "name"], |key, value, path| {
        match key {
            "metadata" => out.metadata = Some(parse_metadata(value, path)?),
            "name" => {
                out.name = Some(match scalar::nullable_string(value, path)? {
                    Some(text) => Some(name(text, path)?),
                    None => None,
                })
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(out)
}

pub fn parse_credential_create(
    body: &Map<String, Value>,
    policy: UrlPolicy,
) -> Result<CredentialCreate, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let (mut cred_name, mut metadata, mut auth) = (None, Map::new(), None);
    obj.read(&["auth", "metadata", "name"], |key, value, path| {
        match key {
            "auth" => auth = Some(auth_create(value, path, policy)?),
            "metadata" => metadata = parse_metadata(value, path)?,
            "name" => cred_name = Some(name(scalar::string(value, path)?, path)?),
            _ => {}
        }
        Ok(())
    })?;
    let auth = obj.required(auth, "auth")?;
    let name = obj.required(cred_name, "name")?;
    Ok(CredentialCreate {
        name,
        metadata,
        auth,
    })
}

pub fn parse_credential_update(
    body: &Map<String, Value>,
) -> Result<CredentialUpdate, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let mut out = CredentialUpdate::default();
    obj.read(&["auth", "metadata"], |key, value, path| {
        match key {
            "auth" => out.auth = Some(auth_rotate(value, path)?),
            "metadata" => out.metadata = Some(parse_metadata(value, path)?),
            _ => {}
        }
        Ok(())
    })?;
    Ok(out)
}

/// Trimmed, 1–256 UTF-8 bytes.
fn name(text: &str, path: &str) -> Result<String, ValidationError> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.len() > MAX_NAME_BYTES {
        return Err(error_messages::vault_name(path));
    }
    Ok(trimmed.to_string())
}

fn auth_create(
    value: &Value,
    path: &str,
    policy: UrlPolicy,
) -> Result<AuthCreate, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    match obj.tag(AUTH_TYPES)? {
        STATIC_BEARER => {
            let (mut url, mut token) = (None, None);
            obj.read(&["type", "mcp_server_url", "token"], |key, value, path| {
                match key {
                    "mcp_server_url" => url = Some(server_url(value, path, policy)?),
                    "token" => token = Some(b64token(value, path, "static_bearer token")?),
                    _ => {}
                }
                Ok(())
            })?;
            let mcp_server_url = obj.required(url, "mcp_server_url")?;
            let token = obj.required(token, "token")?;
            Ok(AuthCreate::StaticBearer {
                mcp_server_url,
                token,
            })
        }
        MCP_OAUTH => {
            let (mut url, mut access, mut expires_at, mut refresh) = (None, None, None, None);
            obj.read(
                &[
                    "type",
                    "access_token",
                    "mcp_server_url",
                    "expires_at",
                    "refresh",
                ],
                |key, value, path| {
                    match key {
                        "access_token" => {
                            access = Some(b64token(value, path, "mcp_oauth access_token")?)
                        }
                        "mcp_server_url" => url = Some(server_url(value, path, policy)?),
                        "expires_at" => expires_at = timestamp(value, path)?,
                        "refresh" if !value.is_null() => {
                            refresh = Some(refresh_create(value, path, policy)?)
                        }
                        _ => {}
                    }
                    Ok(())
                },
            )?;
            let access_token = obj.required(access, "access_token")?;
            let mcp_server_url = obj.required(url, "mcp_server_url")?;
            Ok(AuthCreate::McpOauth {
                mcp_server_url,
                access_token,
                expires_at,
                refresh,
            })
        }
        _ => Err(rule(
            &obj.member("type"),
            error_messages::CREDENTIAL_ENVIRONMENT_VARIABLE,
        )),
    }
}

fn refresh_create(
    value: &Value,
    path: &str,
    policy: UrlPolicy,
) -> Result<RefreshCreate, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let (mut client_id, mut refresh_token, mut endpoint, mut auth) = (None, None, None, None);
    let (mut resource, mut scope) = (None, None);
    obj.read(
        &[
            "client_id",
            "refresh_token",
            "token_endpoint",
            "token_endpoint_auth",
            "resource",
            "scope",
        ],
        |key, value, path| {
            match key {
                "client_id" => client_id = Some(scalar::nonempty_string(value, path)?.to_string()),
                "refresh_token" => refresh_token = Some(secret(value, path)?),
                "token_endpoint" => endpoint = Some(token_endpoint(value, path, policy)?),
                "token_endpoint_auth" => auth = Some(endpoint_auth_create(value, path)?),
                "resource" => resource = scalar::nullable_string(value, path)?.map(str::to_string),
                "scope" => scope = scalar::nullable_string(value, path)?.map(str::to_string),
                _ => {}
            }
            Ok(())
        },
    )?;
    let client_id = obj.required(client_id, "client_id")?;
    let refresh_token = obj.required(refresh_token, "refresh_token")?;
    let token_endpoint = obj.required(endpoint, "token_endpoint")?;
    let (token_endpoint_auth, client_secret) = obj.required(auth, "token_endpoint_auth")?;
    Ok(RefreshCreate {
        client_id,
        refresh_token,
        token_endpoint,
        token_endpoint_auth,
        client_secret,
        resource,
        scope,
    })
}

fn endpoint_auth_create(
    value: &Value,
    path: &str,
) -> Result<(EndpointAuth, Option<String>), ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let method = obj.tag(&["none", "client_secret_basic", "client_secret_post"])?;
    let method = EndpointAuth::parse(method).unwrap_or(EndpointAuth::None);
    if method == EndpointAuth::None {
        obj.read_tag_only()?;
        return Ok((method, None));
    }
    let mut client_secret = None;
    obj.read(&["type", "client_secret"], |key, value, path| {
        if key == "client_secret" {
            client_secret = Some(secret(value, path)?);
        }
        Ok(())
    })?;
    Ok((method, Some(obj.required(client_secret, "client_secret")?)))
}

fn auth_rotate(value: &Value, path: &str) -> Result<AuthRotate, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    match obj.tag(AUTH_TYPES)? {
        STATIC_BEARER => {
            let mut token = None;
            obj.read(&["type", "token"], |key, value, path| {
                if key == "token" {
                    token = Some(b64token(value, path, "static_bearer token")?);
                }
                Ok(())
            })?;
            Ok(AuthRotate::StaticBearer {
                token: obj.required(token, "token")?,
            })
        }
        MCP_OAUTH => {
            let (mut access_token, mut expires_at, mut refresh) = (None, None, None);
            obj.read(
                &["type", "access_token", "expires_at", "refresh"],
                |key, value, path| {
                    match key {
                        "access_token" if !value.is_null() => {
                            access_token = Some(b64token(value, path, "mcp_oauth access_token")?)
                        }
                        "expires_at" => expires_at = Some(timestamp(value, path)?),
                        "refresh" if !value.is_null() => {
                            refresh = Some(refresh_rotate(value, path)?)
                        }
                        _ => {}
                    }
                    Ok(())
                },
            )?;
            Ok(AuthRotate::McpOauth {
                access_token,
                expires_at,
                refresh,
            })
        }
        _ => Err(rule(
            &obj.member("type"),
            error_messages::CREDENTIAL_ENVIRONMENT_VARIABLE,
        )),
    }
}

fn refresh_rotate(value: &Value, path: &str) -> Result<RefreshRotate, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let mut out = RefreshRotate::default();
    obj.read(
        &["refresh_token", "scope", "token_endpoint_auth"],
        |key, value, path| {
            match key {
                "refresh_token" if !value.is_null() => {
                    out.refresh_token = Some(secret(value, path)?)
                }
                "scope" => {
                    out.scope = Some(scalar::nullable_string(value, path)?.map(str::to_string))
                }
                "token_endpoint_auth" if !value.is_null() => {
                    let auth = ObjectReader::new(value, path, kind::OBJECT)?;
                    let method = auth.tag(&["client_secret_basic", "client_secret_post"])?;
                    let mut client_secret = None;
                    auth.read(&["type", "client_secret"], |key, value, path| {
                        if key == "client_secret" && !value.is_null() {
                            client_secret = Some(secret(value, path)?);
                        }
                        Ok(())
                    })?;
                    out.token_endpoint_auth = Some(EndpointRotate {
                        method: EndpointAuth::parse(method).unwrap_or(EndpointAuth::None),
                        client_secret,
                    });
                }
                _ => {}
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// A write-only secret: nonempty, at most 16 KiB, no CR, LF or NUL.
fn secret(value: &Value, path: &str) -> Result<String, ValidationError> {
    let text = scalar::nonempty_string(value, path)?;
    if text.len() > MAX_SECRET_BYTES {
        return Err(error_messages::credential_secret_too_long(
            path,
            MAX_SECRET_BYTES,
            text.len(),
        ));
    }
    if text.contains(['\0', '\r', '\n']) {
        return Err(rule(path, error_messages::CREDENTIAL_SECRET_CHARACTERS));
    }
    Ok(text.to_string())
}

/// A secret that is sent as `Authorization: Bearer <token>`: an RFC 6750 `b64token`.
fn b64token(value: &Value, path: &str, field: &str) -> Result<String, ValidationError> {
    let text = secret(value, path)?;
    if !is_b64token(&text) {
        return Err(error_messages::credential_b64token(path, field));
    }
    Ok(text)
}

/// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="` (RFC 6750 §2.1).
pub fn is_b64token(text: &str) -> bool {
    let body = text.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

fn server_url(value: &Value, path: &str, policy: UrlPolicy) -> Result<String, ValidationError> {
    let text = scalar::string(value, path)?;
    if !https_url(text, policy) {
        return Err(rule(path, error_messages::CREDENTIAL_MCP_SERVER_URL));
    }
    Ok(text.to_string())
}

fn token_endpoint(value: &Value, path: &str, policy: UrlPolicy) -> Result<String, ValidationError> {
    let text = scalar::string(value, path)?;
    if !https_url(text, policy) {
        return Err(rule(path, error_messages::CREDENTIAL_TOKEN_ENDPOINT));
    }
    Ok(text.to_string())
}

/// An absolute HTTPS URL without credentials or fragment; HTTP too on a loopback host when the
/// policy allows it. The text is kept as sent: selection compares it with `server_url` exactly.
pub fn https_url(text: &str, policy: UrlPolicy) -> bool {
    let Some(url) = crate::http_url::absolute_http_url(text) else {
        return false;
    };
    if url.fragment().is_some() || text.contains('#') {
        return false;
    }
    match url.scheme() {
        "https" => true,
        _ => policy.allow_loopback_http && is_loopback(&url),
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn timestamp(value: &Value, path: &str) -> Result<Option<String>, ValidationError> {
    match scalar::nullable_string(value, path)? {
        None => Ok(None),
        Some(text) if rfc3339_seconds(text).is_some() => Ok(Some(text.to_string())),
        Some(_) => Err(error_messages::credential_expires_at(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn b64token_is_rfc6750() {
        assert!(is_b64token("abc-._~+/XYZ09=="));
        for bad in ["", "==", "a b", "a=b", "tök", "a,b"] {
            assert!(!is_b64token(bad), "{bad}");
        }
    }

    #[test]
    fn urls_are_https_unless_the_deployment_allows_loopback_http() {
        let strict = UrlPolicy::default();
        let loopback = UrlPolicy {
            allow_loopback_http: true,
        };
        assert!(https_url("https://mcp.example.com/mcp?x=1", strict));
        assert!(!https_url("https://mcp.example.com/mcp#f", strict));
        assert!(!https_url("http://127.0.0.1:9/mcp", strict));
        assert!(https_url("http://127.0.0.1:9/mcp", loopback));
        assert!(https_url("http://localhost:9/mcp", loopback));
        assert!(!https_url("http://10.0.0.1/mcp", loopback));
    }

    #[test]
    fn credential_bodies_parse_and_refuse_what_they_cannot_store() {
        let ok = parse_credential_create(
            &body(json!({"name": "  gh  ", "auth": {"type": "static_bearer",
                "mcp_server_url": "https://mcp.example.com/mcp", "token": "tok_1"}})),
            UrlPolicy::default(),
        )
        .unwrap();
        assert_eq!(ok.name, "gh");
        assert!(!format!("{ok:?}").contains("tok_1"));
        let err = parse_credential_create(
            &body(json!({"name": "gh", "auth": {"type": "static_bearer",
                "mcp_server_url": "https://mcp.example.com/mcp", "token": "has space"}})),
            UrlPolicy::default(),
        )
        .unwrap_err();
        assert_eq!(err.param.as_deref(), Some("auth.token"));
        assert!(!err.message.contains("has space"));
        let env = parse_credential_create(
            &body(json!({"name": "e", "auth": {"type": "environment_variable"}})),
            UrlPolicy::default(),
        )
        .unwrap_err();
        assert_eq!(env.param.as_deref(), Some("auth.type"));
        assert_eq!(env.message, error_messages::CREDENTIAL_ENVIRONMENT_VARIABLE);
    }
}
