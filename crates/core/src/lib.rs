//! Core: the Agents API server.
//!
//! Requests pass the HTTP edge ([`edge`]: request IDs, the beta header, authentication, the body
//! gate, error mapping) before a route handler ([`routes`]) sees them. Handlers parse with the
//! execution parser, persist through the [`switchboard_store::Store`] trait, and answer with the
//! public shapes. Core never imports a harness adapter.

pub mod agents;
pub mod app;
pub mod auth;
pub mod clock;
pub mod edge;
pub mod enrollment;
pub mod environments;
pub mod forward;
pub mod inspect;
mod json_text;
pub mod metrics;
pub mod oauth;
pub mod replicas;
pub mod revocation;
pub mod routes;
pub mod runtime_link;
pub mod secrets;
pub mod session;
pub mod state;
mod sync;
pub mod trace_context;
pub mod vaults;
pub mod writable;

pub use app::router;
pub use clock::unix_now;
pub use state::{AppState, CoreConfig};
