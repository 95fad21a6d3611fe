//! What a Runtime advertises for each harness in every `heartbeat`.
//!
//! Capabilities are JSON booleans, every one required: an omitted, null or unknown member
//! rejects the heartbeat, because a silently defaulted `false` (or `true`) would change what Core
//! admits. An advertisement alone never enables an operation: Core also checks the harness
//! declaration (core-contracts §6.4).

use crate::configuration::HarnessId;
use serde::{Deserialize, Serialize};

/// One harness as the Runtime sees it right now.
///
/// `available` and `state` must agree (`available` is true exactly when `state` is
/// `available`), and `version` is null unless it is available: a frame that contradicts itself
/// is rejected rather than read one way or the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawAdvertisement")]
pub struct HarnessAdvertisement {
    pub harness: HarnessId,
    /// The native binary is installed and answers its version probe.
    pub available: bool,
    /// The native version (e.g. `0.171.0`), null when unavailable.
    pub version: Option<String>,
    /// Why the harness is or is not available: Core tells a harness that is being installed
    /// (its Turns wait) from one whose install failed (its Turns fail).
    pub state: HarnessState,
    pub capabilities: Capabilities,
}

impl HarnessAdvertisement {
    /// An advertisement whose `available` follows `state`.
    pub fn new(
        harness: HarnessId,
        state: HarnessState,
        version: Option<String>,
        capabilities: Capabilities,
    ) -> Self {
        let available = state == HarnessState::Available;
        HarnessAdvertisement {
            harness,
            available,
            version: version.filter(|_| available),
            state,
            capabilities,
        }
    }
}

/// A harness's install state on one Runtime.
///
/// On the wire `{"status": "available" | "installing" | "missing"}` or
/// `{"status": "failed", "reason": "…"}`: a reason exactly when it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case", try_from = "RawState")]
pub enum HarnessState {
    /// Installed at the pinned version and runnable.
    Available,
    /// An install is running; it is advertised again when the install ends.
    Installing,
    /// Not installed, and no install is running.
    Missing,
    /// Installed but unusable, or the install failed; `reason` says why, for people.
    Failed { reason: String },
}

impl std::fmt::Display for HarnessState {
    /// `available`, `installing`, `missing`, `failed: <reason>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HarnessState::Available => f.write_str("available"),
            HarnessState::Installing => f.write_str("installing"),
            HarnessState::Missing => f.write_str("missing"),
            HarnessState::Failed { reason } => write!(f, "failed: {reason}"),
        }
    }
}

/// A state as sent (serde does not close the members of an internally tagged unit variant).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawState {
    status: StateStatus,
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum StateStatus {
    Available,
    Installing,
    Missing,
    Failed,
}

impl TryFrom<RawState> for HarnessState {
    type Error = &'static str;

    fn try_from(raw: RawState) -> Result<Self, &'static str> {
        match (raw.status, raw.reason) {
            (StateStatus::Failed, Some(reason)) => Ok(HarnessState::Failed { reason }),
            (StateStatus::Failed, None) => Err("a failed state needs a reason"),
            (_, Some(_)) => Err("only a failed state has a reason"),
            (StateStatus::Available, None) => Ok(HarnessState::Available),
            (StateStatus::Installing, None) => Ok(HarnessState::Installing),
            (StateStatus::Missing, None) => Ok(HarnessState::Missing),
        }
    }
}

/// The wire shape, before the members are checked against each other.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAdvertisement {
    harness: HarnessId,
    available: bool,
    version: Option<String>,
    state: HarnessState,
    capabilities: Capabilities,
}

impl TryFrom<RawAdvertisement> for HarnessAdvertisement {
    type Error = String;

    fn try_from(raw: RawAdvertisement) -> Result<Self, String> {
        if raw.available != (raw.state == HarnessState::Available) {
            return Err(format!(
                "available is {} but the state is {}",
                raw.available, raw.state
            ));
        }
        if !raw.available && raw.version.is_some() {
            return Err("version must be null unless the harness is available".to_owned());
        }
        Ok(HarnessAdvertisement {
            harness: raw.harness,
            available: raw.available,
            version: raw.version,
            state: raw.state,
            capabilities: raw.capabilities,
        })
    }
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
    /// The Runtime can create managed workspaces isolated by bubblewrap (`openai_hosted`).
    pub managed_workspace: bool,
    /// Structured output also runs on a workspace placement (Claude's bridge feature of that
    /// name; core-contracts §4: a workspace Runtime needs it beside `structured_output`).
    pub workspace_structured_output: bool,
}
