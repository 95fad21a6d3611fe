//! The JSON body gate: the checks every request body passes, in their contract order.
//!
//! 1. `Content-Type` must be `application/json` (an empty body skips this: it means `{}`).
//! 2. Size: over the route's limit is a 413 `request_too_large`.
//! 3. The bytes must be UTF-8.
//! 4. The text must be one JSON value.
//! 5. No object, at any depth, may repeat a key; the first repeat is reported with its path.
//! 6. The root must be an object; an empty body or `null` counts as `{}`.
//!
//! Parsing keeps numbers lossless: with the workspace-wide `arbitrary_precision` feature each
//! number keeps its decimal digits as sent and never passes through `f64` (only the exponent
//! marker is normalized, `1E2` → `1e+2`, which keeps the value and digits).

use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::error::{ApiError, ErrorCode};

/// 1 MiB: the limit of every body but Session create.
pub const DEFAULT_LIMIT: usize = 1 << 20;
/// 16 MiB: Session create carries inline Agents and input.
pub const SESSION_CREATE_LIMIT: usize = 16 << 20;

const MSG_CONTENT_TYPE: &str = "expected request with Content-Type: application/json";
const MSG_UTF8: &str = "Invalid body: encountered a unicode decode error when parsing this JSON value. Please check the value to ensure it is valid unicode.";
const MSG_SYNTAX: &str = "Invalid body: failed to parse JSON value. Please check the value to ensure it is valid JSON. (Common errors include trailing commas, missing closing brackets, missing quotation marks, etc.)";

/// The gate's configuration for one route.
#[derive(Debug, Clone, Copy)]
pub struct BodyGate {
    pub limit: usize,
}

impl Default for BodyGate {
    fn default() -> Self {
        BodyGate {
            limit: DEFAULT_LIMIT,
        }
    }
}

/// Runs the gate with the default 1 MiB limit.
pub fn parse_body(content_type: Option<&str>, body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    BodyGate::default().parse(content_type, body)
}

impl BodyGate {
    /// Runs every check in order and returns the root object.
    pub fn parse(
        &self,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Map<String, Value>, ApiError> {
        if body.is_empty() {
            return Ok(Map::new());
        }
        if !is_json_content_type(content_type) {
            return Err(ApiError::invalid_body(MSG_CONTENT_TYPE));
        }
        if body.len() > self.limit {
            return Err(too_large(self.limit));
        }
        let text = std::str::from_utf8(body).map_err(|_| ApiError::invalid_body(MSG_UTF8))?;
        if text.trim_matches(is_json_whitespace).is_empty() {
            return Ok(Map::new());
        }
        let value = parse_strict(text).map_err(|e| match e {
            StrictError::Syntax => ApiError::invalid_body(MSG_SYNTAX),
            StrictError::DuplicateKey { key, path } => ApiError::invalid_body(format!(
                "Invalid body: duplicate JSON key '{key}' at '{path}'. Duplicate JSON keys are not supported."
            )),
            StrictError::ReservedKey { key, path } => ApiError::invalid_body(format!(
                "Invalid body: the JSON key '{key}' at '{path}' is reserved and not supported."
            )),
        })?;
        match value {
            Value::Object(map) => Ok(map),
            Value::Null => Ok(Map::new()),
            other => Err(ApiError::invalid_body(format!(
                "Invalid type: expected an object, but got {} instead.",
                json_kind(&other)
            ))),
        }
    }
}

/// The 413 for a body over `limit` bytes.
pub fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::RequestTooLarge,
        None,
        format!(
            "The request body is too large. The maximum size is {} bytes.",
            limit
        ),
    )
}

/// The 408 for a body that stalled past the body-read timeout.
pub fn timed_out() -> ApiError {
    ApiError::new(
        ErrorCode::RequestTimeout,
        None,
        "The request body was not received in time.",
    )
}

