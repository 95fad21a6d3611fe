//! Server-sent events framing, byte for byte as the lab probes that the real harnesses accepted.
//!
//! OpenAI Responses and Anthropic Messages name every frame (`event: <type>` then
//! `data: <json>`), where `<type>` repeats the JSON's own `type` member. Chat Completions sends
//! bare `data:` frames and ends with `data: [DONE]`.
//!
//! Payloads are any `Serialize`: the per-delta events of a long answer are small typed structs
//! (serialized straight into the frame), which keeps the mock far from being a benchmark's
//! bottleneck; the rare, larger events are `serde_json::Value`s.

use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;

/// `event: <type>\ndata: <json>\n\n`, the event name taken from the payload's `type` member.
pub fn event(payload: &Value) -> Bytes {
    let name = payload
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    named(name, payload)
}

/// `event: <name>\ndata: <json>\n\n`.
pub fn named<T: Serialize + ?Sized>(name: &str, payload: &T) -> Bytes {
    let mut frame = Vec::with_capacity(160);
    frame.extend_from_slice(b"event: ");
    frame.extend_from_slice(name.as_bytes());
    frame.extend_from_slice(b"\ndata: ");
    write_json(&mut frame, payload);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// `data: <json>\n\n`, the Chat Completions framing.
pub fn unnamed<T: Serialize + ?Sized>(payload: &T) -> Bytes {
    let mut frame = Vec::with_capacity(160);
    frame.extend_from_slice(b"data: ");
    write_json(&mut frame, payload);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// The Chat Completions end-of-stream sentinel.
pub fn done() -> Bytes {
    Bytes::from_static(b"data: [DONE]\n\n")
}

#[expect(
    clippy::expect_used,
    reason = "writing to a Vec cannot fail, and the payloads are plain data with string keys, \
              so serialization cannot fail either"
)]
fn write_json<T: Serialize + ?Sized>(frame: &mut Vec<u8>, payload: &T) {
    serde_json::to_writer(frame, payload).expect("event payloads serialize");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn named_frames_repeat_the_type() {
        let frame = event(&json!({"type": "message_stop"}));
        assert_eq!(
            &frame[..],
            b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
        );
    }

    #[test]
    fn unnamed_frames_are_data_only() {
        assert_eq!(&unnamed(&json!({"a": 1}))[..], b"data: {\"a\":1}\n\n");
    }
}
