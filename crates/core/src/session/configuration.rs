//! From the frozen Session snapshot to the configuration the Runtime receives.
//!
//! The public model and the protocol share their value types (`switchboard-vocabulary`), so
//! they cross unchanged. [`ExecutionControls`] carries an option only when the Agent set it or a pinned default
//! applies: an absent option keeps the harness's native behaviour.

use switchboard_execution::{
    ConnectionOrigin, McpTransport, ModelProvider, ResolvedAgent, ServiceTier, SessionSnapshot,
    TextFormat, Tool, Verbosity,
};
use switchboard_protocol::configuration::{
    ExecutionControls, FunctionToolSpec, ModelProviderConfig, OutputFormat,
    ProgrammaticToolCallingControl, ReasoningControl, SessionConfiguration, WebSearchControl,
};
use switchboard_protocol::{McpServer, McpStdioServer};

/// The snapshot `validate_selection` checks, from the resolved agent.
pub fn snapshot(
    agent: &ResolvedAgent,
    agent_id: Option<String>,
    placement: switchboard_execution::Placement,
    harness: switchboard_execution::HarnessId,
) -> SessionSnapshot {
    SessionSnapshot {
        agent_id,
        placement,
        harness,
        model: agent.model.clone(),
        instructions: agent.instructions.clone(),
        tools: agent.tools.clone(),
        text: agent.text.clone(),
        reasoning: agent.reasoning,
        service_tier: agent.service_tier,
        multi_agent: agent.multi_agent,
        model_provider: agent.x_agents_core.model_provider.clone(),
        harness_config: agent.x_agents_core.harness_config.clone(),
    }
}

/// The `execution_prepare` configuration. `provider` has its key open.
pub fn configuration(snap: &SessionSnapshot, provider: &ModelProvider) -> SessionConfiguration {
    let mut controls = ExecutionControls::default();
    if let TextFormat::JsonSchema { schema } = &snap.text.format {
        controls.output_format = Some(OutputFormat::json_schema(schema.clone()));
    }
    for tool in &snap.tools {
        match tool {
            Tool::WebSearch(w) => {
                controls.web_search = Some(WebSearchControl {
                    mode: w.mode,
                    context_size: w.context_size,
                    allowed_domains: w.allowed_domains.clone(),
                    location: w.location.clone(),
                })
            }
            Tool::ProgrammaticToolCalling(p) => {
                controls.programmatic_tool_calling =
                    Some(ProgrammaticToolCallingControl { enabled: p.enabled })
            }
            _ => {}
        }
    }
    if snap.text.verbosity != Verbosity::Medium {
        controls.text_verbosity = Some(snap.text.verbosity);
    }
    if snap.reasoning.effort.is_some() || snap.reasoning.summary.is_some() {
        controls.reasoning = Some(ReasoningControl {
            effort: snap.reasoning.effort,
            summary: snap.reasoning.summary,
        });
    }
    if snap.service_tier != ServiceTier::Auto {
        controls.service_tier = Some(snap.service_tier);
    }
    controls.subagents = subagent_control(snap);
    SessionConfiguration {
        harness: snap.harness,
        model: snap.model.clone(),
        instructions: snap.instructions.clone(),
        model_provider: ModelProviderConfig {
            protocol: provider.protocol,
            base_url: provider.base_url.clone(),
            api_key: provider.api_key.clone(),
            context_window: provider.context_window,
            max_output_tokens: provider.max_output_tokens,
        },
        function_tools: snap
            .functions()
            .map(|f| FunctionToolSpec {
                name: f.name.clone(),
                description: f.description.clone(),
                parameters: f.parameters.clone(),
                defer_loading: f.defer_loading,
            })
            .collect(),
        tool_search: snap.has_tool_search(),
        execution_controls: controls,
        mcp_servers: mcp_servers(snap, ConnectionOrigin::Service),
        mcp_environment_servers: mcp_servers(snap, ConnectionOrigin::Environment),
        mcp_stdio_servers: mcp_stdio_servers(snap),
        harness_config: snap.harness_config.clone(),
        workspace: None,
    }
}

/// The configuration with the Session's workspace, its `env` values opened (they are stored
/// sealed and travel open only in `execution_prepare`).
pub fn with_workspace(
    mut config: SessionConfiguration,
    workspace: Option<switchboard_protocol::Workspace>,
    secrets: &crate::secrets::SecretBox,
) -> Result<SessionConfiguration, crate::secrets::SecretError> {
    config.workspace = match workspace {
        Some(w) => Some(crate::environments::doc::open_env(w, secrets)?),
        None => None,
    };
    Ok(config)
}

/// The snapshot's HTTP MCP servers of `origin` in declared order, anonymous. A server with a
/// Vault credential gets its bearer from the credential selection frozen at create, which
/// fills `bearer` before dispatch; stdio servers are in [`mcp_stdio_servers`]. The origin is
/// kept through to the Runtime (never relocated): service-origin servers go through its
/// credential gateway, environment-origin ones are reached from the workspace.
pub fn mcp_servers(snap: &SessionSnapshot, origin: ConnectionOrigin) -> Vec<McpServer> {
    snap.mcp_servers()
        .filter(|(_, server)| server.connection_origin == origin)
        .filter_map(|(_, server)| match &server.transport {
            McpTransport::Http {
                server_url,
                headers,
            } => Some(McpServer {
                server_label: server.server_label.clone(),
                server_url: server_url.clone(),
                headers: headers.clone(),
                allowed_tools: server.allowed_tools.clone(),
                required: server.required,
                bearer: None,
            }),
            McpTransport::Stdio { .. } => None,
        })
        .collect()
}

/// Subagents run only on a multi-agent Session, with its limit.
fn subagent_control(
    snap: &SessionSnapshot,
) -> Option<switchboard_protocol::subagents::SubagentControl> {
    snap.multi_agent
        .enabled
        .then_some(switchboard_protocol::subagents::SubagentControl {
            max_concurrent: snap.multi_agent.max_concurrent_subagents,
        })
}

/// The snapshot's stdio MCP servers in declared order (admission allows them only on a
/// workspace placement). `env_vars` are names: their values are the Environment's, resolved by
/// the Runtime, and never pass through Core.
pub fn mcp_stdio_servers(snap: &SessionSnapshot) -> Vec<McpStdioServer> {
    snap.mcp_servers()
        .filter_map(|(_, server)| match &server.transport {
            McpTransport::Stdio {
                command,
                args,
                cwd,
                env_vars,
            } => Some(McpStdioServer {
                server_label: server.server_label.clone(),
                command: command.clone(),
                args: args.clone(),
                cwd: cwd.clone(),
                env_vars: env_vars.clone(),
                allowed_tools: server.allowed_tools.clone(),
                required: server.required,
            }),
            McpTransport::Http { .. } => None,
        })
        .collect()
}
