//! `{"type": "web_search"}`: validation and the saved values (the defaults are in `defaults`).

use crate::common::{assert_each_form, assert_each_form_ok};

#[test]
fn modes_and_context_sizes() {
    assert_each_form(
        r#""tools":[{"type":"web_search","mode":"bogus"}]"#,
        Some("{p}tools[0].mode"),
        "Invalid value: 'bogus'. Supported values are: 'disabled', 'cached', and 'live'.",
    );
    assert_each_form(
        r#""tools":[{"type":"web_search","mode":"disabled","context_size":"huge"}]"#,
        Some("{p}tools[0].context_size"),
        "Invalid value: 'huge'. Supported values are: 'low', 'medium', and 'high'.",
    );
    assert_each_form(
        r#""tools":[{"type":"web_search","mode":1}]"#,
        Some("{p}tools[0].mode"),
        "Invalid type for '{p}tools[0].mode': expected a string, but got an integer instead.",
    );
    for mode in ["disabled", "cached", "live"] {
        assert_each_form_ok(&format!(
            r#""tools":[{{"type":"web_search","mode":"{mode}"}}]"#
        ));
    }
    assert_each_form_ok(r#""tools":[{"type":"web_search","mode":null,"context_size":null}]"#);
}

#[test]
fn settings() {
    assert_each_form_ok(
        r#""tools":[{"type":"web_search","mode":"disabled","context_size":null,"allowed_domains":[],"location":{"city":null}}]"#,
    );
    assert_each_form(
        r#""tools":[{"type":"web_search","mode":"disabled","allowed_domains":[null]}]"#,
        Some("{p}tools[0].allowed_domains[0]"),
        "Invalid type for '{p}tools[0].allowed_domains[0]': expected a string, but got null instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"web_search","allowed_domains":"example.com"}]"#,
        Some("{p}tools[0].allowed_domains"),
        "Invalid type for '{p}tools[0].allowed_domains': expected an array, but got a string instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"tool_search"},{"type":"web_search","mode":"disabled","location":{"extra":true}}]"#,
        Some("{p}tools[1].location.extra"),
        "Unknown parameter: '{p}tools[1].location.extra'.",
    );
    assert_each_form(
        r#""tools":[{"type":"web_search","location":{"country":3}}]"#,
        Some("{p}tools[0].location.country"),
        "Invalid type for '{p}tools[0].location.country': expected a string, but got an integer instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"web_search","location":[]}]"#,
        Some("{p}tools[0].location"),
        "Invalid type for '{p}tools[0].location': expected an object, but got an array instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"web_search","mode":"disabled","Location":{}}]"#,
        Some("{p}tools[0].Location"),
        "Unknown parameter: '{p}tools[0].Location'.",
    );
}

#[test]
fn one_web_search_at_most() {
    assert_each_form(
        r#""tools":[{"type":"web_search","mode":"disabled"},{"type":"web_search","mode":"disabled"}]"#,
        None,
        "duplicate web_search tool",
    );
}
