//! JSON numbers survive parsing exactly as sent: schemas are stored and forwarded unchanged.
//!
//! serde_json's `arbitrary_precision` keeps each number's decimal text (`1.000`,
//! `12345678901234567890123`, `0.60`). One spelling is normalized: an exponent is written as
//! `e+N`/`e-N`, so `1E2` comes back as `1e+2`, with the same digits and value.

use crate::common::{create_ok, json};
use switchboard_execution::public::agent_public_fields;
use switchboard_execution::{AgentConfig, binary64_lossless, parse_inline_agent};

const SCHEMA: &str = r#"{"type":"object","properties":{"n":{"maximum":1.000,"x":12345678901234567890123,"c":9007199254740993,"m":-0.0,"f":0.60}}}"#;

/// Guard: if the workspace ever loses `arbitrary_precision`, this fails first.
#[test]
fn serde_json_keeps_decimal_text() {
    assert_eq!(
        serde_json::from_str::<serde_json::Value>("0.60")
            .unwrap()
            .to_string(),
        "0.60"
    );
}

#[test]
fn function_parameters_round_trip_unchanged() {
    let saved = create_ok(&format!(
        r#"{{"model":"m","tools":[{{"type":"function","name":"f","description":"","parameters":{SCHEMA}}}]}}"#
    ));
    let tools = serde_json::to_string(&agent_public_fields(&saved)["tools"]).unwrap();
    assert!(
        tools.contains(&format!(r#""parameters":{SCHEMA}"#)),
        "{tools}"
    );
}

#[test]
fn output_schemas_round_trip_unchanged() {
    let inline = parse_inline_agent(
        &json(&format!(
            r#"{{"text":{{"format":{{"type":"json_schema","schema":{SCHEMA}}}}}}}"#
        )),
        "agent",
    )
    .unwrap();
    let text = serde_json::to_string(&inline.text.unwrap()).unwrap();
    assert_eq!(
        text,
        format!(r#"{{"format":{{"type":"json_schema","schema":{SCHEMA}}},"verbosity":"medium"}}"#)
    );
}

#[test]
fn exponent_spelling_is_normalized_but_digits_are_kept() {
    let saved = create_ok(
        r#"{"model":"m","tools":[{"type":"function","name":"f","description":"","parameters":{"maximum":1E2,"minimum":2.50e-3}}]}"#,
    );
    let tools = serde_json::to_string(&agent_public_fields(&saved)["tools"]).unwrap();
    assert!(
        tools.contains(r#""parameters":{"maximum":1e+2,"minimum":2.50e-3}"#),
        "{tools}"
    );
}

#[test]
fn the_stored_form_round_trips_unchanged() {
    // The store keeps AgentConfig as serde JSON text; numbers inside the internally tagged
    // tool and text enums must come back with their text.
    let saved = create_ok(&format!(
        r#"{{"model":"m","tools":[{{"type":"function","name":"f","description":"","parameters":{SCHEMA}}}],"text":{{"format":{{"type":"json_schema","schema":{SCHEMA}}}}}}}"#
    ));
    let stored = serde_json::to_string(&saved).unwrap();
    let loaded: AgentConfig = serde_json::from_str(&stored).unwrap();
    assert_eq!(serde_json::to_string(&loaded).unwrap(), stored);
    assert_eq!(loaded, saved);
}

#[test]
fn saved_agents_keep_schemas_a_binary64_reader_would_change() {
    let saved = create_ok(&format!(
        r#"{{"model":"m","text":{{"format":{{"type":"json_schema","schema":{SCHEMA}}}}}}}"#
    ));
    let switchboard_execution::TextFormat::JsonSchema { schema } = &saved.text.format else {
        panic!()
    };
    // Saved unchanged; only Session admission for a binary64 harness would reject it.
    assert!(!binary64_lossless(schema));
    assert!(binary64_lossless(&json(
        r#"{"type":"object","properties":{"n":{"maximum":0.1,"minimum":-0}}}"#
    )));
}
