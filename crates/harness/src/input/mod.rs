//! Input and function-result admission: the last rows of the §2.4 table, checked per event.
//!
//! A message or a `tool_result` the harness cannot apply is rejected before it is stored, so
//! it never consumes a pending call. They read the parsed content as the parser produced it
//! (`switchboard-vocabulary`'s one definition), so nothing maps it first.

mod inline_image;
mod whitespace;

pub use inline_image::is_inline_png_or_jpeg;
pub use whitespace::{is_blank, is_blank_char};

pub use switchboard_vocabulary::{FunctionOutput, InputPart};

use crate::{AdmissionError, Declaration};

/// The image URLs of a function result's output, in order.
fn images(output: &FunctionOutput) -> impl Iterator<Item = &str> {
    let parts = match output {
        FunctionOutput::Text(_) => &[][..],
        FunctionOutput::Parts(parts) => parts.as_slice(),
    };
    parts.iter().filter_map(|p| match p {
        InputPart::InputImage { image_url } => Some(image_url.as_str()),
        InputPart::InputText { .. } => None,
    })
}

const MESSAGE_IMAGES: &str = "The harness does not support message images.";
const WHITESPACE_ONLY: &str = "This Session's harness does not accept a message whose text is only whitespace. Include non-whitespace text or an image, or use a harness that supports whitespace-only text.";
const RESULTS: &str = "The harness does not support function results.";
const RESULT_IMAGES: &str = "The harness does not support function result images.";
const FAILED_RESULT_IMAGES: &str =
    "The harness does not support images in a failed function result.";
const INLINE_RESULT_IMAGES: &str =
    "The harness supports only inline PNG or JPEG function result images.";

fn image_sources_message(sources: crate::ImageSources) -> String {
    match sources {
        crate::ImageSources::Any => MESSAGE_IMAGES.to_owned(),
        crate::ImageSources::HttpOrInlineBase64 { media_types } => {
            let names: Vec<&str> = media_types
                .iter()
                .map(|t| t.strip_prefix("image/").unwrap_or(t))
                .collect();
            format!(
                "The harness takes message images as http(s) URLs or inline base64 data URLs of type {}.",
                names.join(", ")
            )
        }
    }
}

/// Checks one caller message (its ordered content parts).
pub fn validate_message_input(
    decl: &Declaration,
    parts: &[InputPart],
) -> Result<(), AdmissionError> {
    let has_image = parts
        .iter()
        .any(|p| matches!(p, InputPart::InputImage { .. }));
    if has_image && !decl.message_input.images {
        return Err(AdmissionError::new(None, MESSAGE_IMAGES));
    }
    let sources = decl.message_input.image_sources;
    let unsupported_image = parts.iter().any(|p| match p {
        InputPart::InputImage { image_url } => !sources.accepts(image_url),
        InputPart::InputText { .. } => false,
    });
    if unsupported_image {
        return Err(AdmissionError::new(None, image_sources_message(sources)));
    }
    // A message means something when it has an image or any non-whitespace text.
    let meaningful = parts.iter().any(|p| match p {
        InputPart::InputImage { .. } => true,
        InputPart::InputText { text } => !is_blank(text),
    });
    if !meaningful && !decl.message_input.whitespace_only_text {
        return Err(AdmissionError::new(None, WHITESPACE_ONLY));
    }
    Ok(())
}

/// Checks one `tool_result` event: `success` and its optional `output`.
pub fn validate_function_result(
    decl: &Declaration,
    success: bool,
    output: Option<&FunctionOutput>,
) -> Result<(), AdmissionError> {
    let results = &decl.functions.results;
    if !decl.functions.tools {
        return Err(AdmissionError::new(None, RESULTS));
    }
    let mut images = output.into_iter().flat_map(images).peekable();
    if images.peek().is_none() {
        return Ok(());
    }
    if !results.images {
        return Err(AdmissionError::new(None, RESULT_IMAGES));
    }
    if !success && !results.failed_result_images {
        return Err(AdmissionError::new(None, FAILED_RESULT_IMAGES));
    }
    if !results.image_urls && !images.all(is_inline_png_or_jpeg) {
        return Err(AdmissionError::new(None, INLINE_RESULT_IMAGES));
    }
    Ok(())
}
