//! The `tools` array and its tagged union: element kinds, the `type` tag, the small controls.

use crate::common::{assert_each_form, assert_each_form_ok};

const TYPES: &str = "'function', 'tool_search', 'programmatic_tool_calling', 'mcp', 'web_search', 'computer_use', and 'automations'.";

#[test]
fn tools_is_an_array_of_objects() {
    assert_each_form(
        r#""tools":{}"#,
        Some("{p}tools"),
        "Invalid type for '{p}tools': expected an array, but got an object instead.",
    );
    assert_each_form(
        r#""tools":["lookup"]"#,
        Some("{p}tools[0]"),
        "Invalid type for '{p}tools[0]': expected an object, but got a string instead.",
    );
    assert_each_form(
        r#""tools":[null]"#,
        Some("{p}tools[0]"),
        "Invalid type for '{p}tools[0]': expected an object, but got null instead.",
    );
    assert_each_form_ok(r#""tools":null"#);
    assert_each_form_ok(r#""tools":[]"#);
}

#[test]
fn the_type_tag() {
    assert_each_form(
        r#""tools":[{}]"#,
        Some("{p}tools[0].type"),
        "Missing required parameter: '{p}tools[0].type'.",
    );
    assert_each_form(
        r#""tools":[{"type":null}]"#,
        Some("{p}tools[0].type"),
        "Invalid type for '{p}tools[0].type': expected a string, but got null instead.",
    );
    for bogus in ["code_interpreter", "bogus_tool", "Function"] {
        assert_each_form(
            &format!(r#""tools":[{{"type":"{bogus}"}}]"#),
            Some("{p}tools[0].type"),
            &format!("Invalid value: '{bogus}'. Supported values are: {TYPES}"),
        );
    }
    // A value that cannot be echoed is dropped; the param stays.
    assert_each_form(
        r#""tools":[{"type":"line\u2028break"}]"#,
        Some("{p}tools[0].type"),
        &format!("Invalid value. Supported values are: {TYPES}"),
    );
}

#[test]
fn the_tag_is_checked_before_unknown_members() {
    assert_each_form(
        r#""tools":[{"max_results":3}]"#,
        Some("{p}tools[0].type"),
        "Missing required parameter: '{p}tools[0].type'.",
    );
}

#[test]
fn tool_search_has_only_type() {
    assert_each_form_ok(r#""tools":[{"type":"tool_search"}]"#);
    for member in ["max_results", "execution", "description", "Type"] {
        assert_each_form(
            &format!(
                r#""tools":[{{"type":"function","name":"f","description":"","parameters":{{}}}},{{"type":"tool_search","{member}":1}}]"#
            ),
            Some(&format!("{{p}}tools[1].{member}")),
            &format!("Unknown parameter: '{{p}}tools[1].{member}'."),
        );
    }
}

#[test]
fn programmatic_tool_calling() {
    assert_each_form_ok(r#""tools":[{"type":"programmatic_tool_calling"}]"#);
    assert_each_form_ok(r#""tools":[{"type":"programmatic_tool_calling","enabled":false}]"#);
    assert_each_form(
        r#""tools":[{"type":"programmatic_tool_calling","enabled":"yes"}]"#,
        Some("{p}tools[0].enabled"),
        "Invalid type for '{p}tools[0].enabled': expected a boolean, but got a string instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"programmatic_tool_calling","enabled":null}]"#,
        Some("{p}tools[0].enabled"),
        "Invalid type for '{p}tools[0].enabled': expected a boolean, but got null instead.",
    );
    // Repeated controls are saved; distinct controls are an admission rule.
    assert_each_form_ok(
        r#""tools":[{"type":"programmatic_tool_calling"},{"type":"programmatic_tool_calling"}]"#,
    );
}

#[test]
fn computer_use_and_automations_are_resource_data() {
    assert_each_form_ok(
        r#""tools":[{"type":"computer_use"},{"type":"computer_use","include_screenshots":true},{"type":"automations"}]"#,
    );
    assert_each_form(
        r#""tools":[{"type":"computer_use","include_screenshots":null}]"#,
        Some("{p}tools[0].include_screenshots"),
        "Invalid type for '{p}tools[0].include_screenshots': expected a boolean, but got null instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"automations","x":1}]"#,
        Some("{p}tools[0].x"),
        "Unknown parameter: '{p}tools[0].x'.",
    );
}

#[test]
fn the_list_fits_in_three_mebibytes() {
    // One function whose description brings the compact list just over 3 MiB.
    let skeleton = r#"[{"type":"function","name":"f","description":"","parameters":{}}]"#;
    let description = "d".repeat(3 * 1024 * 1024 - skeleton.len() + 1);
    let fields = format!(
        r#""tools":[{{"type":"function","name":"f","description":"{description}","parameters":{{}}}}]"#
    );
    assert_each_form(
        &fields,
        Some("{p}tools"),
        "Invalid '{p}tools': array too large. Expected at most 3145728 bytes of compact JSON, but got 3145729 bytes instead.",
    );
    let fits = format!(
        r#""tools":[{{"type":"function","name":"f","description":"{}","parameters":{{}}}}]"#,
        &description[1..]
    );
    assert_each_form_ok(&fits);
}
