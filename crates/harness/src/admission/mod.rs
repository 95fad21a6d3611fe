//! Session admission: checking a resolved Session configuration against a [`Declaration`].
//!
//! [`validate_selection`] is the one place a harness's declared support is checked. It reads
//! only declaration fields, never which harness it is, so a narrowed or test declaration is
//! checked by the same code. Every failure is an [`AdmissionError`]: HTTP 400
//! `unsupported_or_invalid_configuration`, with the configuration path in `param`.
//!
//! The order is part of the contract (the first failure is the one reported):
//!
//! 1. Session-wide rules (core-contracts §2.3 step 5): distinct tool controls, distinct MCP
//!    server labels. A duplicate would otherwise surface as a confusing per-tool message.
//! 2. The §2.4 table: placement, multi_agent, functions (then each function's name and
//!    parameters root), tool_search, the tool_search/deferred pairing, json_schema, text
//!    verbosity, the binary64 output schema, each MCP server, native tool name collisions,
//!    conflicts.
//! 3. The Execution part, tool by tool (web_search, programmatic_tool_calling, unsupported
//!    tool types), then reasoning effort, reasoning summary, service tier.
//! 4. `harness_config` members, in document order.
//! 5. The model identifier (nonblank), then the model provider bundle, when the snapshot
//!    carries one.
//!
//! Input and function-result admission ([`crate::input`]) are the §2.4 table's last rows; they
//! run per event, not per Session.

mod conflicts;
mod distinct;
mod execution;
mod functions;
mod harness_config;
mod mcp;
mod model;
mod multi_agent;
mod native_names;
mod placement;
mod provider;
mod text;

pub use mcp::HOSTED_WORKSPACE_DIRECTORY;
pub use provider::validate_model_provider;

use serde::Serialize;
use serde_json::Value;
use switchboard_execution::SessionSnapshot;
use thiserror::Error;

use crate::Declaration;

/// A configuration the selected harness cannot run. Always HTTP 400 with code
/// [`AdmissionError::CODE`]; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct AdmissionError {
    /// The configuration path at fault (`agent.tools`, `agent.tools[2].mode`, `environment`),
    /// or `None` for input that has no path.
    pub param: Option<String>,
    pub message: String,
}

impl AdmissionError {
    pub const STATUS: u16 = 400;
    pub const CODE: &'static str = "unsupported_or_invalid_configuration";

    pub fn new(param: Option<String>, message: impl Into<String>) -> Self {
        AdmissionError {
            param,
            message: message.into(),
        }
    }

    /// A rejection of the configuration member at `param`.
    pub(crate) fn at(param: impl Into<String>, message: impl Into<String>) -> Self {
        AdmissionError::new(Some(param.into()), message)
    }
}

/// Checks a resolved Session configuration against a harness declaration, in the order
/// documented on this module.
pub fn validate_selection(
    decl: &Declaration,
    snapshot: &SessionSnapshot,
) -> Result<(), AdmissionError> {
    distinct::check(snapshot)?;
    placement::check(decl, snapshot)?;
    multi_agent::check(decl, snapshot)?;
    functions::check(decl, snapshot)?;
    text::check(decl, snapshot)?;
    mcp::check(decl, snapshot)?;
    native_names::check(decl, snapshot)?;
    conflicts::check(decl, snapshot)?;
    execution::check(decl, snapshot)?;
    harness_config::check(decl, snapshot)?;
    model::check(decl, snapshot)?;
    if let Some(provider) = &snapshot.model_provider {
        validate_model_provider(decl, provider)?;
    }
    Ok(())
}

/// `agent.tools[i]`, the path of one tool.
fn tool_path(index: usize) -> String {
    format!("agent.tools[{index}]")
}

/// A schema that states `"type": "object"` at its root. The protocol parser already rejects an
/// explicit non-object root; harnesses that need an object also reject a missing `type`.
fn has_object_root(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The wire spelling of an execution-model enum value (`"xhigh"`, `"cached"`), taken from its
/// serde form so it cannot drift from the parser's.
fn wire_name<T: Serialize>(value: T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        other => format!("{other:?}"),
    }
}
