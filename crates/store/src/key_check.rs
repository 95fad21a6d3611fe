//! The data key check: one sealed canary per database, so that a process started with another
//! data key than the one the database's secrets were sealed with can refuse to start.
//!
//! Its own trait beside [`crate::Store`]: the check runs once at start, on the concrete engine,
//! before Core is built.

use async_trait::async_trait;

use crate::Result;

#[async_trait]
pub trait KeyCheckStore: Send + Sync {
    /// The stored canary; when none is stored yet, `candidate` is stored and returned. Of two
    /// processes starting at once on an empty database, both get the one that was stored.
    async fn key_check(&self, candidate: &str) -> Result<String>;
}
