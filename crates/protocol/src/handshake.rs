//! The version handshake.
//!
//! A Runtime opens every connection with `hello{version, runtime_id, runtime_version}`. Core
//! answers `welcome{version}` when the versions are identical and `hello_refused{code, message,
//! supported_version}` otherwise, then closes. There is no negotiation: both ends ship from one
//! repository, and a mismatch means one of them must be upgraded, which the refusal says.

use serde::{Deserialize, Serialize};

/// The protocol version. Compared for exact equality. 1.1.0: heartbeat advertisements carry
/// the harness `state` (a 1.0.0 Runtime's heartbeats would not decode). 1.2.0: workspaces (the
/// configuration's `workspace`, the `managed_workspace` capability, the `workspace_*` frames).
/// 1.3.0: the `workspace_structured_output` capability; Subagents (`execution_controls.subagents`,
/// the `subagent_*` and `coordination_call` frames); the configuration's `mcp_stdio_servers` and
/// `mcp_environment_servers` (a 1.2.0 Runtime would drop them unseen). 1.4.0: the `queued`
/// preparation state (a 1.3.0 Core would refuse it as undecodable). 1.5.0: `execution_start`'s
/// optional `traceparent` (a 1.4.0 Runtime denies the unknown member).
pub const PROTOCOL_VERSION: &str = "1.5.0";

/// Runtime → Core, first frame of a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    pub version: String,
    /// A stable identifier of the Runtime (device or process).
    pub runtime_id: String,
    /// The Runtime's build version, for diagnostics only.
    pub runtime_version: String,
}

/// Core → Runtime: the connection is accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Welcome {
    pub version: String,
}

/// Core → Runtime: the connection is refused; Core closes it after this frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HelloRefused {
    /// `incompatible_version` for a version mismatch.
    pub code: String,
    pub message: String,
    pub supported_version: String,
}

impl Hello {
    /// A `hello` for this build of the protocol.
    pub fn current(runtime_id: impl Into<String>, runtime_version: impl Into<String>) -> Self {
        Hello {
            version: PROTOCOL_VERSION.to_owned(),
            runtime_id: runtime_id.into(),
            runtime_version: runtime_version.into(),
        }
    }

    /// Core's side of the handshake: welcome an exact version match, refuse anything else.
    pub fn answer(&self) -> Result<Welcome, HelloRefused> {
        if self.version == PROTOCOL_VERSION {
            Ok(Welcome {
                version: PROTOCOL_VERSION.to_owned(),
            })
        } else {
            Err(HelloRefused {
                code: "incompatible_version".to_owned(),
                message: format!(
                    "Runtime {} speaks protocol {} but this Core speaks {}; upgrade the older side.",
                    self.runtime_id, self.version, PROTOCOL_VERSION
                ),
                supported_version: PROTOCOL_VERSION.to_owned(),
            })
        }
    }
}
