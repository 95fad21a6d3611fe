//! Whole-body conflicts (param null) and the order in which violations are reported.

use crate::common::{assert_each_form, assert_each_form_ok, lookup};

#[test]
fn duplicates() {
    assert_each_form(
        &format!(
            r#""tools":[{},{}]"#,
            lookup("lookup", ""),
            r#"{"type":"function","name":"lookup","description":"Second.","parameters":{"type":"object"}}"#
        ),
        None,
        "duplicate function tool name: lookup",
    );
    assert_each_form(
        r#""tools":[{"type":"tool_search"},{"type":"tool_search"}]"#,
        None,
        "duplicate tool_search tool",
    );
    assert_each_form(
        r#""tools":[{"type":"web_search"},{"type":"tool_search"},{"type":"web_search","mode":"cached"}]"#,
        None,
        "duplicate web_search tool",
    );
    // Names compare exactly.
    assert_each_form_ok(&format!(
        r#""tools":[{},{}]"#,
        lookup("Lookup", ""),
        lookup("lookup", "")
    ));
    // A name that cannot be echoed is dropped.
    let long = "<".repeat(257);
    assert_each_form(
        &format!(r#""tools":[{},{}]"#, lookup(&long, ""), lookup(&long, "")),
        None,
        "duplicate function tool name",
    );
}

#[test]
fn function_schema_roots() {
    assert_each_form(
        r#""tools":[{"type":"function","name":"lookup","description":"Look up a value.","parameters":{"type":"string"}}]"#,
        None,
        r#"Invalid schema for function 'lookup': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'."#,
    );
    let long = "<".repeat(257);
    assert_each_form(
        &format!(
            r#""tools":[{{"type":"function","name":"{long}","description":"","parameters":{{"type":"string"}}}}]"#
        ),
        None,
        r#"Invalid schema for function: schema must be a JSON Schema of 'type: "object"', got 'type: "string"'."#,
    );
    assert_each_form(
        &format!(
            r#""tools":[{{"type":"function","name":"lookup","description":"","parameters":{{"type":"{long}"}}}}]"#
        ),
        None,
        r#"Invalid schema for function 'lookup': schema must be a JSON Schema of 'type: "object"'."#,
    );
}

#[test]
fn structure_comes_before_conflicts() {
    assert_each_form(
        r#""tools":[{"type":"tool_search"},{"type":"tool_search"},{"type":"bogus"}]"#,
        Some("{p}tools[2].type"),
        "Invalid value: 'bogus'. Supported values are: 'function', 'tool_search', 'programmatic_tool_calling', 'mcp', 'web_search', 'computer_use', and 'automations'.",
    );
    // Conflicts wait for every other member of the body, in any position.
    assert_each_form(
        r#""tools":[{"type":"tool_search"},{"type":"tool_search"}],"reasoning":{"effort":"extreme"}"#,
        Some("{p}reasoning.effort"),
        "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.",
    );
}

#[test]
fn duplicates_come_before_schema_roots_and_tools_before_text() {
    assert_each_form(
        &format!(
            r#""tools":[{{"type":"function","name":"a","description":"","parameters":{{"type":"null"}}}},{}]"#,
            lookup("a", "")
        ),
        None,
        "duplicate function tool name: a",
    );
    assert_each_form(
        &format!(
            r#""tools":[{{"type":"tool_search"}},{},{{"type":"function","name":"b","description":"","parameters":{{"type":"null"}}}}]"#,
            lookup("a", "")
        ),
        None,
        r#"Invalid schema for function 'b': schema must be a JSON Schema of 'type: "object"', got 'type: "null"'."#,
    );
    assert_each_form(
        r#""text":{"format":{"type":"json_schema","schema":{"type":"array"}}},"tools":[{"type":"function","name":"f","description":"","parameters":{"type":"string"}}]"#,
        None,
        r#"Invalid schema for function 'f': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'."#,
    );
}

#[test]
fn tools_are_validated_before_text_whatever_the_document_order() {
    assert_each_form(
        r#""text":{"verbosity":"verbose"},"tools":[{"type":"bogus"}]"#,
        Some("{p}tools[0].type"),
        "Invalid value: 'bogus'. Supported values are: 'function', 'tool_search', 'programmatic_tool_calling', 'mcp', 'web_search', 'computer_use', and 'automations'.",
    );
    // Other members keep document order around them.
    assert_each_form(
        r#""reasoning":{"effort":"x"},"text":{"verbosity":"verbose"},"tools":[{"type":"bogus"}]"#,
        Some("{p}reasoning.effort"),
        "Invalid value: 'x'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.",
    );
}

#[test]
fn unknown_members_come_before_values() {
    assert_each_form(
        r#""reasoning":{"effort":"bogus"},"tool_choice":"auto""#,
        Some("{p}tool_choice"),
        "Unknown parameter: '{p}tool_choice'.",
    );
    assert_each_form(
        r#""Text":{}"#,
        Some("{p}Text"),
        "Unknown parameter: '{p}Text'.",
    );
    assert_each_form(
        r#""reasoning":{"effort":"high","EFFORT":"max"}"#,
        Some("{p}reasoning.EFFORT"),
        "Unknown parameter: '{p}reasoning.EFFORT'.",
    );
}

#[test]
fn unechoable_unknown_members_have_a_null_param() {
    let long = "<".repeat(257);
    assert_each_form(&format!(r#""{long}":1"#), None, "Unknown parameter.");
    assert_each_form(
        r#""tools":[{"type":"tool_search","tab\tkey":1}]"#,
        None,
        "Unknown parameter.",
    );
    assert_each_form(
        r#""tools":[{"type":"tool_search","\ufffd":1}]"#,
        None,
        "Unknown parameter.",
    );
    let pairs = "<>".repeat(64);
    assert_each_form(
        &format!(r#""tools":[{{"type":"tool_search","{pairs}":1}}]"#),
        Some(&format!("{{p}}tools[0].{pairs}")),
        &format!("Unknown parameter: '{{p}}tools[0].{pairs}'."),
    );
}
