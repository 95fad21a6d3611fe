//! Shared helpers: bodies from JSON text (numbers kept exactly) and the three agent forms.

use serde_json::{Map, Value};
use switchboard_execution::{
    AgentConfig, ValidationError, parse_agent_create, parse_agent_update, parse_inline_agent,
};

/// Parses JSON text, keeping every number's decimal text.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("test JSON {text}: {e}"))
}

pub fn object(text: &str) -> Map<String, Value> {
    match json(text) {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

pub fn create(text: &str) -> Result<AgentConfig, ValidationError> {
    parse_agent_create(&object(text))
}

pub fn create_ok(text: &str) -> AgentConfig {
    create(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

#[track_caller]
pub fn assert_error(
    result: Result<impl std::fmt::Debug, ValidationError>,
    param: Option<&str>,
    message: &str,
) {
    match result {
        Ok(v) => panic!("expected {message:?}, got Ok({v:?})"),
        Err(e) => {
            assert_eq!(e.message, message);
            assert_eq!(e.param.as_deref(), param, "param of {message:?}");
        }
    }
}

/// The three agent forms for `fields` (the members of the body, without braces).
pub fn each_form(fields: &str) -> [(&'static str, Result<(), ValidationError>); 3] {
    let with_model = if fields.is_empty() {
        r#"{"model":"m"}"#.to_string()
    } else {
        format!(r#"{{"model":"m",{fields}}}"#)
    };
    [
        ("", parse_agent_create(&object(&with_model)).map(drop)),
        (
            "",
            parse_agent_update(&object(&format!("{{{fields}}}"))).map(drop),
        ),
        (
            "agent.",
            parse_inline_agent(&json(&with_model), "agent").map(drop),
        ),
    ]
}

/// Asserts the same error (with `{p}` as the path prefix) on all three forms.
#[track_caller]
pub fn assert_each_form(fields: &str, param: Option<&str>, message: &str) {
    for (prefix, result) in each_form(fields) {
        let param = param.map(|p| p.replace("{p}", prefix));
        let message = message.replace("{p}", prefix);
        match result {
            Ok(()) => panic!("{fields}: expected {message:?} (prefix {prefix:?}), got Ok"),
            Err(e) => {
                assert_eq!(e.message, message, "{fields} (prefix {prefix:?})");
                assert_eq!(e.param, param, "{fields} (prefix {prefix:?})");
            }
        }
    }
}

/// Asserts that all three forms accept `fields`.
#[track_caller]
pub fn assert_each_form_ok(fields: &str) {
    for (prefix, result) in each_form(fields) {
        if let Err(e) = result {
            panic!("{fields} (prefix {prefix:?}): {e:?}");
        }
    }
}

/// A minimal valid function declaration.
pub fn lookup(name: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"function","name":"{name}","description":"Look up a value.","parameters":{{"type":"object","properties":{{"q":{{"type":"string"}}}},"required":["q"]}}{extra}}}"#
    )
}
