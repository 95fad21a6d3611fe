//! Local rules with our own wording, in the official style.

use switchboard_wire::ErrorCode;

use super::at;
use crate::error::ValidationError;

/// A function name that is empty or only whitespace ("Names are nonblank").
pub fn blank_function_name(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': blank string. Expected a function name with at least one non-whitespace character."
            )
        },
        || {
            "Invalid value: blank string. Expected a function name with at least one non-whitespace character.".to_string()
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// The tool list cap: 3 MiB of compact UTF-8 JSON (pinned SDK documentation).
pub fn tools_too_large(path: &str, max: usize, got: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': array too large. Expected at most {max} bytes of compact JSON, but got {got} bytes instead."
            )
        },
        || {
            format!(
                "Invalid value: array too large. Expected at most {max} bytes of compact JSON, but got {got} bytes instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// An array with fewer than one element where one is needed (a message list, a message's
/// content). Ours, in the form of [`empty_string`].
pub fn empty_array(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': empty array. Expected an array with minimum length 1, but got an empty array instead."
            )
        },
        || {
            "Invalid value: empty array. Expected an array with minimum length 1, but got an empty array instead."
                .to_string()
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// An array over its element limit (`events`: 64), in the form of [`string_too_long`].
pub fn array_too_long(path: &str, max: usize, len: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': array too long. Expected an array with maximum length {max}, but got an array with length {len} instead."
            )
        },
        || {
            format!(
                "Invalid value: array too long. Expected an array with maximum length {max}, but got an array with length {len} instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}
