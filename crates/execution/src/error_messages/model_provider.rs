//! `x_agents_core.model_provider` (core-contracts §7.3 gives the rules, not the text: ours).

use switchboard_wire::ErrorCode;

use super::rule;
use crate::error::ValidationError;

pub const PROVIDER_BASE_URL: &str = "model_provider.base_url must be an absolute HTTPS URL, or HTTP on a loopback host (127.0.0.0/8, ::1 or localhost), without credentials, query or fragment.";
pub const PROVIDER_API_KEY_CHARACTERS: &str =
    "model_provider.api_key cannot contain NUL, CR or LF characters.";

/// The key limit counts bytes (16 KiB), unlike the character limits of the official forms.
pub fn provider_api_key_too_long(path: &str, max: usize, len: usize) -> ValidationError {
    rule(
        path,
        &format!(
            "Invalid '{path}': string too long. Expected a string of at most {max} bytes, but got a string of {len} bytes instead."
        ),
    )
    .with_code(ErrorCode::InvalidValue)
}

pub fn provider_tokens_exceed_window(
    path: &str,
    context_window: u64,
    max_output_tokens: u64,
) -> ValidationError {
    rule(
        path,
        &format!(
            "Invalid '{path}': max_output_tokens exceeds context_window. Expected a value <= {context_window}, but got {max_output_tokens} instead."
        ),
    )
    .with_code(ErrorCode::InvalidValue)
}
