//! `text`: format and verbosity.

use crate::common::{assert_each_form, assert_each_form_ok, create_ok};
use switchboard_execution::{TextFormat, Verbosity};

#[test]
fn format_union() {
    assert_each_form(
        r#""text":{"format":{}}"#,
        Some("{p}text.format.type"),
        "Missing required parameter: '{p}text.format.type'.",
    );
    assert_each_form(
        r#""text":{"format":{"type":null}}"#,
        Some("{p}text.format.type"),
        "Invalid type for '{p}text.format.type': expected a string, but got null instead.",
    );
    assert_each_form(
        r#""text":{"format":{"type":"json_object"}}"#,
        Some("{p}text.format.type"),
        "Invalid value: 'json_object'. Supported values are: 'text' and 'json_schema'.",
    );
    assert_each_form(
        r#""text":{"format":{"type":"text","schema":{}}}"#,
        Some("{p}text.format.schema"),
        "Unknown parameter: '{p}text.format.schema'.",
    );
}

#[test]
fn json_schema_has_no_responses_wrapper_members() {
    assert_each_form(
        r#""text":{"format":{"type":"json_schema","name":"out","strict":true,"schema":{"type":"object","properties":{}}}}"#,
        Some("{p}text.format.name"),
        "Unknown parameter: '{p}text.format.name'.",
    );
    assert_each_form(
        r#""text":{"format":{"type":"json_schema","strict":true,"schema":{"type":"object"}}}"#,
        Some("{p}text.format.strict"),
        "Unknown parameter: '{p}text.format.strict'.",
    );
    assert_each_form(
        r#""text":{"format":{"type":"json_schema"}}"#,
        Some("{p}text.format.schema"),
        "Missing required parameter: '{p}text.format.schema'.",
    );
    assert_each_form(
        r#""text":{"format":{"type":"json_schema","schema":null}}"#,
        Some("{p}text.format.schema"),
        "Invalid type for '{p}text.format.schema': expected an object with string keys and unknown value values, but got null instead.",
    );
    assert_each_form(
        r#""text":{"format":{"type":"json_schema","schema":[]}}"#,
        Some("{p}text.format.schema"),
        "Invalid type for '{p}text.format.schema': expected an object with string keys and unknown value values, but got an array instead.",
    );
}

#[test]
fn verbosity_and_members() {
    assert_each_form(
        r#""text":{"verbosity":"verbose"}"#,
        Some("{p}text.verbosity"),
        "Invalid value: 'verbose'. Supported values are: 'low', 'medium', and 'high'.",
    );
    assert_each_form(
        r#""text":{"unknown":true}"#,
        Some("{p}text.unknown"),
        "Unknown parameter: '{p}text.unknown'.",
    );
    assert_each_form(
        r#""text":{"Verbosity":"low"}"#,
        Some("{p}text.Verbosity"),
        "Unknown parameter: '{p}text.Verbosity'.",
    );
    assert_each_form(
        r#""text":"text""#,
        Some("{p}text"),
        "Invalid type for '{p}text': expected an object, but got a string instead.",
    );
    assert_each_form_ok(r#""text":{"format":null,"verbosity":null}"#);
    assert_each_form_ok(r#""text":null"#);
}

#[test]
fn a_non_object_schema_root_is_a_conflict() {
    assert_each_form(
        r#""text":{"format":{"type":"json_schema","schema":{"type":"array","items":{"type":"string"}}}}"#,
        None,
        r#"{p}text.format.schema must have top-level type "object"; got "array""#,
    );
    assert_each_form(
        &format!(
            r#""text":{{"format":{{"type":"json_schema","schema":{{"type":"{}"}}}}}}"#,
            "<".repeat(257)
        ),
        None,
        r#"{p}text.format.schema must have top-level type "object""#,
    );
    for schema in [
        r#"{"type":"object"}"#,
        r#"{"properties":{}}"#,
        r#"{"type":["object"]}"#,
    ] {
        assert_each_form_ok(&format!(
            r#""text":{{"format":{{"type":"json_schema","schema":{schema}}}}}"#
        ));
    }
}

#[test]
fn saved_values() {
    let saved = create_ok(
        r#"{"model":"m","text":{"format":{"type":"json_schema","schema":{"type":"object"}},"verbosity":"high"}}"#,
    );
    assert_eq!(saved.text.verbosity, Verbosity::High);
    assert!(matches!(saved.text.format, TextFormat::JsonSchema { .. }));
    let saved = create_ok(r#"{"model":"m","text":{"verbosity":"low"}}"#);
    assert_eq!(saved.text.format, TextFormat::Text);
}
