//! `{"type": "function"}` declarations.

use crate::common::{assert_each_form, assert_each_form_ok, create_ok, lookup};
use switchboard_execution::Tool;

#[test]
fn required_members_in_declared_order() {
    assert_each_form(
        r#""tools":[{"type":"function","parameters":{"type":"object"}}]"#,
        Some("{p}tools[0].name"),
        "Missing required parameter: '{p}tools[0].name'.",
    );
    assert_each_form(
        r#""tools":[{"type":"function","name":"lookup","parameters":{"type":"object"}}]"#,
        Some("{p}tools[0].description"),
        "Missing required parameter: '{p}tools[0].description'.",
    );
    assert_each_form(
        r#""tools":[{"type":"function","name":"lookup","description":"Look up a value."}]"#,
        Some("{p}tools[0].parameters"),
        "Missing required parameter: '{p}tools[0].parameters'.",
    );
}

#[test]
fn member_types() {
    assert_each_form(
        r#""tools":[{"type":"function","name":"lookup","description":"Look up a value.","parameters":[]}]"#,
        Some("{p}tools[0].parameters"),
        "Invalid type for '{p}tools[0].parameters': expected an object with string keys and unknown value values, but got an array instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"function","name":"x","description":"","parameters":null}]"#,
        Some("{p}tools[0].parameters"),
        "Invalid type for '{p}tools[0].parameters': expected an object with string keys and unknown value values, but got null instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"function","name":null}]"#,
        Some("{p}tools[0].name"),
        "Invalid type for '{p}tools[0].name': expected a string, but got null instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"function","name":"x","description":7,"parameters":{}}]"#,
        Some("{p}tools[0].description"),
        "Invalid type for '{p}tools[0].description': expected a string, but got an integer instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"function","name":"x","description":"","parameters":{},"async":"no"}]"#,
        Some("{p}tools[0].async"),
        "Invalid type for '{p}tools[0].async': expected a boolean, but got a string instead.",
    );
}

#[test]
fn defer_loading_defaults_to_false_and_cannot_be_null() {
    assert_each_form(
        &format!(
            r#""tools":[{}]"#,
            lookup("lookup", r#","defer_loading":"yes""#)
        ),
        Some("{p}tools[0].defer_loading"),
        "Invalid type for '{p}tools[0].defer_loading': expected a boolean, but got a string instead.",
    );
    assert_each_form(
        &format!(
            r#""tools":[{}]"#,
            lookup("lookup", r#","defer_loading":null"#)
        ),
        Some("{p}tools[0].defer_loading"),
        "Invalid type for '{p}tools[0].defer_loading': expected a boolean, but got null instead.",
    );
    let saved = create_ok(&format!(
        r#"{{"model":"m","tools":[{},{}]}}"#,
        lookup("a", ""),
        lookup("b", r#","defer_loading":true"#)
    ));
    let deferred: Vec<bool> = saved
        .tools
        .iter()
        .map(|t| match t {
            Tool::Function(f) => f.defer_loading,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(deferred, [false, true]);
}

#[test]
fn unknown_members_such_as_strict() {
    assert_each_form(
        &format!(r#""tools":[{}]"#, lookup("lookup", r#","strict":true"#)),
        Some("{p}tools[0].strict"),
        "Unknown parameter: '{p}tools[0].strict'.",
    );
}

#[test]
fn names_are_nonblank() {
    for blank in ["", " ", "\t\n", "\u{3000}\u{a0}", "\u{feff}", "\u{85}"] {
        let fields = format!(
            r#""tools":[{{"type":"function","name":{},"description":"","parameters":{{}}}}]"#,
            serde_json::json!(blank)
        );
        assert_each_form(
            &fields,
            Some("{p}tools[0].name"),
            "Invalid '{p}tools[0].name': blank string. Expected a function name with at least one non-whitespace character.",
        );
    }
}

#[test]
fn any_other_name_is_kept() {
    let long = "n".repeat(65);
    assert_each_form_ok(&format!(
        r#""tools":[{},{},{}]"#,
        lookup("bad name!", ""),
        lookup(&long, ""),
        lookup(" padded ", "")
    ));
}

#[test]
fn async_is_resource_data() {
    assert_each_form_ok(&format!(
        r#""tools":[{},{}]"#,
        lookup("a", r#","async":true"#),
        lookup("b", r#","async":null"#)
    ));
}

#[test]
fn schemas_without_an_explicit_string_root_type_are_kept() {
    for parameters in [
        r#"{}"#,
        r#"{"properties":{}}"#,
        r#"{"type":["object","null"]}"#,
        r#"{"type":"object","Type":"string"}"#,
    ] {
        assert_each_form_ok(&format!(
            r#""tools":[{{"type":"function","name":"x","description":"","parameters":{parameters}}}]"#
        ));
    }
}
