//! Inline PNG and JPEG images, the only result images some harnesses can apply.
//!
//! An inline image is a `data:image/png;base64,` or `data:image/jpeg;base64,` URL whose
//! payload is canonical standard base64 (padded, no whitespace, no stray bits) and whose bytes
//! start with the signature of the declared format. Nothing is downloaded or rewritten.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
const JPEG_SIGNATURE: &[u8] = b"\xFF\xD8\xFF";

pub fn is_inline_png_or_jpeg(image_url: &str) -> bool {
    let Some((header, payload)) = image_url.split_once(',') else {
        return false;
    };
    let signature = match header {
        "data:image/png;base64" => PNG_SIGNATURE,
        "data:image/jpeg;base64" => JPEG_SIGNATURE,
        _ => return false,
    };
    // STANDARD requires canonical padding and rejects non-zero trailing bits.
    STANDARD
        .decode(payload)
        .is_ok_and(|bytes| bytes.starts_with(signature))
}
