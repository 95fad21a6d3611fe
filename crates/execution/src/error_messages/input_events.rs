//! Input events (core-contracts §3.1: "generic 400", so the generic code; our wording).

use super::{at, empty_string};
use crate::error::{GENERIC_CODE, ValidationError};

/// An empty `turn_id`: the official empty-string sentence under the generic code.
pub fn empty_turn_id(path: &str) -> ValidationError {
    empty_string(path).with_code(GENERIC_CODE)
}

/// A `call_id` that is empty or only whitespace.
pub fn blank_call_id(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': blank string. Expected a call ID with at least one non-whitespace character."
            )
        },
        || {
            "Invalid value: blank string. Expected a call ID with at least one non-whitespace character.".to_string()
        },
    )
}
