//! The values the public execution model and the Core–Runtime protocol share.
//!
//! `switchboard-execution` (what an Agent declares) and `switchboard-protocol` (what Core sends
//! a Runtime) both name these; defining them once here, below both, means no crate converts one
//! spelling into another. Their serde spelling is the public saved form and the wire at once: the
//! protocol's committed wire snapshot (`crates/protocol/tests/wire_snapshot.rs`) fails if a change
//! here would move the wire.

mod content;
mod harness;
mod options;

pub use content::{FunctionOutput, InputPart};
pub use harness::{HarnessId, ProviderProtocol};
pub use options::{
    ContextSize, ReasoningEffort, ReasoningSummary, ServiceTier, Verbosity, WebSearchLocation,
    WebSearchMode,
};
