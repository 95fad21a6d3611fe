//! The Execution part of a declaration: option values the harness can carry to its native
//! configuration.
//!
//! The spec leaves these to each harness: the web_search modes and whether search settings
//! are accepted, programmatic_tool_calling values, text verbosities, reasoning efforts and
//! summaries, and service tiers. A resolved value outside these lists is rejected at Session
//! admission with a message naming the field. Each list is the set of *accepted* values, so
//! "medium only" is `&[Medium]`, never a flag.

use switchboard_execution::{
    ContextSize, ReasoningEffort, ReasoningSummary, ServiceTier, Verbosity, WebSearchMode,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Execution {
    pub web_search: WebSearch,
    /// Accepted `programmatic_tool_calling.enabled` values.
    pub programmatic_tool_calling: &'static [bool],
    pub text_verbosities: &'static [Verbosity],
    /// Accepted `reasoning.effort` values; empty means an explicit effort is rejected.
    pub reasoning_efforts: &'static [ReasoningEffort],
    /// Accepted `reasoning.summary` values; empty means an explicit summary is rejected.
    pub reasoning_summaries: &'static [ReasoningSummary],
    pub service_tiers: &'static [ServiceTier],
}

/// The `web_search` control and its search settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebSearch {
    pub modes: &'static [WebSearchMode],
    /// Accepted `context_size` values (the resolved default is `medium`).
    pub context_sizes: &'static [ContextSize],
    /// A non-null `allowed_domains` (`[]` included: an empty list is a real restriction).
    pub allowed_domains: bool,
    /// A non-null `location` (`{}` included).
    pub location: bool,
}
