//! The Session layer: Sessions, Turns, Items, required actions and live events. It knows
//! nothing of HTTP: every refusal is a [`SessionError`], which the edge maps to the public
//! envelope once.
//!
//! - [`create`]: the creation admission pipeline.
//! - [`input`]: caller input events (messages, function results, cancels), one batch a commit.
//! - [`update`]: Session update and delete; `deletion` finishes a delete on the Runtimes.
//! - [`calls`]: the function-call lifecycle (register, admit, receipt, abandon, cancel, settle);
//!   [`call`]: a call's document and what its states mean.
//! - [`frames`]: the per-frame dispatch of a Run's frames; `native_items` (messages, reasoning,
//!   commands, web searches) and `turns` (a Turn's binding and end) hold their rules.
//! - [`subagents`]: a multi-agent Turn's children (Subagents, child Turns and Items) and the
//!   root's coordination Items.
//! - [`engine`]: Session locks and the commit rule (store, then state, then events, then
//!   frames); `dispatch` (Turn dispatch, the queue, restart recovery) and `link_frames` (what
//!   a Runtime link's frames do, link loss) add to it.
//! - [`state`]: a Session's state and the transaction changes go through.
//! - [`objects`]: the public JSON shapes; [`frozen_agent`]: a Session's agent, rendered once.
//! - [`hub`]: live SSE fan-out; `events` carries it across replicas (event rows, `seq`).
//! - [`runtimes`]: the connected Runtimes (links), their advertisements and preparations.
//! - [`configuration`]: the frozen configuration a Runtime receives.
//! - [`error`]: why a Session operation was refused.
//! - [`replica`]: this Core as one of several replicas on one database (claims, fencing,
//!   heartbeat, sweep, handover).
//! - [`idempotency`]: `Idempotency-Key` bounds and retry fingerprints.

pub mod call;
pub mod calls;
pub mod configuration;
pub mod create;
pub mod credentials;
mod deletion;
mod dispatch;
pub mod engine;
pub mod error;
mod events;
pub mod frames;
pub mod frozen_agent;
pub mod hub;
pub mod idempotency;
pub mod input;
mod link_frames;
mod native_items;
pub mod objects;
pub mod replica;
pub mod reservations;
pub mod runtimes;
mod shutdown;
pub mod state;
pub mod subagents;
mod turns;
pub mod update;
pub mod workspace;

pub use engine::Engine;
pub use error::SessionError;
