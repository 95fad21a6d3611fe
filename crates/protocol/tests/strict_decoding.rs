//! Core → Runtime frames are decoded strictly: unknown types and unknown members at any depth
//! reject the frame with a precise error.

use switchboard_protocol::envelope::DecodeError;
use switchboard_protocol::{CoreToRuntime, Envelope, RuntimeToCore};

fn decode(text: &str) -> Result<Envelope<CoreToRuntime>, DecodeError> {
    Envelope::<CoreToRuntime>::from_json(text)
}

const PREPARE: &str = r#"{"type":"execution_prepare","id":"s1","payload":{"session_id":"s1","configuration":{
  "harness":"codex","model":"m","instructions":null,
  "model_provider":{"protocol":"responses","base_url":"http://x/v1","api_key":"k","context_window":null,"max_output_tokens":null},
  "function_tools":[{"name":"f","description":"d","parameters":{"type":"object","x-extra":{"deep":1}},"defer_loading":false}],
  "tool_search":false,
  "execution_controls":{"web_search":{"mode":"cached","context_size":"medium","allowed_domains":null,"location":{"city":null,"country":"FR","region":null,"timezone":null}}},
  "mcp_servers":[],"harness_config":null}}}"#;

#[test]
fn a_valid_prepare_decodes() {
    let envelope = decode(PREPARE).unwrap();
    assert_eq!(envelope.id.as_deref(), Some("s1"));
    assert!(matches!(
        envelope.message,
        CoreToRuntime::ExecutionPrepare(_)
    ));
}

