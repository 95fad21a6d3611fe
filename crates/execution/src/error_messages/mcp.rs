//! MCP declarations (core-contracts §5.1; the spec's sentences where it has one).

use switchboard_wire::ErrorCode;

use super::{echoable, rule};
use crate::error::ValidationError;

/// Spec/stored wording.
pub const MCP_SERVER_LABEL: &str = "MCP tools require type=mcp and a nonempty server_label.";
/// The stored sentence without "query": the spec allows queries in `server_url`.
pub const MCP_SERVER_URL: &str =
    "MCP server_url must be an absolute HTTP(S) URL without credentials or fragment.";
/// Spec wording.
pub const MCP_REQUEST_METADATA: &str = "Nonempty MCP request_metadata is not supported yet.";
/// Spec wording.
pub const MCP_INLINE_AUTHORIZATION: &str =
    "Inline MCP authorization is not supported; use credential_id.";
/// Spec wording.
pub const MCP_INLINE_ENV: &str =
    "Inline MCP env is not supported; declare env_vars and set the values in the Environment.";
/// Stored wording.
pub const MCP_CREDENTIAL_ID: &str = "MCP credential_id must be null or a nonempty string.";
/// Stored wording.
pub const MCP_ALLOWED_TOOL_NAME: &str = "MCP allowed_tools requires nonempty string names.";
/// Ours: the spec gives the rule (credentials enter only through a Vault credential), not the text.
pub const MCP_AUTHORIZATION_HEADER: &str = "MCP headers cannot include Authorization; credentials enter only through a Vault credential (credential_id).";
/// Ours.
pub const MCP_STDIO_ORIGIN: &str =
    "MCP stdio servers run in the Environment; connection_origin must be environment.";
/// Ours.
pub const MCP_STDIO_CREDENTIAL: &str = "MCP stdio servers take no credential_id.";
/// Ours.
pub const MCP_STDIO_CWD: &str = "MCP stdio cwd must be an absolute path.";
/// Ours.
pub const MCP_STDIO_NUL: &str =
    "MCP stdio command, args, cwd and env_vars cannot contain NUL characters.";

/// Ours: a header name that is not an HTTP token.
pub fn mcp_header_name(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!("Invalid MCP header name '{name}': header names must be HTTP tokens.")
    } else {
        "Invalid MCP header name: header names must be HTTP tokens.".to_string()
    };
    rule(path, &message)
}

/// Ours: a header value with characters HTTP clients would reject or rewrite.
pub fn mcp_header_value(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!(
            "Invalid value for MCP header '{name}': use visible ASCII characters, with spaces or tabs only between them."
        )
    } else {
        "Invalid MCP header value: use visible ASCII characters, with spaces or tabs only between them.".to_string()
    };
    rule(path, &message).with_code(ErrorCode::InvalidValue)
}

/// Ours: two header names equal ignoring ASCII case.
pub fn mcp_duplicate_header(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!("Duplicate MCP header '{name}': header names must be unique ignoring case.")
    } else {
        "Duplicate MCP header: header names must be unique ignoring case.".to_string()
    };
    rule(path, &message)
}

/// Ours: an `env_vars` entry that is not a variable name.
pub fn mcp_env_var_name(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!(
            "Invalid MCP env_vars entry '{name}': expected a variable name of letters, digits and underscores that does not start with a digit."
        )
    } else {
        "Invalid MCP env_vars entry: expected a variable name of letters, digits and underscores that does not start with a digit."
            .to_string()
    };
    rule(path, &message)
}
