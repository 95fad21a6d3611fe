//! The Claude Code adapter: Sessions on the native `claude` binary.
//!
//! One hermetic `claude -p` process per Session executor, driven over stream-json on stdio and
//! claude's control protocol (the one the Agent SDKs speak), against an Anthropic-protocol model
//! provider. The pieces, each in its own module:
//!
//! - [`binary`]: the pinned version and where its native binary is.
//! - [`layout`]: the Session's state directory (private `HOME`, `CLAUDE_CONFIG_DIR`, transcripts).
//! - [`flags`]: the frozen configuration as argv and environment, re-applied on every launch.
//! - [`workspace_tools`]: the native tool set of a workspace Session, less what it withholds.
//! - [`launch`]: the hermetic process and the control protocol's `initialize`.
//! - [`stream`]: framing, control requests both ways, the inbound channel.
//! - [`functions`]: functions as tools of the adapter's in-process MCP server `functions`.
//! - [`input`]: user input parts as Anthropic content blocks.
//! - [`native_result`]: what claude records for a function result, for receipts.
//! - [`receipts`]: confirming a result only on its matching live native record.
//! - [`structured`]: `--json-schema` and the final answer from `result.result`.
//! - [`subagents`]: the native `Agent` tool's children, observed.
//! - [`events`]: stream-json messages as adapter events (phases, usage, error codes).
//! - [`commands`]: `Bash` calls as `command_execution`s.
//! - [`web_search`]: `WebSearch` calls (and provider search blocks) as `web_search_call`s.
//! - [`turn`]: the per-Turn driver: calls, steering, cancel, deadline.
//! - [`resume`]: the native session id, `--session-id` or `--resume`.
//! - [`executor`]: the [`SessionExecutor`], evictable.
//!
//! What is not claude's (the `Adapter` itself, the hermetic process, the executor's process slot,
//! the Turn loop with its deadline and commands, the receipt table, JSON lines) is
//! `switchboard_adapter_kit`'s: this crate declares the harness ([`NativeHarness`]) and speaks
//! its protocol.

pub mod binary;
pub mod commands;
pub mod events;
pub mod executor;
pub mod flags;
pub mod functions;
pub mod input;
pub mod inventory;
pub mod launch;
pub mod layout;
pub mod mcp;
pub mod native_result;
pub mod receipts;
pub mod resume;
pub mod stream;
pub mod structured;
pub mod subagents;
pub mod turn;
pub mod web_search;
pub mod workspace_tools;

use async_trait::async_trait;
use serde_json::Value;
use switchboard_adapter_kit::adapter::{Launch, NativeAdapter, NativeHarness};
use switchboard_adapter_kit::binary::PinnedBinary;
use switchboard_protocol::configuration::{
    ContextSize, HarnessId, ProviderProtocol, ReasoningEffort, ServiceTier, Verbosity,
    WebSearchMode,
};
use switchboard_protocol::{AdapterError, Capabilities, SessionConfiguration, SessionExecutor};

pub use binary::PINNED_VERSION;
pub use executor::ClaudeExecutor;
pub use switchboard_adapter_kit::turn::DEFAULT_TURN_DEADLINE;

/// The Claude Code [`Adapter`](switchboard_protocol::Adapter).
pub type ClaudeAdapter = NativeAdapter<ClaudeCode>;

/// What Claude Code adds to the shared adapter (no settings of its own).
#[derive(Debug, Clone, Default)]
pub struct ClaudeCode;

#[async_trait]
impl NativeHarness for ClaudeCode {
    const HARNESS: HarnessId = HarnessId::ClaudeCode;
    const PINNED: PinnedBinary = binary::PINNED;

    /// What this adapter implements, for the Runtime's advertisement. Each is exercised against
    /// the pinned binary by this crate's tests; HTTP MCP servers come through the Runtime's
    /// credential gateway ([`mcp`]); native Subagents are observed by [`subagents`].
    fn capabilities() -> Capabilities {
        Capabilities {
            streaming: true,
            usage: true,
            resume: true,
            steering: true,
            message_items: true,
            tool_observations: true,
            environment_none: true,
            preparation: true,
            programmatic_tool_calling_disable: true,
            web_search_control: true,
            execution_controls: true,
            structured_output: true,
            // On workspaces too (`tests/workspace.rs::structured_output_runs_on_a_workspace`).
            workspace_structured_output: true,
            tool_search: true,
            message_images: true,
            function_result_images: true,
            durable_input_receipts: true,
            durable_turns: true,
            function_tools: true,
            subagent_control: true,
            subagent_observations: true,
            // Workspaces: the harness works in the placement's directory (self-hosted) or
            // inside its sandbox (managed: the Runtime withdraws this without bubblewrap).
            local_environment: true,
            workspace_authoring: true,
            workspace_read_preparation: true,
            workspace_output_export: true,
            managed_workspace: true,
            mcp_http_tools: true,
            mcp_http_required: true,
            mcp_http_bearer_auth: true,
            ..Capabilities::default()
        }
    }

    fn validate(config: &SessionConfiguration) -> Result<(), AdapterError> {
        validate(config)
    }

