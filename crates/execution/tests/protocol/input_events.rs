//! Input events bodies: the batch, the three event types, and the tool result's retry identity.

use crate::common::{assert_error, object};
use serde_json::json as j;
use switchboard_execution::{
    InputEvent, InputMessage, InputPart, ToolOutput, ToolResultEvent, ValidationError,
    parse_input_events,
};

fn events(text: &str) -> Result<Vec<InputEvent>, ValidationError> {
    parse_input_events(&object(text))
}

fn events_ok(text: &str) -> Vec<InputEvent> {
    events(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

fn one(event: &str) -> Result<Vec<InputEvent>, ValidationError> {
    events(&format!(r#"{{"events":[{event}]}}"#))
}

fn tool_result(event: &str) -> ToolResultEvent {
    match one(event)
        .unwrap_or_else(|e| panic!("{event}: {e:?}"))
        .pop()
    {
        Some(InputEvent::ToolResult(result)) => result,
        other => panic!("not a tool result: {other:?}"),
    }
}

const RESULT: &str = r#""type":"agent.session.input.tool_result","turn_id":"turn_1","call_id":"call_1","success":true"#;

#[test]
fn the_batch_is_a_required_array_of_at_most_64() {
    assert_error(
        events("{}"),
        Some("events"),
        "Missing required parameter: 'events'.",
    );
    assert_error(
        events(r#"{"events":null}"#),
        Some("events"),
        "Invalid type for 'events': expected an array, but got null instead.",
    );
    assert_error(
        events(r#"{"events":[],"idempotency_key":"k"}"#),
        Some("idempotency_key"),
        "Unknown parameter: 'idempotency_key'.",
    );
    assert_eq!(events_ok(r#"{"events":[]}"#), []);
    let cancel = r#"{"type":"agent.session.input.cancel"}"#;
    let batch = |n: usize| format!(r#"{{"events":[{}]}}"#, vec![cancel; n].join(","));
    assert_eq!(events_ok(&batch(64)).len(), 64);
    let e = events(&batch(65)).unwrap_err();
    assert_eq!(
        (e.param.as_deref(), e.message.as_str(), e.code.code()),
        (
            Some("events"),
            "Invalid 'events': array too long. Expected an array with maximum length 64, but got an array with length 65 instead.",
            Some("invalid_value")
        )
    );
    // The length is checked before the elements.
    let bad = batch(65).replace("input.cancel", "input.nope");
    assert_error(
        events(&bad),
        Some("events"),
        "Invalid 'events': array too long. Expected an array with maximum length 64, but got an array with length 65 instead.",
    );
}

#[test]
fn events_are_tagged_by_type() {
    assert_error(
        one("1"),
        Some("events[0]"),
        "Invalid type for 'events[0]': expected an object, but got an integer instead.",
    );
    assert_error(
        one(r#"{"input":"x"}"#),
        Some("events[0].type"),
        "Missing required parameter: 'events[0].type'.",
    );
    assert_error(
        one(r#"{"type":"agent.session.input.mcp_approval_request_result","request_id":"r"}"#),
        Some("events[0].type"),
        "Invalid value: 'agent.session.input.mcp_approval_request_result'. Supported values are: 'agent.session.input.message', 'agent.session.input.cancel', and 'agent.session.input.tool_result'.",
    );
    assert_error(
        events(
            r#"{"events":[{"type":"agent.session.input.cancel"},{"type":"agent.session.input.cancel","turn_id":"t"}]}"#,
        ),
        Some("events[1].turn_id"),
        "Unknown parameter: 'events[1].turn_id'.",
    );
}

#[test]
fn messages_take_the_session_create_input_forms() {
    let got = events_ok(
        r#"{"events":[{"type":"agent.session.input.message","input":"hi"},
            {"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:x"}]}]},
            {"type":"agent.session.input.cancel"}]}"#,
    );
    assert_eq!(
        got,
        [
            InputEvent::Message {
                input: vec![InputMessage {
                    content: vec![InputPart::InputText { text: "hi".into() }]
                }]
            },
            InputEvent::Message {
                input: vec![InputMessage {
                    content: vec![InputPart::InputImage {
                        image_url: "data:x".into()
                    }]
                }]
            },
            InputEvent::Cancel,
        ]
    );
    assert_error(
        one(r#"{"type":"agent.session.input.message"}"#),
        Some("events[0].input"),
        "Missing required parameter: 'events[0].input'.",
    );
    assert_error(
        one(r#"{"type":"agent.session.input.message","input":[{"role":"system","content":"x"}]}"#),
        Some("events[0].input[0].role"),
        "Invalid value: 'system'. Supported values are: 'user'.",
    );
    assert_error(
        one(r#"{"type":"agent.session.input.message","input":[]}"#),
        Some("events[0].input"),
        "Invalid 'events[0].input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    );
}

#[test]
fn a_tool_result_needs_turn_call_and_success() {
    let r = tool_result(&format!("{{{RESULT}}}"));
    assert_eq!(
        (r.turn_id.as_str(), r.call_id.as_str(), r.success),
        ("turn_1", "call_1", true)
    );
    assert_eq!((&r.output, &r.error), (&None, &None));
    assert!(!r.output_present && !r.error_present);
    assert_eq!(r.public_output(), j!(null));

    let without = |member: &str| {
        let fields: Vec<&str> = RESULT
            .split(',')
            .filter(|f| !f.starts_with(&format!("\"{member}\"")))
            .collect();
        one(&format!("{{{}}}", fields.join(",")))
    };
    for member in ["turn_id", "call_id", "success"] {
        assert_error(
            without(member),
            Some(&format!("events[0].{member}")),
            &format!("Missing required parameter: 'events[0].{member}'."),
        );
    }
    assert_error(
        one(&format!(r#"{{{RESULT},"name":"lookup"}}"#)),
        Some("events[0].name"),
        "Unknown parameter: 'events[0].name'.",
    );
    assert_error(
        one(
            r#"{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":"true"}"#,
        ),
        Some("events[0].success"),
        "Invalid type for 'events[0].success': expected a boolean, but got a string instead.",
    );
    assert_error(
        one(
            r#"{"type":"agent.session.input.tool_result","turn_id":null,"call_id":"c","success":true}"#,
        ),
        Some("events[0].turn_id"),
        "Invalid type for 'events[0].turn_id': expected a string, but got null instead.",
    );
}

#[test]
fn an_empty_turn_id_or_blank_call_id_is_a_generic_error() {
    let e = one(
        r#"{"type":"agent.session.input.tool_result","turn_id":"","call_id":"c","success":true}"#,
    )
    .unwrap_err();
    assert_eq!(
        (e.param.as_deref(), e.message.as_str(), e.code.code()),
        (
            Some("events[0].turn_id"),
            "Invalid 'events[0].turn_id': empty string. Expected a string with minimum length 1, but got an empty string instead.",
            Some("invalid_request_error")
        )
    );
    for call_id in ["", " ", "\\t\\n", "\\u00a0\\u0085\\ufeff\\u3000"] {
        let e = one(&format!(
            r#"{{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"{call_id}","success":true}}"#
        ))
        .unwrap_err();
        assert_eq!(
            (e.param.as_deref(), e.message.as_str(), e.code.code()),
            (
                Some("events[0].call_id"),
                "Invalid 'events[0].call_id': blank string. Expected a call ID with at least one non-whitespace character.",
                Some("invalid_request_error")
            ),
            "{call_id:?}"
        );
    }
    // A whitespace-only turn_id is not empty: the Session decides whether it names the Turn.
    assert_eq!(
        tool_result(r#"{"type":"agent.session.input.tool_result","turn_id":" ","call_id":"c","success":true}"#)
            .turn_id,
        " "
    );
}

#[test]
fn output_is_text_or_parts_and_error_is_text_both_nullable() {
    let r = tool_result(&format!(r#"{{{RESULT},"output":"{{\"temp\":20}}"}}"#));
    assert_eq!(r.output, Some(ToolOutput::Text(r#"{"temp":20}"#.into())));
    assert_eq!(r.public_output(), j!(r#"{"temp":20}"#));

    let r = tool_result(&format!(
        r#"{{{RESULT},"output":[{{"text":"a","type":"input_text"}},{{"type":"input_image","image_url":"data:i"}}]}}"#
    ));
    assert_eq!(
        r.output,
        Some(ToolOutput::Parts(vec![
            InputPart::InputText { text: "a".into() },
            InputPart::InputImage {
                image_url: "data:i".into()
            }
        ]))
    );
    // The parts are echoed as sent, member order included.
    assert_eq!(
        serde_json::to_string(&r.public_output()).unwrap(),
        r#"[{"text":"a","type":"input_text"},{"type":"input_image","image_url":"data:i"}]"#
    );

    let r = tool_result(&format!(r#"{{{RESULT},"output":[]}}"#));
    assert_eq!(r.output, Some(ToolOutput::Parts(vec![])));

    let r = tool_result(&format!(r#"{{{RESULT},"output":null,"error":null}}"#));
    assert_eq!((&r.output, &r.error), (&None, &None));
    assert!(r.output_present && r.error_present);
    assert_eq!(r.public_output(), j!(null));

    let r = tool_result(
        r#"{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":false,"error":"Tool handler failed."}"#,
    );
    assert_eq!(r.error.as_deref(), Some("Tool handler failed."));
    assert!(!r.success && !r.output_present);

    let cases = [
        (
            r#""output":5"#,
            "events[0].output",
            "Invalid type for 'events[0].output': expected a string or an array, but got an integer instead.",
        ),
        (
            r#""output":[{"type":"input_file","file_id":"f"}]"#,
            "events[0].output[0].type",
            "Invalid value: 'input_file'. Supported values are: 'input_text' and 'input_image'.",
        ),
        (
            r#""output":[{"type":"input_text"}]"#,
            "events[0].output[0].text",
            "Missing required parameter: 'events[0].output[0].text'.",
        ),
        (
            r#""error":{"message":"x"}"#,
            "events[0].error",
            "Invalid type for 'events[0].error': expected a string, but got an object instead.",
        ),
    ];
    for (field, param, message) in cases {
        assert_error(one(&format!("{{{RESULT},{field}}}")), Some(param), message);
    }
}

#[test]
fn the_submission_is_the_event_as_received() {
    let event = r#"{"success":true,"output":"{\"n\":1.50}","call_id":"call_1","type":"agent.session.input.tool_result","turn_id":"turn_1","error":null}"#;
    let spaced = r#"{ "success" : true, "output": "{\"n\":1.50}",
        "call_id":"call_1", "type":"agent.session.input.tool_result", "turn_id":"turn_1", "error": null }"#;
    let r = tool_result(spaced);
    assert_eq!(r.submission, event);
    // Different spelling of the same result is a different submission.
    let other = tool_result(&format!(r#"{{{RESULT},"output":"{{\"n\":1.5}}"}}"#));
    assert_ne!(other.submission, r.submission);
}
