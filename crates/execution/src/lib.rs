//! The execution parser.
//!
//! Turns the `tools`, `text` and related members of Agent and Session request bodies into the
//! typed, defaulted model in [`model`], enforcing every protocol rule of the execution-tools
//! specification. It never consults a harness: harness admission is `switchboard-harness`.

pub mod error;
pub mod model;

pub use error::ValidationError;
pub use model::*;
