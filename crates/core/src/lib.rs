//! Core: the Agents API server.
//!
//! Requests pass the HTTP edge ([`edge`]: request IDs, the beta header, authentication, the body
//! gate, error mapping) before a route handler ([`routes`]) sees them. Handlers parse with the
//! execution parser, persist through the [`switchboard_store::Store`] trait, and answer with the
//! public shapes. Core never imports a harness adapter.

pub mod app;
pub mod auth;
pub mod edge;
pub mod idempotency;
pub mod routes;
pub mod runtime_link;
pub mod secrets;
pub mod session;
mod sync;

pub use app::{AppState, CoreConfig, router};

/// Seconds since the Unix epoch: the unit of every public `created_at`-style field.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