    async fn prepare(&self, launch: Launch) -> Result<Box<dyn SessionExecutor>, AdapterError> {
        Ok(Box::new(ClaudeExecutor::prepare(launch).await?))
    }
}

fn invalid(message: impl Into<String>) -> AdapterError {
    AdapterError::InvalidConfiguration(message.into())
}

/// Rejects what this adapter cannot run, before any process starts. Every rule here is also
/// Claude Code declaration data, checked at Session admission first
/// (`switchboard/tests/admission_table.rs` runs each rule against admission).
pub fn validate(config: &SessionConfiguration) -> Result<(), AdapterError> {
    if config.harness != HarnessId::ClaudeCode {
        return Err(invalid("the Session does not select claude_code"));
    }
    if config.model_provider.protocol != ProviderProtocol::Anthropic {
        return Err(invalid(
            "Claude Code needs a model provider that speaks the Anthropic protocol",
        ));
    }
    if config.model.trim().is_empty() {
        return Err(invalid("model must be a nonempty model identifier"));
    }
    if config.model.contains('\0') {
        // `--model` is a process argument, which ends at NUL.
        return Err(invalid(
            "model cannot contain NUL (it is passed as --model)",
        ));
    }
    mcp::validate(config)?;
    functions::validate(&config.function_tools).map_err(invalid)?;
    let controls = &config.execution_controls;
    if let Some(web_search) = &controls.web_search {
        if web_search.mode == WebSearchMode::Cached {
            return Err(invalid(
                "Claude Code supports web_search modes disabled and live",
            ));
        }
        if web_search.context_size != ContextSize::Medium
            || web_search.allowed_domains.is_some()
            || web_search.location.is_some()
        {
            return Err(invalid(
                "Claude Code takes web_search with context_size medium and no allowed_domains or location",
            ));
        }
    }
    if controls
        .programmatic_tool_calling
        .is_some_and(|p| p.enabled)
    {
        return Err(invalid(
            "Claude Code supports programmatic_tool_calling disabled only",
        ));
    }
    if controls
        .text_verbosity
        .is_some_and(|v| v != Verbosity::Medium)
    {
        return Err(invalid("Claude Code supports text verbosity medium only"));
    }
    if let Some(reasoning) = controls.reasoning {
        if reasoning.summary.is_some() {
            return Err(invalid("Claude Code has no reasoning summary setting"));
        }
        if reasoning
            .effort
            .is_some_and(|e| matches!(e, ReasoningEffort::None | ReasoningEffort::Minimal))
        {
            return Err(invalid(
                "Claude Code supports reasoning effort low, medium, high, xhigh and max",
            ));
        }
    }
    if controls
        .service_tier
        .is_some_and(|t| t != ServiceTier::Auto)
    {
        return Err(invalid("Claude Code supports service tier auto only"));
    }
    if let Some(format) = &controls.output_format
        && format.schema.get("type").and_then(Value::as_str) != Some("object")
    {
        return Err(invalid(
            "Claude Code needs an output schema with \"type\": \"object\" at its root",
        ));
    }
    validate_harness_config(config)
}

/// `harness_config`: only `effort` is applied (as `--effort`); anything else would be silently
/// ignored, so it is refused.
fn validate_harness_config(config: &SessionConfiguration) -> Result<(), AdapterError> {
    let Some(harness_config) = &config.harness_config else {
        return Ok(());
    };
    for (key, value) in harness_config {
        match key.as_str() {
            "effort" => {
                let known = ["low", "medium", "high", "xhigh", "max"];
                if !value.as_str().is_some_and(|v| known.contains(&v)) {
                    return Err(invalid(
                        "harness_config.effort must be one of low, medium, high, xhigh, max",
                    ));
                }
            }
            other => {
                return Err(invalid(format!(
                    "harness_config.{other} is not supported by this Runtime yet"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::tests::config;
    use switchboard_protocol::{OutputFormat, ProgrammaticToolCallingControl, WebSearchControl};

    #[test]
    fn validation_follows_the_declaration() {
        assert!(validate(&config()).is_ok());
        let mut c = config();
        c.model_provider.protocol = ProviderProtocol::Responses;
        assert!(validate(&c).is_err());
        let mut c = config();
        c.execution_controls.web_search = Some(WebSearchControl {
            mode: WebSearchMode::Cached,
            context_size: ContextSize::Medium,
            allowed_domains: None,
            location: None,
        });
        assert!(validate(&c).is_err());
        let mut c = config();
        c.execution_controls.programmatic_tool_calling =
            Some(ProgrammaticToolCallingControl { enabled: true });
        assert!(validate(&c).is_err());
        c.execution_controls.programmatic_tool_calling =
            Some(ProgrammaticToolCallingControl { enabled: false });
        assert!(validate(&c).is_ok());
        let mut c = config();
        c.execution_controls.output_format = Some(OutputFormat::json_schema(
            serde_json::json!({"type": "array"}),
        ));
        assert!(validate(&c).is_err());
        let mut c = config();
        c.harness_config = Some(serde_json::from_str(r#"{"effort": "max"}"#).unwrap());
        assert!(validate(&c).is_ok());
        c.harness_config = Some(serde_json::from_str(r#"{"thinking": {}}"#).unwrap());
        assert!(validate(&c).is_err());
    }
}
