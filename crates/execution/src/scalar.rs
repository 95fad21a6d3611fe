//! Typed readers for one member value.
//!
//! Each reader checks the JSON kind first (an `Invalid type` error naming what was expected and
//! what arrived), then the value. The `nullable_*` variants map `null` to `None`; the pinned SDK
//! types decide which members may be null, and a member that may not gets the type error for
//! `null` like any other wrong kind.

use serde_json::{Map, Number, Value};

use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::json_path::element_path;
use crate::object_reader::ObjectReader;

pub fn string<'a>(value: &'a Value, path: &str) -> Result<&'a str, ValidationError> {
    value
        .as_str()
        .ok_or_else(|| error_messages::invalid_type(path, kind::STRING, value))
}

pub fn nullable_string<'a>(
    value: &'a Value,
    path: &str,
) -> Result<Option<&'a str>, ValidationError> {
    if value.is_null() {
        Ok(None)
    } else {
        string(value, path).map(Some)
    }
}

/// A string with at least one character.
pub fn nonempty_string<'a>(value: &'a Value, path: &str) -> Result<&'a str, ValidationError> {
    let text = string(value, path)?;
    if text.is_empty() {
        Err(error_messages::empty_string(path))
    } else {
        Ok(text)
    }
}

/// A string of at most `max` characters.
pub fn bounded_string<'a>(
    value: &'a Value,
    path: &str,
    max: usize,
) -> Result<&'a str, ValidationError> {
    let text = string(value, path)?;
    let len = text.chars().count();
    if len > max {
        Err(error_messages::string_too_long(path, max, len))
    } else {
        Ok(text)
    }
}

pub fn boolean(value: &Value, path: &str) -> Result<bool, ValidationError> {
    value
        .as_bool()
        .ok_or_else(|| error_messages::invalid_type(path, kind::BOOLEAN, value))
}

pub fn nullable_boolean(value: &Value, path: &str) -> Result<Option<bool>, ValidationError> {
    if value.is_null() {
        Ok(None)
    } else {
        boolean(value, path).map(Some)
    }
}

/// One of the literal values of `table` (a string member).
pub fn choice<T: Copy>(
    value: &Value,
    path: &str,
    table: &[(&'static str, T)],
) -> Result<T, ValidationError> {
    let text = string(value, path)?;
    match table.iter().find(|(name, _)| *name == text) {
        Some((_, v)) => Ok(*v),
        None => {
            let names: Vec<&str> = table.iter().map(|(name, _)| *name).collect();
            Err(error_messages::invalid_value(path, text, &names))
        }
    }
}

pub fn nullable_choice<T: Copy>(
    value: &Value,
    path: &str,
    table: &[(&'static str, T)],
) -> Result<Option<T>, ValidationError> {
    if value.is_null() {
        Ok(None)
    } else {
        choice(value, path, table).map(Some)
    }
}

pub fn array<'a>(value: &'a Value, path: &str) -> Result<&'a [Value], ValidationError> {
    value
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| error_messages::invalid_type(path, kind::ARRAY, value))
}

/// An array of strings; each element is typed at its own path (`allowed_domains[0]`).
pub fn string_array(value: &Value, path: &str) -> Result<Vec<String>, ValidationError> {
    array(value, path)?
        .iter()
        .enumerate()
        .map(|(i, item)| string(item, &element_path(path, i)).map(str::to_string))
        .collect()
}

pub fn nullable_string_array(
    value: &Value,
    path: &str,
) -> Result<Option<Vec<String>>, ValidationError> {
    if value.is_null() {
        Ok(None)
    } else {
        string_array(value, path).map(Some)
    }
}

/// A free-form object (a JSON Schema, `request_metadata`), kept exactly as sent: every number
/// keeps its decimal text because the workspace enables serde_json's `arbitrary_precision`.
pub fn free_object(value: &Value, path: &str) -> Result<Map<String, Value>, ValidationError> {
    match value {
        Value::Object(map) => Ok(map.clone()),
        other => Err(error_messages::invalid_type(path, kind::FREE_OBJECT, other)),
    }
}

/// An object whose values are all strings (`metadata`, MCP `headers` and `env`). Values are
/// typed in document order at `path.<key>`.
pub fn string_map(value: &Value, path: &str) -> Result<Map<String, Value>, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::STRING_MAP)?;
    for (key, item) in obj.entries() {
        string(item, &obj.member(key))?;
    }
    Ok(obj.to_map())
}

