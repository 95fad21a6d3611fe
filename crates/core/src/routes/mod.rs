//! Route handlers, one module per resource.

pub mod agents;
pub mod environments;
pub mod pages;
pub mod sessions;
pub mod subagents;
pub mod vaults;
