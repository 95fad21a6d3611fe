//! The Session engine: Sessions, Turns, Items, required actions and live events.
//!
//! - [`create`]: the creation admission pipeline.
//! - [`input`]: caller input events (messages, function results, cancels), one batch a commit.
//! - [`update`]: Session update and delete.
//! - [`frames`]: what the Runtime's Turn frames do.
//! - [`engine`]: Session locks and the commit rule (store, then state, then events, then
//!   frames); `dispatch` (Turn dispatch, the queue, restart recovery) and `link_frames` (what
//!   Runtime links' frames do, link loss) add to it.
//! - [`state`]: a Session's state and the transaction changes go through.
//! - [`objects`]: the public JSON shapes.
//! - [`hub`]: live SSE fan-out.
//! - [`links`]: connected Runtimes and their advertisements.
//! - [`configuration`]: the frozen configuration a Runtime receives.
//! - [`error`]: why a Session operation was refused.
//! - [`idempotency`]: `Idempotency-Key` bounds and retry fingerprints.

// h6 replaces the serde round trip (`same`) that still expects here; drop this then.
pub mod call;
pub mod calls;
#[allow(clippy::expect_used)]
pub mod configuration;
mod content;
pub mod create;
mod dispatch;
pub mod engine;
pub mod error;
pub mod frames;
pub mod hub;
pub mod idempotency;
pub mod input;
mod link_frames;
pub mod links;
mod native_items;
pub mod objects;
pub mod state;
mod turns;
pub mod update;

pub use engine::Engine;
pub use error::SessionError;
