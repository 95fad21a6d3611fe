//! `Idempotency-Key`: the header's bounds, its conflict, and the digest a retry is compared by.
//! Session create (core-contracts §2.3 step 2) and input events (§3.1) share them.

use axum::http::HeaderMap;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::error::SessionError;

const MAX_KEY_BYTES: usize = 128;

/// The request's key, if it sent one: 1–128 bytes and not only whitespace, else 400.
pub fn key(headers: &HeaderMap) -> Result<Option<String>, SessionError> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let key = value.to_str().unwrap_or_default();
    if key.is_empty() || key.len() > MAX_KEY_BYTES || key.trim().is_empty() {
        return Err(SessionError::InvalidIdempotencyKey);
    }
    Ok(Some(key.to_owned()))
}

/// Hex SHA-256 of a request body with every object's members sorted by name: member order does
/// not make another request, while values, number spelling (lossless JSON) and presence do.
pub fn fingerprint(body: &Map<String, Value>) -> String {
    let mut text = String::new();
    write_object(body, &mut text);
    hex::encode(Sha256::digest(text))
}

/// Hex SHA-256 of an input batch's `events` exactly as sent: a retry must repeat them
/// byte for byte (after parsing), member order included.
pub fn events_fingerprint(body: &Map<String, Value>) -> String {
    hex::encode(Sha256::digest(
        serde_json::to_string(&body.get("events")).unwrap_or_default(),
    ))
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    let mut members: Vec<_> = map.iter().collect();
    members.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (i, (name, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(name.clone()).to_string());
        out.push(':');
        write_value(value, out);
    }
    out.push('}');
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => write_object(map, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> Map<String, Value> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn member_order_does_not_matter_values_and_spelling_do() {
        let a = fingerprint(&map(r#"{"a":{"x":1,"y":[{"p":1,"q":2}]},"b":"s"}"#));
        let b = fingerprint(&map(r#"{"b":"s","a":{"y":[{"q":2,"p":1}],"x":1}}"#));
        assert_eq!(a, b);
        assert_ne!(
            a,
            fingerprint(&map(r#"{"b":"s","a":{"y":[{"q":2,"p":1}],"x":1.0}}"#))
        );
        assert_ne!(
            a,
            fingerprint(&map(
                r#"{"b":"s","a":{"y":[{"q":2,"p":1}],"x":1},"c":null}"#
            ))
        );
    }
}
