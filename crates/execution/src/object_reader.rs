//! The ordered checks of one JSON object.
//!
//! Protocol validation reports the *first* violation, and which one is first is part of the
//! contract (core-contracts §2.2): inside an object, a union's `type` comes first, then unknown
//! members, then member values in document order, then missing members in declared order.
//! Every object the parser reads goes through [`ObjectReader`], so the order is written once:
//!
//! ```text
//! let obj = ObjectReader::new(value, path, kind::OBJECT)?;   // the object itself
//! let variant = obj.tag(&["http", "stdio"])?;                // unions only
//! let mut url = None;
//! obj.read(KNOWN, |key, value, path| { ... })?;              // unknown members, then values
//! let url = obj.required(url, "server_url")?;                // missing, in declared order
//! ```
//!
//! Missing members are reported through [`ObjectReader::required`], which turns the `Option`
//! a visitor filled into the value, so a parser never unwraps.
//!
//! Member names match exactly: `Effort` is an unknown member, not `effort`. The body gate
//! already rejected repeated keys, so each name appears once.

use serde_json::{Map, Value};

use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::json_path::member_path;

/// One JSON object at a known path.
pub struct ObjectReader<'a> {
    map: &'a Map<String, Value>,
    path: &'a str,
}

impl<'a> ObjectReader<'a> {
    /// Requires `value` to be an object; `expected` is the phrase of the type error.
    pub fn new(value: &'a Value, path: &'a str, expected: &str) -> Result<Self, ValidationError> {
        match value {
            Value::Object(map) => Ok(ObjectReader { map, path }),
            other => Err(error_messages::invalid_type(path, expected, other)),
        }
    }

    /// A reader over an already-typed object (a request body).
    pub fn from_map(map: &'a Map<String, Value>, path: &'a str) -> Self {
        ObjectReader { map, path }
    }

    pub fn member(&self, key: &str) -> String {
        member_path(self.path, key)
    }

    /// The union tag, checked before anything else in the object: present, a string, and one of
    /// `supported`. Returns the matching supported value.
    pub fn tag(&self, supported: &[&'static str]) -> Result<&'static str, ValidationError> {
        let path = self.member("type");
        let value = self
            .map
            .get("type")
            .ok_or_else(|| error_messages::missing(&path))?;
        let text = value
            .as_str()
            .ok_or_else(|| error_messages::invalid_type(&path, kind::STRING, value))?;
        supported
            .iter()
            .copied()
            .find(|s| *s == text)
            .ok_or_else(|| error_messages::invalid_value(&path, text, supported))
    }

    /// The first member (document order) whose name is not in `known`.
    pub fn check_unknown(&self, known: &[&str]) -> Result<(), ValidationError> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(key) => Err(error_messages::unknown(&self.member(key))),
            None => Ok(()),
        }
    }

    /// A required member after the values were read: `value` is what the visitor stored for
    /// `key`, `None` when the member was absent. Call in declared order, after [`Self::read`].
    pub fn required<T>(&self, value: Option<T>, key: &str) -> Result<T, ValidationError> {
        value.ok_or_else(|| error_messages::missing(&self.member(key)))
    }

    /// A copy of the object, exactly as sent.
    pub fn to_map(&self) -> Map<String, Value> {
        self.map.clone()
    }

    /// Members in document order.
    pub fn entries(&self) -> impl Iterator<Item = (&'a str, &'a Value)> + use<'a> {
        self.map.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Unknown members, then each member value in document order. `visit(key, value, path)`
    /// reads one member; it is also called for `type` on unions, which it ignores.
    pub fn read(
        &self,
        known: &[&str],
        mut visit: impl FnMut(&'a str, &'a Value, &str) -> Result<(), ValidationError>,
    ) -> Result<(), ValidationError> {
        self.check_unknown(known)?;
        for (key, value) in self.entries() {
            visit(key, value, &self.member(key))?;
        }
        Ok(())
    }

    /// A variant without members besides `type` (`tool_search`, `automations`, `text`).
    pub fn read_tag_only(&self) -> Result<(), ValidationError> {
        self.check_unknown(&["type"])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KNOWN: &[&str] = &["type", "a", "b"];

    fn read(value: Value) -> Result<Vec<String>, ValidationError> {
        let obj = ObjectReader::new(&value, "x", kind::OBJECT)?;
        obj.tag(&["t"])?;
        let (mut seen, mut a, mut b) = (Vec::new(), None, None);
        obj.read(KNOWN, |key, value, path| {
            if key != "type" && value.is_null() {
                return Err(error_messages::invalid_type(path, kind::STRING, value));
            }
            match key {
                "a" => a = Some(()),
                "b" => b = Some(()),
                _ => {}
            }
            seen.push(key.to_string());
            Ok(())
        })?;
        obj.required(a, "a")?;
        obj.required(b, "b")?;
        Ok(seen)
    }

    #[test]
    fn the_union_tag_comes_first() {
        // Unknown members, bad values and missing members are all present: the tag wins.
        let e = read(json!({"zz": 1, "a": null})).unwrap_err();
        assert_eq!(e.message, "Missing required parameter: 'x.type'.");
        let e = read(json!({"type": null, "zz": 1})).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type for 'x.type': expected a string, but got null instead."
        );
        let e = read(json!({"type": "u", "zz": 1})).unwrap_err();
        assert_eq!(e.message, "Invalid value: 'u'. Supported values are: 't'.");
    }

    #[test]
    fn unknown_members_come_before_values_and_values_before_missing() {
        let e = read(json!({"type": "t", "a": null, "zz": 1})).unwrap_err();
        assert_eq!(e.message, "Unknown parameter: 'x.zz'.");
        let e = read(json!({"type": "t", "b": null})).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("x.b"));
        let e = read(json!({"type": "t", "b": 1})).unwrap_err();
        assert_eq!(e.message, "Missing required parameter: 'x.a'.");
    }

    #[test]
    fn values_are_read_in_document_order() {
        assert_eq!(
            read(json!({"b": 1, "type": "t", "a": 2})).unwrap(),
            ["b", "type", "a"]
        );
        let e = read(json!({"type": "t", "b": null, "a": null})).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("x.b"));
    }

    #[test]
    fn names_match_exactly() {
        let e = read(json!({"type": "t", "A": 1})).unwrap_err();
        assert_eq!(e.message, "Unknown parameter: 'x.A'.");
    }

    #[test]
    fn a_non_object_is_a_type_error() {
        let e = ObjectReader::new(&json!("s"), "tools[0]", kind::OBJECT)
            .err()
            .unwrap();
        assert_eq!(
            e.message,
            "Invalid type for 'tools[0]': expected an object, but got a string instead."
        );
    }
}
