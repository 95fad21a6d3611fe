//! The ACP adapter: Sessions on an Agent Client Protocol agent (JSON-RPC 2.0 over stdio, ACP
//! protocol v1, the `agent-client-protocol` crate's message types), with everything
//! agent-specific in a [`Profile`].
//!
//! - [`profile`]: the agents: `minimax_code` (the product), `codex_acp` (the tests' stand-in).
//! - [`provider`]: how each agent's model provider is configured (MiniMax's `config.yaml`,
//!   codex-acp's `-c` overrides).
//! - [`rpc`]: framing, request/response matching, the inbound channel.
//! - [`functions`]: the Session's functions as the loopback MCP server `functions` (`rmcp`).
//! - [`receipts`]: a result is confirmed by the agent's `tool_call_update` carrying it.
//! - [`commands`]: the agent's native shell commands as `command_execution` Items.
//! - [`turn`]: the per-Turn driver: updates as Items, calls, permissions, cancel.
//! - [`executor`]: the [`SessionExecutor`], evictable, resumed with `session/load`.
//!
//! What is not ACP's (the hermetic process, the process slot, the Turn loop with its deadline,
//! the receipt table, JSON lines) is `switchboard_adapter_kit`'s.

pub mod commands;
pub mod executor;
pub mod functions;
pub mod profile;
pub mod provider;
pub mod receipts;
pub mod rpc;
pub mod turn;

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use switchboard_adapter_kit::adapter::Launch;
use switchboard_adapter_kit::turn::DEFAULT_TURN_DEADLINE;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::{
    Adapter, AdapterError, HarnessAdvertisement, HarnessState, PrepareRequest,
    SessionConfiguration, SessionExecutor,
};

pub use executor::AcpExecutor;
pub use profile::{CODEX_ACP, MINIMAX_CODE, Profile};

/// The ACP [`Adapter`] of one profile. `binary` is `None` when the agent is not installed: the
/// harness is then advertised missing, with the profile's reason, and every Session refused.
#[derive(Debug, Clone)]
pub struct AcpAdapter {
    profile: Profile,
    binary: Option<PathBuf>,
    turn_deadline: Duration,
}

impl AcpAdapter {
    pub fn new(profile: Profile, binary: Option<PathBuf>) -> Self {
        AcpAdapter {
            profile,
            binary,
            turn_deadline: DEFAULT_TURN_DEADLINE,
        }
    }

    pub fn with_turn_deadline(mut self, deadline: Duration) -> Self {
        self.turn_deadline = deadline;
        self
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }
}

#[async_trait]
impl Adapter for AcpAdapter {
    fn harness(&self) -> HarnessId {
        self.profile.harness
    }

    async fn advertise(&self) -> HarnessAdvertisement {
        let profile = &self.profile;
        let capabilities = profile.advertised();
        let Some(binary) = &self.binary else {
            let state = HarnessState::Failed {
                reason: profile.missing_hint.into(),
            };
            return HarnessAdvertisement::new(profile.harness, state, None, capabilities);
        };
        let version = profile.probe_version(binary).await;
        let state = match version.as_deref() {
            Some(v) if v == profile.pinned_version => HarnessState::Available,
            Some(v) => HarnessState::Failed {
                reason: format!(
                    "{} version {v} is installed but {} is pinned",
                    profile.name, profile.pinned_version
                ),
            },
            None => HarnessState::Failed {
                reason: format!("{} does not report its version", binary.display()),
            },
        };
        HarnessAdvertisement::new(profile.harness, state, version, capabilities)
    }

    async fn prepare(
        &self,
        request: PrepareRequest,
    ) -> Result<Box<dyn SessionExecutor>, AdapterError> {
        validate(&self.profile, &request.configuration)?;
        let Some(binary) = self.binary.clone().filter(|b| b.is_file()) else {
            return Err(AdapterError::Unavailable(self.profile.missing_hint.into()));
        };
        let launch = Launch {
            binary,
            state_dir: request.state_dir,
            configuration: request.configuration,
            turn_deadline: self.turn_deadline,
            placement: request.placement,
        };
        Ok(Box::new(AcpExecutor::prepare(self.profile, launch).await?))
    }
}

/// Rejects what this adapter cannot run, before any process starts (each rule is refused at
/// admission first, by the MiniMax Code declaration).
pub fn validate(profile: &Profile, config: &SessionConfiguration) -> Result<(), AdapterError> {
    if config.harness != profile.harness {
        return Err(AdapterError::InvalidConfiguration(format!(
            "the Session does not select {}",
            profile.harness.as_str()
        )));
    }
    if !config.function_tools.is_empty()
        && config
            .mcp_servers
            .iter()
            .any(|s| s.server_label == functions::SERVER_LABEL)
    {
        return Err(AdapterError::InvalidConfiguration(
            "an Agent with functions cannot use the MCP server label functions".into(),
        ));
    }
    Ok(())
}
