//! Route handlers, one module per resource.

pub mod agents;
pub mod pages;
pub mod sessions;
pub mod vaults;
