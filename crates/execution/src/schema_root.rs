//! The one schema rule protocol validation applies.
//!
//! A function's `parameters` and a `text.format` JSON schema describe an object; an explicit
//! string root `type` other than `"object"` is a protocol error on save and on Session creation
//! (execution-tools.md, "Admission"). Only that case is checked: a schema without a root `type`,
//! or with a non-string one such as `["object", "null"]`, is kept unchanged, and no other part of
//! the schema is judged here (the native harness and model provider own the rest).

use serde_json::Value;

/// The schema's explicit root `type` when it is a string other than `"object"`.
pub fn non_object_root_type(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) if t != "object" => Some(t),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_an_explicit_string_root_type_counts() {
        assert_eq!(
            non_object_root_type(&json!({"type": "array"})),
            Some("array")
        );
        assert_eq!(non_object_root_type(&json!({"type": "null"})), Some("null"));
        assert_eq!(
            non_object_root_type(&json!({"type": "Object"})),
            Some("Object")
        );
        assert_eq!(non_object_root_type(&json!({"type": "object"})), None);
        assert_eq!(non_object_root_type(&json!({})), None);
        assert_eq!(non_object_root_type(&json!({"properties": {}})), None);
        assert_eq!(
            non_object_root_type(&json!({"type": ["object", "null"]})),
            None
        );
        assert_eq!(non_object_root_type(&json!({"type": 1})), None);
        assert_eq!(
            non_object_root_type(&json!({"Type": "string", "type": "object"})),
            None
        );
    }
}
