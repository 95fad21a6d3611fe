//! Harness declarations and Session admission.
//!
//! Switchboard runs each Session on one native agent harness: Codex (`codex`), Claude Code
//! (`claude_code`) or MiniMax Code (`minimax_code`). This crate states what each supports as
//! plain data ([`Declaration`], values in [`declarations`]) and checks a resolved Session
//! configuration against it ([`validate_selection`]), so an unsupported combination is a 400
//! `unsupported_or_invalid_configuration` before anything is written, never a failed Turn.
//!
//! - [`validate_selection`]: a Session snapshot against a declaration.
//! - [`validate_message_input`], [`validate_function_result`]: one input event.
//! - [`required_capabilities`]: what a Runtime must advertise to run a snapshot.
//! - [`binary64::lossless`]: the number rule of binary64 output schemas.

mod admission;
pub mod binary64;
mod capability;
mod declaration;
pub mod declarations;
mod input;
mod required;

pub use admission::{
    AdmissionError, HOSTED_WORKSPACE_DIRECTORY, validate_model_provider, validate_selection,
};
pub use capability::Capability;
pub use declaration::*;
pub use declarations::{DEFAULT_HARNESS, declaration};
pub use input::{
    FunctionOutput, InputPart, is_blank, is_blank_char, is_inline_png_or_jpeg,
    validate_function_result, validate_message_input,
};
pub use required::required_capabilities;
