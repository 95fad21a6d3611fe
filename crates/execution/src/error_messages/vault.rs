//! Vault and credential bodies (agents-api-wire §12). The spec gives the rules, not the texts:
//! these are ours, in the same plain style. None of them repeats a secret.

use switchboard_wire::ErrorCode;

use super::rule;
use crate::error::ValidationError;

/// Ours: the SDK documents the rule ("1 to 256 UTF-8 bytes after trimming").
pub fn vault_name(path: &str) -> ValidationError {
    rule(
        path,
        &format!("Invalid '{path}': a name must contain 1 to 256 UTF-8 bytes after trimming."),
    )
    .with_code(ErrorCode::InvalidValue)
}

/// Ours. HTTP on a loopback host is accepted only when the deployment allows it.
pub const CREDENTIAL_MCP_SERVER_URL: &str = "Vault credential mcp_server_url must be an absolute HTTPS URL without credentials or fragment.";

/// Ours.
pub const CREDENTIAL_TOKEN_ENDPOINT: &str = "Vault credential token_endpoint must be an absolute HTTPS URL without credentials or fragment.";

/// Ours: RFC 6750 §2.1 `b64token`, which is what an `Authorization: Bearer` value may hold.
pub fn credential_b64token(path: &str, field: &str) -> ValidationError {
    rule(
        path,
        &format!(
            "The {field} must be an RFC 6750 b64token: ASCII letters, digits, '-', '.', '_', '~', '+' or '/', optionally followed by '=' padding."
        ),
    )
    .with_code(ErrorCode::InvalidValue)
}

/// Ours.
pub fn credential_secret_too_long(path: &str, max: usize, len: usize) -> ValidationError {
    rule(
        path,
        &format!(
            "Invalid '{path}': string too long. Expected a secret of at most {max} bytes, but got {len} bytes instead."
        ),
    )
    .with_code(ErrorCode::InvalidValue)
}

/// Ours.
pub const CREDENTIAL_SECRET_CHARACTERS: &str =
    "Vault credential secrets must not contain carriage returns, newlines or NUL bytes.";

/// Ours.
pub fn credential_expires_at(path: &str) -> ValidationError {
    rule(
        path,
        &format!("Invalid '{path}': expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z."),
    )
    .with_code(ErrorCode::InvalidValue)
}

/// Ours: this service has no `openai_hosted` environments, the only place such a credential is used.
pub const CREDENTIAL_ENVIRONMENT_VARIABLE: &str = "Vault credentials of type environment_variable are used only by openai_hosted environments, which this service does not provide; use static_bearer or mcp_oauth.";

/// Ours: an update rotates the secrets of the credential's own type.
pub fn credential_type_change(path: &str, current: &str) -> ValidationError {
    rule(
        path,
        &format!("A credential's type cannot change: auth.type must be {current}."),
    )
    .with_code(ErrorCode::InvalidValue)
}

/// Ours: a rotation cannot add refresh to a credential created without it.
pub const CREDENTIAL_NO_REFRESH: &str =
    "This credential has no refresh configuration to update; create a new credential with refresh.";

/// Ours: the token endpoint's authentication method is fixed at create.
pub fn credential_endpoint_auth_change(path: &str, current: &str) -> ValidationError {
    rule(
        path,
        &format!("A credential's token endpoint authentication cannot change: token_endpoint_auth.type must be {current}."),
    )
    .with_code(ErrorCode::InvalidValue)
}

/// Spec wording (core-contracts §5.4): an explicit `credential_id` and no `vault_ids`.
pub const MCP_CREDENTIAL_NEEDS_VAULT: &str = "MCP credential_id requires an attached vault";

/// Spec wording. A caller value that cannot be echoed is left out.
pub fn mcp_credential_not_in_vault(id: &str) -> String {
    if super::echoable(id) {
        format!("MCP credential_id {id} was not found in an attached vault")
    } else {
        "MCP credential_id was not found in an attached vault".to_string()
    }
}

/// Spec wording.
pub fn mcp_credential_url_mismatch(id: &str, url: &str) -> String {
    match (super::echoable(id), super::echoable(url)) {
        (true, true) => format!("MCP credential_id {id} does not match server_url {url}"),
        _ => "MCP credential_id does not match server_url".to_string(),
    }
}

/// Spec wording (409 `conflict_error`).
pub fn mcp_credential_ambiguous(url: &str) -> String {
    if super::echoable(url) {
        format!(
            "multiple attached vault credentials match MCP server_url {url}; specify credential_id"
        )
    } else {
        "multiple attached vault credentials match MCP server_url; specify credential_id"
            .to_string()
    }
}
