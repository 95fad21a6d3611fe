//! What claude records when it applies a function result, and whether a record is ours.
//!
//! After the `functions` server answers a `tools/call`, claude writes the result into the
//! conversation as a `tool_result` block of a `user` message, and that message is on stdout.
//! That record is the only proof that the model will see exactly what the caller submitted, so
//! the receipt compares it with the submission, block for block. claude 2.1.332 renders an MCP
//! result this way (observed on the pinned binary):
//!
//! - success with content: the blocks in order; a text block verbatim; an image as an `image`
//!   block (base64, possibly re-encoded or resized, so its bytes are not compared) followed by
//!   claude's own text note `[Image: source: <where it saved the file>]`;
//! - success whose content is only blank text (or none): the single string
//!   `(mcp__functions__<name> completed with no output)`;
//! - failure (`isError`): `is_error: true` and one string, the text parts joined with `\n`, or
//!   `Unknown error` when there is none.
//!
//! A record matches when `is_error` agrees with `success` and its content is exactly the
//! expected rendering: same block count and order, the same text, an image at each image
//! position. Anything else (a truncated or persisted large output, an interrupted call's
//! synthetic record) does not confirm.

use serde_json::Value;
use switchboard_protocol::{FunctionResultContent, ResultPart};

use crate::functions::native_name;

/// The note claude adds after each image it received in a tool result.
const IMAGE_NOTE_PREFIX: &str = "[Image: source: ";

/// One expected block.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Block {
    Text(String),
    Image,
}

/// The record claude should write for a submitted result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedRecord {
    is_error: bool,
    blocks: Vec<Block>,
}

impl ExpectedRecord {
    pub fn new(function: &str, result: &FunctionResultContent) -> Self {
        let parts = result.parts();
        if !result.success {
            let text: Vec<String> = parts
                .into_iter()
                .filter_map(|p| match p {
                    ResultPart::Text(t) => Some(t),
                    ResultPart::ImageUrl(_) => None,
                })
                .collect();
            let text = if text.is_empty() {
                "Unknown error".to_owned()
            } else {
                text.join("\n")
            };
            return ExpectedRecord {
                is_error: true,
                blocks: vec![Block::Text(text)],
            };
        }
        let blank = parts
            .iter()
            .all(|p| matches!(p, ResultPart::Text(t) if t.trim().is_empty()));
        if blank {
            return ExpectedRecord {
                is_error: false,
                blocks: vec![Block::Text(format!(
                    "({} completed with no output)",
                    native_name(function)
                ))],
            };
        }
        ExpectedRecord {
            is_error: false,
            blocks: parts
                .into_iter()
                .map(|p| match p {
                    ResultPart::Text(t) => Block::Text(t),
                    ResultPart::ImageUrl(_) => Block::Image,
                })
                .collect(),
        }
    }

    /// Whether a native `tool_result` block is this record.
    pub fn matches(&self, tool_result: &Value) -> bool {
        let is_error = tool_result.get("is_error").and_then(Value::as_bool) == Some(true);
        if is_error != self.is_error {
            return false;
        }
        let Some(native) = native_blocks(tool_result.get("content")) else {
            return false;
        };
        let mut native = native.into_iter().peekable();
        let mut expected = self.blocks.iter().peekable();
        while let Some(want) = expected.next() {
            let Some(got) = native.next() else {
                return false;
            };
            if *want != got {
                return false;
            }
            if *want == Block::Image {
                // claude's own note about where it saved the image, unless our next part is
                // that very text.
                let note = matches!(native.peek(), Some(Block::Text(t)) if t.starts_with(IMAGE_NOTE_PREFIX) && t.ends_with(']'));
                if note && native.peek() != expected.peek().copied() {
                    native.next();
                }
            }
        }
        native.next().is_none()
    }
}

/// A native `tool_result` content as blocks; `None` for a shape claude does not write.
fn native_blocks(content: Option<&Value>) -> Option<Vec<Block>> {
    match content? {
        Value::String(text) => Some(vec![Block::Text(text.clone())]),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str)? {
                "text" => Some(Block::Text(b.get("text")?.as_str()?.to_owned())),
                "image" => Some(Block::Image),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_protocol::{FunctionOutput, InputPart};

    fn result(success: bool, parts: Vec<InputPart>, error: Option<&str>) -> FunctionResultContent {
        FunctionResultContent {
            success,
            output: Some(FunctionOutput::Parts(parts)),
            error: error.map(str::to_owned),
        }
    }

    fn text(t: &str) -> InputPart {
        InputPart::InputText { text: t.into() }
    }

    fn image() -> InputPart {
        InputPart::InputImage {
            image_url: "data:image/png;base64,AAAA".into(),
        }
    }

    #[test]
    fn text_results_match_block_for_block() {
        let expected = ExpectedRecord::new("f", &result(true, vec![text("a"), text("b\n")], None));
        assert!(
            expected.matches(&json!({"tool_use_id": "t", "type": "tool_result",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b\n"}]}))
        );
        assert!(!expected.matches(&json!({"content": [{"type": "text", "text": "a"}]})));
        assert!(!expected.matches(&json!({"content": "a\nb\n"})));
        assert!(!expected.matches(&json!({"is_error": true,
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b\n"}]})));
    }

    #[test]
    fn images_match_by_position_with_claudes_note() {
        let expected = ExpectedRecord::new(
            "f",
            &result(true, vec![text("before"), image(), text("after")], None),
        );
        let image_block = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "BBBB"}});
        let note = json!({"type": "text", "text": "[Image: source: /state/x.png]"});
        assert!(expected.matches(&json!({"content": [
            {"type": "text", "text": "before"}, image_block, note, {"type": "text", "text": "after"}]})));
        assert!(expected.matches(&json!({"content": [
            {"type": "text", "text": "before"}, image_block, {"type": "text", "text": "after"}]})));
        assert!(!expected.matches(&json!({"content": [
            {"type": "text", "text": "before"}, {"type": "text", "text": "after"}]})));
    }

    #[test]
    fn failures_are_one_joined_string() {
        let expected =
            ExpectedRecord::new("f", &result(false, vec![text("partial")], Some("boom")));
        assert!(expected.matches(&json!({"is_error": true, "content": "partial\nboom"})));
        assert!(!expected.matches(&json!({"content": "partial\nboom"})));
        let empty = ExpectedRecord::new(
            "f",
            &FunctionResultContent {
                success: false,
                output: None,
                error: None,
            },
        );
        assert!(empty.matches(&json!({"is_error": true, "content": "Unknown error"})));
    }

    #[test]
    fn blank_success_is_claudes_no_output_note() {
        let expected = ExpectedRecord::new("get.weather", &result(true, vec![text("  ")], None));
        assert!(expected.matches(
            &json!({"content": "(mcp__functions__get_weather completed with no output)"})
        ));
    }
}
