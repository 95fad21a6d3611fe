//! What a Runtime advertises for each harness in every `heartbeat`.
//!
//! Capabilities are JSON booleans, every one required: an omitted, null or unknown member
//! rejects the heartbeat, because a silently defaulted `false` (or `true`) would change what Core
//! admits. An advertisement alone never enables an operation: Core also checks the harness
//! declaration (core-contracts §6.4).

use crate::configuration::HarnessId;
use serde::{Deserialize, Serialize};

/// One harness as the Runtime sees it right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessAdvertisement {
    pub harness: HarnessId,
    /// The native binary is installed and answers its version probe.
    pub available: bool,
    /// The native version (e.g. `0.171.0`), null when unavailable.
    pub version: Option<String>,
    pub capabilities: Capabilities,
}

/// The per-harness capability set (core-contracts §6.4), all fields required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    pub subagent_observations: bool,
    pub streaming: bool,
    pub permissions: bool,
    pub usage: bool,
    pub resume: bool,
    pub native_session_recovery: bool,
    pub workspace_authoring: bool,
    pub steering: bool,
    pub message_items: bool,
    pub tool_observations: bool,
    pub environment_none: bool,
    pub local_environment: bool,
    pub preparation: bool,
    pub workspace_read_preparation: bool,
    pub workspace_output_export: bool,
    pub programmatic_tool_calling_disable: bool,
    pub web_search_control: bool,
    pub execution_controls: bool,
    pub text_verbosity: bool,
    pub structured_output: bool,
    pub tool_search: bool,
    pub message_images: bool,
    pub function_result_images: bool,
    pub subagent_control: bool,
    pub durable_input_receipts: bool,
    pub durable_turns: bool,
    pub function_tools: bool,
    pub mcp_http_tools: bool,
    pub mcp_http_required: bool,
    pub mcp_http_bearer_auth: bool,
}