#[test]
fn unknown_type_is_rejected() {
    let err = decode(r#"{"type":"execution_teleport","id":"x","payload":{}}"#).unwrap_err();
    assert_eq!(err, DecodeError::UnknownType("execution_teleport".into()));
    assert_eq!(err.code(), "unknown_type");
    // A Runtime → Core type is not a Core → Runtime message.
    let err = decode(r#"{"type":"heartbeat","payload":{"supported_harnesses":[]}}"#).unwrap_err();
    assert!(matches!(err, DecodeError::UnknownType(_)));
}

#[test]
fn unknown_envelope_member_is_rejected() {
    let err = decode(r#"{"type":"prompt_cancel","id":"r","payload":{},"trace":{}}"#).unwrap_err();
    assert!(matches!(err, DecodeError::Frame(_)), "{err}");
}

#[test]
fn unknown_member_at_every_depth_is_rejected() {
    let cases = [
        // payload
        PREPARE.replace(r#""session_id":"s1","#, r#""session_id":"s1","extra":1,"#),
        // configuration
        PREPARE.replace(
            r#""tool_search":false,"#,
            r#""tool_search":false,"extra":1,"#,
        ),
        // model_provider
        PREPARE.replace(r#""api_key":"k","#, r#""api_key":"k","extra":1,"#),
        // function tool
        PREPARE.replace(
            r#""defer_loading":false"#,
            r#""defer_loading":false,"extra":1"#,
        ),
        // execution_controls
        PREPARE.replace(
            r#""execution_controls":{"#,
            r#""execution_controls":{"extra":1,"#,
        ),
        // web_search
        PREPARE.replace(r#""mode":"cached","#, r#""mode":"cached","extra":1,"#),
        // location
        PREPARE.replace(r#""country":"FR","#, r#""country":"FR","extra":1,"#),
    ];
    for case in cases {
        assert_ne!(case, PREPARE);
        let err = decode(&case).unwrap_err();
        assert!(
            matches!(&err, DecodeError::Payload { type_name, detail } if type_name == "execution_prepare" && detail.contains("unknown field")),
            "{err}"
        );
    }
    // Inside a JSON Schema, any member is data, not protocol.
    assert!(PREPARE.contains("x-extra"));
}

#[test]
fn unknown_member_in_input_parts_and_results_is_rejected() {
    let start = r#"{"type":"execution_start","id":"r","payload":{"session_id":"s","run_id":"r","turn_id":"t","input":[{"type":"input_text","text":"a","extra":1}]}}"#;
    assert!(matches!(
        decode(start).unwrap_err(),
        DecodeError::Payload { .. }
    ));
    let result = r#"{"type":"function_result","id":"r","payload":{"delivery_id":"d","call_id":"c","success":true,"output":[{"type":"input_image","image_url":"u","detail":"high"}],"error":null}}"#;
    assert!(matches!(
        decode(result).unwrap_err(),
        DecodeError::Payload { .. }
    ));
    let cancel = r#"{"type":"prompt_cancel","id":"r","payload":{"delivery_id":"x"}}"#;
    assert!(matches!(
        decode(cancel).unwrap_err(),
        DecodeError::Payload { .. }
    ));
}

#[test]
fn unknown_enum_values_are_rejected() {
    let bad_mode = PREPARE.replace(r#""mode":"cached""#, r#""mode":"indexed""#);
    assert!(matches!(
        decode(&bad_mode).unwrap_err(),
        DecodeError::Payload { .. }
    ));
    let bad_harness = PREPARE.replace(r#""harness":"codex""#, r#""harness":"gemini""#);
    assert!(matches!(
        decode(&bad_harness).unwrap_err(),
        DecodeError::Payload { .. }
    ));
}

#[test]
fn missing_required_member_is_rejected() {
    let no_success = r#"{"type":"function_result","id":"r","payload":{"delivery_id":"d","call_id":"c","output":null,"error":null}}"#;
    assert!(matches!(
        decode(no_success).unwrap_err(),
        DecodeError::Payload { .. }
    ));
}

#[test]
fn heartbeat_capabilities_are_all_required_and_closed() {
    let mut caps: serde_json::Map<String, serde_json::Value> = serde_json::from_value(
        serde_json::to_value(switchboard_protocol::Capabilities::default()).unwrap(),
    )
    .unwrap();
    let frame = |caps: &serde_json::Map<String, serde_json::Value>| {
        format!(
            r#"{{"type":"heartbeat","payload":{{"supported_harnesses":[{{"harness":"codex","available":true,"version":"0.171.0","state":{{"status":"available"}},"capabilities":{}}}]}}}}"#,
            serde_json::Value::Object(caps.clone())
        )
    };
    assert!(Envelope::<RuntimeToCore>::from_json(&frame(&caps)).is_ok());
    caps.insert("teleport".into(), true.into());
    assert!(Envelope::<RuntimeToCore>::from_json(&frame(&caps)).is_err());
    caps.remove("teleport");
    caps.remove("streaming");
    assert!(Envelope::<RuntimeToCore>::from_json(&frame(&caps)).is_err());
    caps.insert("streaming".into(), serde_json::Value::Null);
    assert!(Envelope::<RuntimeToCore>::from_json(&frame(&caps)).is_err());
}

#[test]
fn web_search_calls_are_decoded_strictly() {
    let frame = |payload: &str| {
        Envelope::<RuntimeToCore>::from_json(&format!(
            r#"{{"type":"web_search_call","id":"r","payload":{payload}}}"#
        ))
    };
    let ok = r#"{"item_id":"ws","status":"completed","action":{"type":"search","query":"q","queries":null}}"#;
    assert!(matches!(
        frame(ok).unwrap().message,
        RuntimeToCore::WebSearchCall(_)
    ));
    let bad = [
        // unknown member in the payload and in the action
        ok.replace(r#""item_id":"ws","#, r#""item_id":"ws","extra":1,"#),
        ok.replace(r#""query":"q","#, r#""query":"q","sources":[],"#),
        // unknown status and action type
        ok.replace(r#""completed""#, r#""searching""#),
        ok.replace(r#""type":"search""#, r#""type":"browse""#),
        // a required member missing
        ok.replace(r#""status":"completed","#, ""),
    ];
    for case in bad {
        let err = frame(&case).unwrap_err();
        assert!(
            matches!(&err, DecodeError::Payload { type_name, .. } if type_name == "web_search_call"),
            "{case}: {err}"
        );
    }
}

#[test]
fn arbitrary_precision_is_on() {
    // Guard: exact numbers depend on the workspace-wide serde_json feature.
    let v: serde_json::Value = serde_json::from_str("0.60").unwrap();
    assert_eq!(v.to_string(), "0.60");
}

#[test]
fn heartbeat_harness_state_is_closed_and_agrees_with_available() {
    let caps = serde_json::to_value(switchboard_protocol::Capabilities::default()).unwrap();
    let frame = |available: bool, version: &str, state: &str| {
        format!(
            r#"{{"type":"heartbeat","payload":{{"supported_harnesses":[{{"harness":"codex","available":{available},"version":{version},"state":{state},"capabilities":{caps}}}]}}}}"#
        )
    };
    let decodes = |f: String| Envelope::<RuntimeToCore>::from_json(&f).is_ok();
    // Each state as it is meant to be sent.
    assert!(decodes(frame(
        true,
        r#""0.171.0""#,
        r#"{"status":"available"}"#
    )));
    assert!(decodes(frame(false, "null", r#"{"status":"installing"}"#)));
    assert!(decodes(frame(false, "null", r#"{"status":"missing"}"#)));
    assert!(decodes(frame(
        false,
        "null",
        r#"{"status":"failed","reason":"npm install failed"}"#
    )));
    // `available` contradicting the state, either way.
    assert!(!decodes(frame(
        true,
        r#""0.171.0""#,
        r#"{"status":"installing"}"#
    )));
    assert!(!decodes(frame(false, "null", r#"{"status":"available"}"#)));
    // A version for a harness that is not available.
    assert!(!decodes(frame(
        false,
        r#""0.170.0""#,
        r#"{"status":"missing"}"#
    )));
    // Closed: no reason-less failure, no unknown status or member, no missing state.
    assert!(!decodes(frame(false, "null", r#"{"status":"failed"}"#)));
    assert!(!decodes(frame(false, "null", r#"{"status":"broken"}"#)));
    assert!(!decodes(frame(
        false,
        "null",
        r#"{"status":"missing","reason":"x"}"#
    )));
    let no_state = format!(
        r#"{{"type":"heartbeat","payload":{{"supported_harnesses":[{{"harness":"codex","available":false,"version":null,"capabilities":{caps}}}]}}}}"#
    );
    assert!(!decodes(no_state));
}
