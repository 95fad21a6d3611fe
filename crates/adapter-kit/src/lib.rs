//! What every harness adapter needs and no harness owns.
//!
//! The adapters (`switchboard-codex`, `switchboard-claude`) each speak one native protocol; the
//! machinery around that protocol is the same for all of them and lives here, one idea a module:
//!
//! - [`binary`]: a harness pinned to one version, run as its native executable.
//!
//! This crate depends on the adapter boundary (`switchboard-protocol`) only: never on Core or
//! the Runtime, and never on a harness's protocol.

pub mod binary;
