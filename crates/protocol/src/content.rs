//! User input parts and function-result content.
//!
//! Input is an ordered list of `input_text` / `input_image` parts. A function result keeps the
//! caller's submission (`success`, optional `output`, optional `error`); the content a harness
//! receives is derived from it by one rule shared by every adapter ([`FunctionResultContent::parts`]):
//! the output parts in order (a string output is one text part), then the error text as a final
//! text part (core-contracts §3.3).

use serde::{Deserialize, Serialize};

// Defined once below the protocol and the execution parser, which produces them.
pub use switchboard_vocabulary::{FunctionOutput, InputPart};

/// The caller's result for one function call, as admitted by Core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionResultContent {
    pub success: bool,
    pub output: Option<FunctionOutput>,
    pub error: Option<String>,
}

/// One part of the content a harness receives for a function result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultPart {
    Text(String),
    ImageUrl(String),
}

impl FunctionResultContent {
    /// The ordered content: output parts, then the error text as a final text part.
    pub fn parts(&self) -> Vec<ResultPart> {
        let mut parts = Vec::new();
        match &self.output {
            None => {}
            Some(FunctionOutput::Text(text)) => parts.push(ResultPart::Text(text.clone())),
            Some(FunctionOutput::Parts(items)) => {
                parts.extend(items.iter().map(|part| match part {
                    InputPart::InputText { text } => ResultPart::Text(text.clone()),
                    InputPart::InputImage { image_url } => ResultPart::ImageUrl(image_url.clone()),
                }))
            }
        }
        if let Some(error) = &self.error {
            parts.push(ResultPart::Text(error.clone()));
        }
        parts
    }

    /// Whether any part is an image (the Runtime then needs `function_result_images`).
    pub fn has_images(&self) -> bool {
        self.parts()
            .iter()
            .any(|p| matches!(p, ResultPart::ImageUrl(_)))
    }
}