/// An integer written without fraction or exponent, within `min..=max`.
pub fn integer(value: &Value, path: &str, min: u64, max: u64) -> Result<u64, ValidationError> {
    let n = match value {
        Value::Number(n) if error_messages::is_integer_literal(n) => n,
        other => return Err(error_messages::invalid_type(path, kind::INTEGER, other)),
    };
    match bounded(n, min, max) {
        Bound::Within(v) => Ok(v),
        Bound::Below => Err(error_messages::below_minimum(path, min, n)),
        Bound::Above => Err(error_messages::above_maximum(path, max, n)),
    }
}

pub fn nullable_integer(
    value: &Value,
    path: &str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, ValidationError> {
    if value.is_null() {
        Ok(None)
    } else {
        integer(value, path, min, max).map(Some)
    }
}

enum Bound {
    Within(u64),
    Below,
    Above,
}

/// Compares an integer literal of any length with the bounds, without rounding it anywhere.
fn bounded(n: &Number, min: u64, max: u64) -> Bound {
    if let Some(v) = n.as_u64() {
        return if v < min {
            Bound::Below
        } else if v > max {
            Bound::Above
        } else {
            Bound::Within(v)
        };
    }
    // Not a u64: either negative (always below a u64 minimum) or beyond u64 (always above).
    if n.to_string().starts_with('-') {
        Bound::Below
    } else {
        Bound::Above
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn integers_are_bounded_without_rounding() {
        assert_eq!(integer(&json!(1), "n", 1, 10).unwrap(), 1);
        assert_eq!(
            integer(&parse("4294967295"), "n", 1, 4294967295).unwrap(),
            4294967295
        );
        let e = integer(&parse("4294967296"), "n", 1, 4294967295).unwrap_err();
        assert!(
            e.message.contains("integer above maximum value"),
            "{}",
            e.message
        );
        let e = integer(&parse("-99999999999999999999"), "n", 1, 10).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid 'n': integer below minimum value. Expected a value >= 1."
        );
        let e = integer(&parse("99999999999999999999"), "n", 1, 10).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid 'n': integer above maximum value. Expected a value <= 10."
        );
        let e = integer(&json!(-5), "n", 1, 10).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid 'n': integer below minimum value. Expected a value >= 1, but got -5 instead."
        );
    }

    #[test]
    fn integral_decimals_are_not_integers() {
        for text in ["1.5", "1.0", "1e2"] {
            let e = integer(&parse(text), "n", 1, 10).unwrap_err();
            assert_eq!(
                e.message,
                "Invalid type for 'n': expected an integer, but got a number instead."
            );
        }
    }

    #[test]
    fn choices_list_their_supported_values() {
        let table = [("low", 1), ("medium", 2), ("high", 3)];
        assert_eq!(choice(&json!("medium"), "c", &table).unwrap(), 2);
        let e = choice(&json!("huge"), "c", &table).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid value: 'huge'. Supported values are: 'low', 'medium', and 'high'."
        );
        let e = choice(&json!(null), "c", &table).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type for 'c': expected a string, but got null instead."
        );
        assert_eq!(nullable_choice(&json!(null), "c", &table).unwrap(), None);
    }

    #[test]
    fn string_arrays_type_each_element() {
        let e = string_array(&json!(["a", null]), "d").unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type for 'd[1]': expected a string, but got null instead."
        );
    }

    #[test]
    fn string_maps_type_each_value_in_document_order() {
        let e = string_map(&json!({"a": "x", "h": 1, "z": null}), "headers").unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type for 'headers.h': expected a string, but got an integer instead."
        );
        let e = string_map(&json!(5), "metadata").unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type for 'metadata': expected an object with string keys and string values, but got an integer instead."
        );
    }

    #[test]
    fn lengths_count_characters() {
        assert!(bounded_string(&json!("雪".repeat(128)), "name", 128).is_ok());
        let e = bounded_string(&json!("x".repeat(129)), "name", 128).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid 'name': string too long. Expected a string with maximum length 128, but got a string with length 129 instead."
        );
    }
}
