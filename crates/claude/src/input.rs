//! User input as the `message.content` of a claude `user` line.
//!
//! Text parts become text blocks. Images become Anthropic image blocks: an inline data URL as a
//! base64 source, an http(s) URL as a URL source (claude passes it to the provider, which
//! fetches it). Anything else is refused before the line is written, so a Turn or steer never
//! half-starts on input claude cannot take.

use serde_json::{Value, json};
use switchboard_protocol::{AdapterError, InputPart};

use crate::functions::inline_image;

/// The `message.content` of a `user` line for protocol input parts.
pub fn user_content(parts: &[InputPart]) -> Result<Value, AdapterError> {
    parts
        .iter()
        .map(|part| match part {
            InputPart::InputText { text } => Ok(json!({"type": "text", "text": text})),
            InputPart::InputImage { image_url } => {
                if let Some((mime, data)) = inline_image(image_url) {
                    Ok(
                        json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}),
                    )
                } else if image_url.starts_with("https://") || image_url.starts_with("http://") {
                    Ok(json!({"type": "image", "source": {"type": "url", "url": image_url}}))
                } else {
                    Err(AdapterError::Rejected {
                        code: "invalid_request".into(),
                        message: "Claude Code takes images as http(s) URLs or inline base64 PNG, JPEG, GIF or WebP data URLs.".into(),
                    })
                }
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_parts_become_anthropic_blocks() {
        let content = user_content(&[
            InputPart::InputText { text: "hi".into() },
            InputPart::InputImage {
                image_url: "data:image/png;base64,AAAA".into(),
            },
            InputPart::InputImage {
                image_url: "https://example.com/a.png".into(),
            },
        ])
        .unwrap();
        assert_eq!(
            content,
            json!([
                {"type": "text", "text": "hi"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
            ])
        );
        assert!(
            user_content(&[InputPart::InputImage {
                image_url: "file:///etc/passwd".into()
            }])
            .is_err()
        );
    }
}