fn is_json_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// `application/json`, optionally with parameters (`; charset=utf-8`), case-insensitive.
fn is_json_content_type(ct: Option<&str>) -> bool {
    ct.and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// The official name of a JSON value's kind, as used after "but got" in messages.
///
/// Integers are told from other numbers by their spelling, never by range: with
/// `arbitrary_precision` a 30-digit integer is still an integer the caller wrote.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if is_integer_literal(n) => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// True when the number was written without a fraction or exponent.
pub fn is_integer_literal(n: &Number) -> bool {
    !n.to_string().contains(['.', 'e', 'E'])
}

/// Why [`parse_strict`] refused a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictError {
    Syntax,
    DuplicateKey {
        key: String,
        path: String,
    },
    /// serde_json's private raw-value key: serde_json itself would read the object back as
    /// the raw JSON inside its string, so what was stored would not be what was sent.
    ReservedKey {
        key: String,
        path: String,
    },
}

/// Parses one JSON value, refusing duplicate keys at any depth.
///
/// A syntax error anywhere wins over a duplicate key (the gate checks syntax first), so the
/// first duplicate is remembered and reported only once the whole text has parsed.
pub fn parse_strict(text: &str) -> Result<Value, StrictError> {
    let dup = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = ValueSeed {
        at: None,
        dup: &dup,
    }
    .deserialize(&mut de)
    .map_err(|_| StrictError::Syntax)?;
    de.end().map_err(|_| StrictError::Syntax)?;
    match dup.into_inner() {
        Some((key, path)) if key == RAW_VALUE_TOKEN => Err(StrictError::ReservedKey { key, path }),
        Some((key, path)) => Err(StrictError::DuplicateKey { key, path }),
        None => Ok(value),
    }
}

/// Where a value sits, as a linked list up to the root; rendered only for a duplicate.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str, Option<&'a Step<'a>>),
    Index(usize, Option<&'a Step<'a>>),
}

impl fmt::Display for Step<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Key(k, parent) => match parent {
                Some(p) => write!(f, "{p}.{k}"),
                None => write!(f, "{k}"),
            },
            Step::Index(i, parent) => match parent {
                Some(p) => write!(f, "{p}[{i}]"),
                None => write!(f, "[{i}]"),
            },
        }
    }
}

type DupSlot = RefCell<Option<(String, String)>>;

struct ValueSeed<'a> {
    at: Option<&'a Step<'a>>,
    dup: &'a DupSlot,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// serde_json hands numbers to `deserialize_any` visitors as a one-entry map under this key when
