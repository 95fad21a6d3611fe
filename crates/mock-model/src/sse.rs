//! Server-sent events framing, byte for byte as the lab probes that the real harnesses accepted.
//!
//! OpenAI Responses and Anthropic Messages name every frame (`event: <type>` then
//! `data: <json>`), where `<type>` repeats the JSON's own `type` member. Chat Completions sends
//! bare `data:` frames and ends with `data: [DONE]`.

use bytes::Bytes;
use serde_json::Value;

/// `event: <type>\ndata: <json>\n\n`, the event name taken from the payload's `type` member.
pub fn named(payload: &Value) -> Bytes {
    let name = payload
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    let json = payload.to_string();
    let mut frame = Vec::with_capacity(json.len() + name.len() + 16);
    frame.extend_from_slice(b"event: ");
    frame.extend_from_slice(name.as_bytes());
    frame.extend_from_slice(b"\ndata: ");
    frame.extend_from_slice(json.as_bytes());
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// `data: <json>\n\n`, the Chat Completions framing.
pub fn unnamed(payload: &Value) -> Bytes {
    let json = payload.to_string();
    let mut frame = Vec::with_capacity(json.len() + 8);
    frame.extend_from_slice(b"data: ");
    frame.extend_from_slice(json.as_bytes());
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// The Chat Completions end-of-stream sentinel.
pub fn done() -> Bytes {
    Bytes::from_static(b"data: [DONE]\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn named_frames_repeat_the_type() {
        let frame = named(&json!({"type": "message_stop"}));
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
