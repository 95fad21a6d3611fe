//! The Session engine: Sessions, Turns, Items, required actions and live events.
//!
//! - [`create`]: the creation admission pipeline.
//! - [`input`]: caller input events (messages, function results, cancels), one batch a commit.
//! - [`update`]: Session update and delete.
//! - [`frames`]: what the Runtime's Turn frames do.
//! - [`engine`]: Session locks, the commit rule, Runtime links and Turn dispatch.
//! - [`state`]: a Session's state and the transaction changes go through.
//! - [`objects`]: the public JSON shapes.
//! - [`hub`]: live SSE fan-out.
//! - [`links`]: connected Runtimes and their advertisements.
//! - [`configuration`]: the frozen configuration a Runtime receives.
//! - [`error`]: why a Session operation was refused.
//! - [`idempotency`]: `Idempotency-Key` bounds and retry fingerprints.

pub mod configuration;
pub mod create;
pub mod engine;
pub mod error;
pub mod frames;
pub mod hub;
pub mod idempotency;
pub mod input;
pub mod links;
pub mod objects;
pub mod state;
pub mod update;

pub use engine::Engine;
pub use error::SessionError;
