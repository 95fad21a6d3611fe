//! The public wire edge of the Agents API.
//!
//! Three ideas live here, each in its own module: the public error envelope with its code table
//! ([`error`]), the JSON body gate every request body passes before any handler sees it
//! ([`body`]), and resource identifiers ([`ids`]). Nothing here knows about HTTP frameworks:
//! Core maps [`ApiError`] to a response once, at its edge.

pub mod body;
pub mod error;
pub mod ids;

pub use body::{BodyGate, parse_body};
pub use error::{ApiError, ErrorCode, PublicError};
