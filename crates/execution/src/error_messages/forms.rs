//! Protocol forms (core-contracts §2.2, official wording): missing, unknown, wrong type,
//! unsupported value, integer bounds, string lengths. `param` is the JSON path of the member.

use serde_json::{Number, Value};
use switchboard_wire::ErrorCode;

use super::{at, echoable, json_kind, rule, supported_list};
use crate::error::ValidationError;

pub fn missing(path: &str) -> ValidationError {
    at(
        path,
        |p| format!("Missing required parameter: '{p}'."),
        || "Missing required parameter.".to_string(),
    )
    .with_code(ErrorCode::MissingRequiredParameter)
}

pub fn unknown(path: &str) -> ValidationError {
    at(
        path,
        |p| format!("Unknown parameter: '{p}'."),
        || "Unknown parameter.".to_string(),
    )
    .with_code(ErrorCode::UnknownParameter)
}

pub fn invalid_type(path: &str, expected: &str, got: &Value) -> ValidationError {
    let got = json_kind(got);
    at(
        path,
        |p| format!("Invalid type for '{p}': expected {expected}, but got {got} instead."),
        || format!("Invalid type: expected {expected}, but got {got} instead."),
    )
    .with_code(ErrorCode::InvalidType)
}

/// An enum member outside its supported values. The param stays the path even when the value
/// cannot be echoed: the path is ours, the value is the caller's.
pub fn invalid_value(path: &str, value: &str, supported: &[&str]) -> ValidationError {
    let list = supported_list(supported);
    let message = if echoable(value) {
        format!("Invalid value: '{value}'. Supported values are: {list}.")
    } else {
        format!("Invalid value. Supported values are: {list}.")
    };
    rule(path, &message).with_code(ErrorCode::InvalidValue)
}

/// `got` is echoed when it is an integer a 64-bit machine word holds (as observed officially,
/// an out-of-range integer drops the "but got" clause).
pub fn below_minimum(path: &str, min: u64, got: &Number) -> ValidationError {
    let tail = got_clause(got);
    at(
        path,
        |p| format!("Invalid '{p}': integer below minimum value. Expected a value >= {min}{tail}."),
        || format!("Invalid value: integer below minimum value. Expected a value >= {min}{tail}."),
    )
    .with_code(ErrorCode::IntegerBelowMinValue)
}

pub fn above_maximum(path: &str, max: u64, got: &Number) -> ValidationError {
    let tail = got_clause(got);
    at(
        path,
        |p| format!("Invalid '{p}': integer above maximum value. Expected a value <= {max}{tail}."),
        || format!("Invalid value: integer above maximum value. Expected a value <= {max}{tail}."),
    )
    .with_code(ErrorCode::IntegerAboveMaxValue)
}

fn got_clause(got: &Number) -> String {
    if got.is_i64() || got.is_u64() {
        format!(", but got {got} instead")
    } else {
        String::new()
    }
}

/// Lengths count characters (Unicode scalar values), as the official limits do.
pub fn string_too_long(path: &str, max: usize, len: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': string too long. Expected a string with maximum length {max}, but got a string with length {len} instead."
            )
        },
        || {
            format!(
                "Invalid value: string too long. Expected a string with maximum length {max}, but got a string with length {len} instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

pub fn empty_string(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': empty string. Expected a string with minimum length 1, but got an empty string instead."
            )
        },
        || {
            "Invalid value: empty string. Expected a string with minimum length 1, but got an empty string instead."
                .to_string()
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

pub fn too_many_properties(path: &str, max: usize, got: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': too many properties. Expected an object with at most {max} properties, but got an object with {got} properties instead."
            )
        },
        || {
            format!(
                "Invalid value: too many properties. Expected an object with at most {max} properties, but got an object with {got} properties instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// A property name over the limit (`metadata` keys). `object_path` names the object; the param
/// is the member's path.
pub fn property_name_too_long(
    object_path: &str,
    key: &str,
    max: usize,
    len: usize,
) -> ValidationError {
    let member = crate::json_path::member_path(object_path, key);
    let tail = format!(
        "Expected a string with maximum length {max}, but got a string with length {len} instead."
    );
    if echoable(&member) {
        ValidationError::new(
            member,
            format!("Invalid property name in '{object_path}': '{key}' is too long. {tail}"),
        )
    } else {
        ValidationError::new(
            None,
            format!("Invalid property name in '{object_path}': a name is too long. {tail}"),
        )
    }
    .with_code(ErrorCode::InvalidValue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Number;

    #[test]
    fn unechoable_paths_become_null_params() {
        let e = unknown(&format!("tools[0].{}", "<".repeat(257)));
        assert_eq!((e.param, e.message.as_str()), (None, "Unknown parameter."));
        let e = unknown("tools[0].tab\tkey");
        assert_eq!((e.param, e.message.as_str()), (None, "Unknown parameter."));
        let e = unknown("reasoning.EFFORT");
        assert_eq!(e.param.as_deref(), Some("reasoning.EFFORT"));
        assert_eq!(e.message, "Unknown parameter: 'reasoning.EFFORT'.");
    }

    #[test]
    fn unechoable_values_are_dropped_but_the_param_stays() {
        let e = invalid_value("service_tier", &"<".repeat(257), &["auto", "flex"]);
        assert_eq!(e.param.as_deref(), Some("service_tier"));
        assert_eq!(
            e.message,
            "Invalid value. Supported values are: 'auto' and 'flex'."
        );
    }

    #[test]
    fn integer_bounds_echo_only_machine_integers() {
        let n = |s: &str| serde_json::from_str::<Number>(s).unwrap();
        assert_eq!(
            below_minimum("multi_agent.max_concurrent_subagents", 1, &n("0")).message,
            "Invalid 'multi_agent.max_concurrent_subagents': integer below minimum value. Expected a value >= 1, but got 0 instead."
        );
        assert_eq!(
            below_minimum("m", 1, &n("-99999999999999999999")).message,
            "Invalid 'm': integer below minimum value. Expected a value >= 1."
        );
        assert_eq!(
            above_maximum("m", 4294967295, &n("4294967296")).message,
            "Invalid 'm': integer above maximum value. Expected a value <= 4294967295, but got 4294967296 instead."
        );
    }
}
