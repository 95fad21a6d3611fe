//! Caller content: the parts of a user message and a function result's `output`, as parsed from
//! the public request and as sent to a Runtime (one type for both, so nothing retypes it).

use serde::{Deserialize, Serialize};

/// One part of a user message or of a function result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum InputPart {
    InputText { text: String },
    InputImage { image_url: String },
}

/// A function result's `output`: a string, or ordered text and image parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FunctionOutput {
    Text(String),
    Parts(Vec<InputPart>),
}
