//! Caller input content, converted for the harness declaration's admission rules and for the
//! Runtime's frames.

use switchboard_execution::{InputContent, InputMessage};
use switchboard_harness::ContentPart;
use switchboard_protocol::content::InputPart;

/// A message's content as the Runtime's frames carry it.
pub fn parts(message: &InputMessage) -> Vec<InputPart> {
    message
        .content
        .iter()
        .map(|c| match c {
            InputContent::Text(text) => InputPart::InputText { text: text.clone() },
            InputContent::Image(url) => InputPart::InputImage {
                image_url: url.clone(),
            },
        })
        .collect()
}

/// Content as the harness declaration checks it.
pub fn harness_parts(content: &[InputContent]) -> Vec<ContentPart> {
    content
        .iter()
        .map(|c| match c {
            InputContent::Text(t) => ContentPart::Text(t.clone()),
            InputContent::Image(u) => ContentPart::Image(u.clone()),
        })
        .collect()
}
