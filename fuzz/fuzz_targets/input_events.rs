//! The input events decoder and the tool_result retry identity: a deterministic verdict, never
//! a panic; a tool result's `submission` (what a retry is compared by) is the event as sent,
//! and sending that submission again yields the identical event, so a byte-for-byte retry is
//! always recognised as the same result.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use switchboard_execution::{InputEvent, MAX_INPUT_EVENTS, parse_input_events};
use switchboard_fuzz::{check_verdict, gated};
use switchboard_wire::body::parse_strict;

fuzz_target!(|data: &[u8]| {
    let Some(body) = gated(data) else { return };
    let parsed = parse_input_events(&body);
    check_verdict(&parsed, &parse_input_events(&body));
    let Ok(events) = parsed else { return };
    assert!(events.len() <= MAX_INPUT_EVENTS);
    let sent = body
        .get("events")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert_eq!(sent.len(), events.len(), "an event was dropped or invented");
    for (event, as_sent) in events.iter().zip(&sent) {
        let InputEvent::ToolResult(result) = event else {
            continue;
        };
        assert!(!result.turn_id.is_empty());
        assert!(
            result
                .call_id
                .chars()
                .any(|c| !c.is_whitespace() && c != '\u{FEFF}')
        );
        // The identity is the event as received.
        let identity = parse_strict(&result.submission)
            .unwrap_or_else(|e| panic!("submission {:?} is not JSON: {e:?}", result.submission));
        assert_eq!(&identity, as_sent, "submission differs from the event sent");
        assert_eq!(
            result.public_output(),
            as_sent.get("output").cloned().unwrap_or(Value::Null)
        );
        // A retry of exactly that event is the same event with the same identity.
        let mut retry = Map::new();
        retry.insert("events".into(), Value::Array(vec![identity]));
        match parse_input_events(&retry).as_deref() {
            Ok([InputEvent::ToolResult(again)]) => assert_eq!(again, result),
            other => panic!("retrying {:?} gave {other:?}", result.submission),
        }
    }
});
