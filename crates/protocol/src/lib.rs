//! The Core–Runtime protocol and the adapter boundary.
//!
//! Core (HTTP, store, Turns) and a Runtime (the daemon that runs native harnesses) exchange JSON
//! frames `{type, id, payload}` over a WebSocket, or over an in-process channel for the local
//! Runtime. This crate owns both the wire shape of those frames and the Rust trait that harness
//! adapters implement, so that an adapter never imports Core or the Runtime:
//!
//! - [`envelope`]: the frame, and strict decoding (an unknown `type`, or an unknown member at any
//!   depth of a payload, rejects the frame).
//! - [`handshake`]: `hello` → `welcome` | `hello_refused`, with an exact [`PROTOCOL_VERSION`]
//!   match.
//! - [`capabilities`]: what a Runtime advertises per harness in each `heartbeat`.
//! - [`configuration`]: the frozen Session configuration `execution_prepare` carries.
//! - [`content`]: user input parts and function-result content.
//! - [`workspace`]: workspace placements (self-hosted, managed) and the `workspace_*` frames.
//! - [`messages`]: every payload, grouped by direction ([`CoreToRuntime`], [`RuntimeToCore`]).
//! - [`subagents`]: what a Runtime observes of a multi-agent Turn's children.
//! - [`adapter`]: the [`Adapter`] / [`SessionExecutor`] / [`TurnControl`] traits, the
//!   [`AdapterEvent`]s a Turn yields, and function-result [`Receipt`]s.
//!
//! JSON numbers stay exact: schemas and arguments are `serde_json::Value` under the workspace's
//! `arbitrary_precision` feature (or exact JSON text), never `f64`.

pub mod adapter;
pub mod capabilities;
pub mod configuration;
pub mod content;
pub mod envelope;
pub mod handshake;
pub mod mcp;
pub mod messages;
pub mod subagents;
pub mod workspace;

pub use adapter::{
    Adapter, AdapterError, AdapterEvent, LoopbackBridge, PrepareRequest, ProcessPlacement, Receipt,
    Sandbox, SessionExecutor, TurnControl, TurnHandle, TurnRequest,
};
pub use capabilities::{Capabilities, HarnessAdvertisement, HarnessState};
pub use configuration::{
    ContextSize, ExecutionControls, FunctionToolSpec, HarnessId, ModelProviderConfig, OutputFormat,
    OutputFormatType, ProgrammaticToolCallingControl, ProviderProtocol, ReasoningControl,
    ReasoningEffort, ReasoningSummary, ServiceTier, SessionConfiguration, Verbosity,
    WebSearchControl, WebSearchLocation, WebSearchMode,
};
pub use content::{FunctionOutput, FunctionResultContent, InputPart, ResultPart};
pub use envelope::{DecodeError, Envelope};
pub use handshake::PROTOCOL_VERSION;
pub use mcp::{McpCall, McpCallStatus, McpServer, McpStdioServer};
pub use messages::{CoreToRuntime, RuntimeToCore};
pub use workspace::{
    MANAGED_WORKSPACE_DIRECTORY, NetworkAccess, SetupCommand, Workspace, WorkspaceEntry,
    WorkspaceFile, WorkspacePlacement,
};