/// `arbitrary_precision` is on; the entry's value is the number's text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";
/// The key serde_json's `Value` reader takes for "the raw JSON text in this string"
/// (`raw_value` is on in this workspace). A caller's object with this key is refused: stored
/// and read back it would become another value (fuzzing found it, `docs/fuzzing.md`).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let step = Step::Index(out.len(), self.at);
            match seq.next_element_seed(ValueSeed {
                at: Some(&step),
                dup: self.dup,
            })? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == NUMBER_TOKEN && out.is_empty() {
                let text: String = map.next_value()?;
                let n = Number::from_str(&text).map_err(serde::de::Error::custom)?;
                return Ok(Value::Number(n));
            }
            let step = Step::Key(&key, self.at);
            if key == RAW_VALUE_TOKEN {
                // Reported like a duplicate, once the whole text has parsed (syntax wins).
                let mut slot = self.dup.borrow_mut();
                if slot.as_ref().is_none_or(|(k, _)| k != RAW_VALUE_TOKEN) {
                    *slot = Some((key.clone(), step.to_string()));
                }
            }
            let value = map.next_value_seed(ValueSeed {
                at: Some(&step),
                dup: self.dup,
            })?;
            if out.contains_key(&key) {
                let mut slot = self.dup.borrow_mut();
                if slot.is_none() {
                    *slot = Some((key.clone(), step.to_string()));
                }
                continue;
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(ct: Option<&str>, body: &str) -> Result<Map<String, Value>, ApiError> {
        parse_body(ct, body.as_bytes())
    }

    const JSON: Option<&str> = Some("application/json");

    #[test]
    fn lossless_numbers_guard() {
        // If this fails, someone dropped serde_json's arbitrary_precision feature.
        let v: Value = serde_json::from_str("0.60").unwrap();
        assert_eq!(v.to_string(), "0.60");
        let m = gate(
            JSON,
            r#"{"a": 1.000, "b": 12345678901234567890123, "c": -0.0, "d": [1e400]}"#,
        )
        .unwrap();
        assert_eq!(
            Value::Object(m).to_string(),
            r#"{"a":1.000,"b":12345678901234567890123,"c":-0.0,"d":[1e+400]}"#
        );
    }

    #[test]
    fn content_type_is_checked_first() {
        let e = gate(Some("text/plain"), "{").unwrap_err();
        assert_eq!(e.message, MSG_CONTENT_TYPE);
        assert_eq!((e.status, e.param.as_deref()), (400, None));
        assert!(gate(Some("application/json; charset=utf-8"), "{}").is_ok());
        assert!(gate(Some("Application/JSON"), "{}").is_ok());
        assert_eq!(gate(None, "{}").unwrap_err().message, MSG_CONTENT_TYPE);
    }

    #[test]
    fn empty_and_null_bodies_are_empty_objects() {
        assert!(gate(None, "").unwrap().is_empty());
        assert!(gate(JSON, " \n").unwrap().is_empty());
        assert!(gate(JSON, "null").unwrap().is_empty());
    }

    #[test]
    fn size_limit_is_a_413_before_parsing() {
        let e = BodyGate { limit: 4 }
            .parse(JSON, b"\xff\xff\xff\xff\xff")
            .unwrap_err();
        assert_eq!((e.status, e.code), (413, Some("request_too_large")));
    }

    #[test]
    fn invalid_utf8_before_syntax() {
        let e = parse_body(JSON, b"{\"a\": \"\xff\"").unwrap_err();
        assert_eq!(e.message, MSG_UTF8);
    }

    #[test]
    fn serde_jsons_raw_value_key_is_refused_at_any_depth() {
        for (body, path) in [
            (
                r#"{"$serde_json::private::RawValue": "[1,2]"}"#,
                "$serde_json::private::RawValue",
            ),
            (
                r#"{"a": [{"b": 1}, {"$serde_json::private::RawValue": "{"}]}"#,
                "a[1].$serde_json::private::RawValue",
            ),
        ] {
            let e = gate(JSON, body).unwrap_err();
            assert_eq!(e.status, 400, "{body}");
            assert_eq!(
                e.message,
                format!(
                    "Invalid body: the JSON key '$serde_json::private::RawValue' at '{path}' is reserved and not supported."
                )
            );
        }
        // Syntax still wins.
        let e = gate(JSON, r#"{"$serde_json::private::RawValue": "x""#).unwrap_err();
        assert_eq!(e.message, MSG_SYNTAX);
    }

    #[test]
    fn syntax_errors_win_over_duplicates() {
        assert_eq!(
            gate(JSON, r#"{"a":1,"a":2,}"#).unwrap_err().message,
            MSG_SYNTAX
        );
        assert_eq!(gate(JSON, r#"{"a":1} x"#).unwrap_err().message, MSG_SYNTAX);
    }

    #[test]
    fn duplicates_report_key_and_path_at_any_depth() {
        let cases = [
            (r#"{"a":1,"a":2}"#, "a", "a"),
            (
                r#"{"tools":[{"type":"function"},{"name":"x","name":"y"}]}"#,
                "name",
                "tools[1].name",
            ),
            (r#"{"a":{"b":{"c":1,"c":1}}}"#, "c", "a.b.c"),
            (r#"{"x":1,"y":{"z":1,"z":2},"x":3}"#, "z", "y.z"),
        ];
        for (body, key, path) in cases {
            let e = gate(JSON, body).unwrap_err();
            assert_eq!(
                e.message,
                format!(
                    "Invalid body: duplicate JSON key '{key}' at '{path}'. Duplicate JSON keys are not supported."
                ),
                "{body}"
            );
        }
    }

    #[test]
    fn non_object_roots_are_named() {
        for (body, kind) in [
            ("[]", "an array"),
            ("1", "an integer"),
            ("1.5", "a number"),
            ("\"s\"", "a string"),
            ("true", "a boolean"),
        ] {
            assert_eq!(
                gate(JSON, body).unwrap_err().message,
                format!("Invalid type: expected an object, but got {kind} instead.")
            );
        }
    }
}
