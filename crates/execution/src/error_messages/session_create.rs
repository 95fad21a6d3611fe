//! Session create's initial-input rules (core-contracts §2.3 step 1; param null, the spec's
//! sentences).

use super::{conflict, rule};
use crate::error::ValidationError;

/// Spec wording: an `environment: {"type": "none"}` Session without initial input.
pub const CONVERSATION_ONLY_REQUIRES_INPUT: &str =
    "conversation-only sessions currently require initial input";
/// Spec wording: `stream: true` without initial input, on any placement but `self_hosted`.
pub const STREAMING_REQUIRES_INPUT: &str = "streaming session creation requires initial input";
/// Ours (the wire spec gives the rule, "allowed only with stream:true", not the text).
pub const STREAM_OPTIONS_REQUIRE_STREAM: &str =
    "The 'stream_options' parameter is only allowed when 'stream' is true.";

pub fn conversation_only_requires_input() -> ValidationError {
    conflict(CONVERSATION_ONLY_REQUIRES_INPUT.to_string())
}

pub fn streaming_requires_input() -> ValidationError {
    conflict(STREAMING_REQUIRES_INPUT.to_string())
}

/// `stream_options` sent without `stream: true`; param is the `stream_options` path.
pub fn stream_options_require_stream(path: &str) -> ValidationError {
    rule(path, STREAM_OPTIONS_REQUIRE_STREAM)
}
