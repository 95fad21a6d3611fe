//! Generated arguments and default JSON answers are valid instances of their schemas.

use serde_json::{Value, json};
use switchboard_mock_model::minimal_instance;

fn assert_valid(schema: Value) -> Value {
    let instance = minimal_instance(&schema);
    let validator = jsonschema::validator_for(&schema).expect("test schema is valid");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{instance} vs {schema}: {errors:?}");
    instance
}

#[test]
fn instances_satisfy_their_schemas() {
    let schemas = [
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
               "required": ["a"], "additionalProperties": false}),
        json!({"type": "string", "minLength": 4}),
        json!({"type": "string", "format": "date-time"}),
        json!({"type": "string", "format": "email"}),
        json!({"type": "integer", "minimum": 3}),
        json!({"type": "integer", "exclusiveMinimum": 3}),
        json!({"type": "integer", "maximum": -2}),
        json!({"type": "integer", "minimum": 5, "multipleOf": 4}),
        json!({"type": "number", "exclusiveMaximum": -0.5}),
        json!({"type": "number", "minimum": 0.25}),
        json!({"type": "boolean"}),
        json!({"type": "null"}),
        json!({"type": ["string", "null"]}),
        json!({"enum": ["red", "green"]}),
        json!({"const": {"k": [1, 2]}}),
        json!({"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2}),
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "minItems": 2}),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        json!({"oneOf": [{"type": "object", "required": ["kind"],
                          "properties": {"kind": {"const": "a"}}}]}),
        json!({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                         {"properties": {"b": {"type": "number", "minimum": 1}}, "required": ["b"]}]}),
        json!({"$defs": {"city": {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}},
                                   "required": ["name"]}},
               "type": "object", "properties": {"home": {"$ref": "#/$defs/city"}}, "required": ["home"]}),
        json!({"definitions": {"n": {"type": "integer", "minimum": 7}}, "$ref": "#/definitions/n"}),
        json!({"$defs": {"tree": {"type": "object", "properties": {"children": {"type": "array",
                 "items": {"$ref": "#/$defs/tree"}}}, "required": ["children"]}}, "$ref": "#/$defs/tree"}),
        json!({}),
        json!(true),
    ];
    for schema in schemas {
        assert_valid(schema);
    }
}

#[test]
fn instances_are_minimal() {
    let instance = assert_valid(json!({"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1},
                       "units": {"enum": ["metric", "imperial"]}, "extra": {"type": "string"}},
        "required": ["city", "days", "units"]}));
    assert_eq!(instance, json!({"city": "", "days": 1, "units": "metric"}));
}
