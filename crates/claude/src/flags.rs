//! The frozen configuration as the `claude` command line and environment.
//!
//! Every launch of a Session's process (the first and every `--resume`) passes the same list,
//! because claude keeps none of it for a resumed session except the system prompt: tools, MCP
//! servers, the schema and the model must be given again.
//!
//! Headless and driven by the adapter: `-p` with stream-json both ways, `--verbose` (required
//! for stream-json output), partial messages (text deltas as they stream), and permission asks
//! over the control protocol (`--permission-prompt-tool stdio`).
//!
//! The "none profile" (`environment: none`): `--tools=` keeps no built-in tool at all, so no
//! Bash, files, WebFetch, Task/Agent Subagents or REPL. Only these are added back:
//! - `ToolSearch` when deferred discovery is on (`ENABLE_TOOL_SEARCH=true` then withholds the
//!   deferred functions until the model loads them);
//! - `WebSearch` when `web_search` is `live` (it runs at the provider, not on this host);
//! - `Agent` on a multi-agent Session (native Subagents, [`crate::subagents`]), with background
//!   tasks disabled so each child runs inside its `Agent` call, within the root's Turn.
//!
//! On a workspace placement the native tool set runs instead, less what
//! [`crate::workspace_tools`] withholds.
//!
//! The functions server and those built-ins are pre-approved with `--allowedTools`, so a call
//! never waits on a permission ask. `StructuredOutput` (from `--json-schema`) is native and needs
//! no approval. Settings files and other MCP configurations are ignored (`--setting-sources=`,
//! `--strict-mcp-config`).
//!
//! The environment is empty except for what claude needs: a private `HOME` and
//! `CLAUDE_CONFIG_DIR`, the provider's URL and key (never on argv), no telemetry, error
//! reporting, auto-update or nonessential traffic, and no retries: a failing provider fails the
//! Turn at once instead of after minutes of backoff (Switchboard decides about retries).

use switchboard_protocol::SessionConfiguration;
use switchboard_protocol::configuration::{ReasoningEffort, WebSearchMode};

use crate::layout::StateLayout;
use crate::workspace_tools;

/// The reserved label of the adapter's own MCP server.
pub const FUNCTIONS_SERVER: &str = "functions";
/// The native deferred-discovery tool.
pub const TOOL_SEARCH: &str = "ToolSearch";
/// The native web search tool (provider-side search).
pub const WEB_SEARCH: &str = "WebSearch";
/// The native terminal tool `--json-schema` adds.
pub const STRUCTURED_OUTPUT: &str = "StructuredOutput";

/// How the process opens its native session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeSession<'a> {
    /// A new session under an id the adapter chose (`--session-id`).
    Start(&'a str),
    /// An existing transcript (`--resume`).
    Resume(&'a str),
}

/// The built-in tools the Session keeps (`--tools`).
pub fn builtin_tools(config: &SessionConfiguration) -> Vec<&'static str> {
    let mut tools = Vec::new();
    if config.tool_search {
        tools.push(TOOL_SEARCH);
    }
    if web_search_live(config) {
        tools.push(WEB_SEARCH);
    }
    if multi_agent(config) {
        tools.push(crate::subagents::AGENT_TOOL);
    }
    tools
}

/// A multi-agent Session: native Subagents on.
pub fn multi_agent(config: &SessionConfiguration) -> bool {
    config.execution_controls.subagents.is_some()
}

/// Everything pre-approved (`--allowedTools`): the functions server and the kept built-ins.
pub fn allowed_tools(config: &SessionConfiguration) -> Vec<String> {
    let mut allowed = Vec::new();
    if !config.function_tools.is_empty() {
        allowed.push(format!("mcp__{FUNCTIONS_SERVER}"));
    }
    allowed.extend(builtin_tools(config).into_iter().map(str::to_owned));
    allowed
}

fn web_search_live(config: &SessionConfiguration) -> bool {
    config
        .execution_controls
        .web_search
        .as_ref()
        .is_some_and(|w| w.mode == WebSearchMode::Live)
}

/// Which built-in tool set the Session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolProfile {
    /// `environment: none`: no built-ins but those the controls add back.
    None,
    /// A workspace placement: the native set minus [`crate::workspace_tools::withheld`].
    Workspace,
}

impl ToolProfile {
    /// The profile of a Session run at `placement` (`None`: `environment: none`).
    pub fn at(placement: Option<&switchboard_protocol::ProcessPlacement>) -> ToolProfile {
        match placement {
            Some(_) => ToolProfile::Workspace,
            None => ToolProfile::None,
        }
    }
}

/// The command line after the binary.
pub fn arguments(
    config: &SessionConfiguration,
    layout: &StateLayout,
    session: NativeSession<'_>,
    profile: ToolProfile,
) -> Vec<String> {
    let mut args: Vec<String> = [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--permission-prompt-tool",
        "stdio",
        "--setting-sources=",
        "--strict-mcp-config",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    args.push("--model".into());
    args.push(config.model.clone());
    // The `=` form: these options are variadic and would otherwise swallow the next argument.
    match profile {
        ToolProfile::None => {
            args.push(format!("--tools={}", builtin_tools(config).join(",")));
        }
        ToolProfile::Workspace => {
            args.push("--tools=default".into());
            let withheld = workspace_tools::withheld(config);
            args.push(format!("--disallowedTools={}", withheld.join(",")));
        }
    }
    let allowed = allowed_tools(config);
    if !allowed.is_empty() {
        args.push(format!("--allowedTools={}", allowed.join(",")));
    }
    args.push("--mcp-config".into());
    args.push(mcp_config(config));
    if config.instructions.is_some() {
        args.push("--append-system-prompt-file".into());
        args.push(layout.instructions_file().to_string_lossy().into_owned());
    }
    if let Some(format) = &config.execution_controls.output_format {
        // The schema as the Agent wrote it: the workspace's serde_json keeps every number's
        // digits and the key order, so this is the same JSON text (modulo whitespace).
        args.push("--json-schema".into());
        args.push(format.schema.to_string());
    }
    if let Some(effort) = effort(config) {
        args.push("--effort".into());
        args.push(effort.into());
    }
    match session {
        NativeSession::Start(id) => {
            args.push("--session-id".into());
            args.push(id.into());
        }
        NativeSession::Resume(id) => {
            args.push("--resume".into());
            args.push(id.into());
        }
    }
    args
}

/// `--mcp-config`: the in-process `functions` server, served over the control protocol.
fn mcp_config(config: &SessionConfiguration) -> String {
    let servers = if config.function_tools.is_empty() {
        serde_json::json!({})
    } else {
        serde_json::json!({FUNCTIONS_SERVER: {"type": "sdk", "name": FUNCTIONS_SERVER}})
    };
    serde_json::json!({ "mcpServers": servers }).to_string()
}

/// The native `--effort`: `reasoning.effort`, else `harness_config.effort`.
fn effort(config: &SessionConfiguration) -> Option<&'static str> {
    let from_reasoning = config
        .execution_controls
        .reasoning
        .and_then(|r| r.effort)
        .and_then(native_effort);
    from_reasoning.or_else(|| {
        let value = config.harness_config.as_ref()?.get("effort")?.as_str()?;
        ["low", "medium", "high", "xhigh", "max"]
            .into_iter()
            .find(|e| *e == value)
    })
}

pub(crate) fn native_effort(effort: ReasoningEffort) -> Option<&'static str> {
    match effort {
        ReasoningEffort::Low => Some("low"),
        ReasoningEffort::Medium => Some("medium"),
        ReasoningEffort::High => Some("high"),
        ReasoningEffort::Xhigh => Some("xhigh"),
        ReasoningEffort::Max => Some("max"),
        ReasoningEffort::None | ReasoningEffort::Minimal => None,
    }
}

/// The environment of the process beyond `PATH` (it starts empty), for a Session on `profile`.
pub fn environment(
    config: &SessionConfiguration,
    layout: &StateLayout,
    profile: ToolProfile,
) -> Vec<(String, String)> {
    let provider = &config.model_provider;
    let mut env: Vec<(&str, String)> = vec![
        ("HOME", layout.home().to_string_lossy().into_owned()),
        (
            "CLAUDE_CONFIG_DIR",
            layout.config_dir().to_string_lossy().into_owned(),
        ),
        ("TMPDIR", layout.tmp_dir().to_string_lossy().into_owned()),
        (
            "CLAUDE_CODE_TMPDIR",
            layout.tmp_dir().to_string_lossy().into_owned(),
        ),
        (
            "ANTHROPIC_BASE_URL",
            provider.base_url.trim_end_matches('/').to_owned(),
        ),
        ("ANTHROPIC_API_KEY", provider.api_key.clone()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_TELEMETRY", "1".into()),
        ("DISABLE_ERROR_REPORTING", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
        ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
        // What the Agent SDK sets; claude words its system prompt for an SDK host.
        ("CLAUDE_CODE_ENTRYPOINT", "sdk-ts".into()),
        (
            "ENABLE_TOOL_SEARCH",
            if config.tool_search { "true" } else { "false" }.into(),
        ),
    ];
    if profile == ToolProfile::None {
        // With no workspace, a checkout around the state directory is the host's (the data
        // directory often lies in one): claude would put its branch, status and latest commits
        // in the model's context. It ignores `GIT_CEILING_DIRECTORIES`, which keeps codex out
        // (`adapter_kit::process`), but this leaves that context out, with the commit and pull
        // request instructions that need a workspace anyway.
        env.push(("CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS", "1".into()));
    }
    if multi_agent(config) {
        // An `Agent` call then runs its child in the foreground, whatever `run_in_background`
        // says: the child is observed within the Turn and its function calls are the Turn's.
        env.push(("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1".into()));
    }
    if let Some(max) = provider.max_output_tokens {
        env.push(("CLAUDE_CODE_MAX_OUTPUT_TOKENS", max.to_string()));
    }
    if let Some(window) = provider.context_window {
        env.push(("CLAUDE_CODE_MAX_CONTEXT_TOKENS", window.to_string()));
        env.push(("CLAUDE_CODE_AUTO_COMPACT_WINDOW", window.to_string()));
    }
    env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use switchboard_protocol::configuration::{
        ContextSize, HarnessId, ProviderProtocol, ReasoningControl,
    };
    use switchboard_protocol::{
        ExecutionControls, FunctionToolSpec, ModelProviderConfig, OutputFormat, WebSearchControl,
    };

    /// A valid configuration on the none profile (the crate's unit tests start from it).
    pub(crate) fn config() -> SessionConfiguration {
        SessionConfiguration {
            harness: HarnessId::ClaudeCode,
            model: "claude-fake-1".into(),
            instructions: None,
            model_provider: ModelProviderConfig {
                protocol: ProviderProtocol::Anthropic,
                base_url: "http://127.0.0.1:9/".into(),
                api_key: "secret".into(),
                context_window: None,
                max_output_tokens: Some(1000),
            },
            function_tools: vec![],
            tool_search: false,
            execution_controls: ExecutionControls::default(),
            mcp_servers: vec![],
            mcp_stdio_servers: vec![],
            mcp_environment_servers: vec![],
            harness_config: None,
            workspace: None,
        }
    }

    fn layout() -> StateLayout {
        StateLayout::new("/state".into())
    }

    #[test]
    fn none_profile_keeps_no_builtins_and_no_key_on_argv() {
        let args = arguments(
            &config(),
            &layout(),
            NativeSession::Start("sid"),
            ToolProfile::None,
        );
        assert!(args.contains(&"--tools=".to_owned()));
        assert!(!args.iter().any(|a| a.starts_with("--allowedTools")));
        assert!(args.iter().all(|a| !a.contains("secret")));
        assert_eq!(args[args.len() - 2..], ["--session-id", "sid"]);
        let env = environment(&config(), &layout(), ToolProfile::None);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("ANTHROPIC_BASE_URL"), Some("http://127.0.0.1:9"));
        assert_eq!(get("ENABLE_TOOL_SEARCH"), Some("false"));
        assert_eq!(get("CLAUDE_CODE_MAX_RETRIES"), Some("0"));
        assert_eq!(get("CLAUDE_CODE_MAX_OUTPUT_TOKENS"), Some("1000"));
        assert_eq!(get("CLAUDE_CONFIG_DIR"), Some("/state/claude-config"));
    }

    /// Only a Session with no workspace leaves git out: in a workspace the checkout is the
    /// Environment's own.
    #[test]
    fn git_context_is_left_out_only_without_a_workspace() {
        let git = |profile| {
            environment(&config(), &layout(), profile)
                .into_iter()
                .find(|(k, _)| k == "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS")
                .map(|(_, v)| v)
        };
        assert_eq!(git(ToolProfile::None).as_deref(), Some("1"));
        assert_eq!(git(ToolProfile::Workspace), None);
    }

    #[test]
    fn a_multi_agent_session_keeps_the_agent_tool_in_the_foreground() {
        let mut c = config();
        c.execution_controls.subagents = Some(switchboard_protocol::subagents::SubagentControl {
            max_concurrent: None,
        });
        let args = arguments(&c, &layout(), NativeSession::Start("s"), ToolProfile::None);
        assert!(args.contains(&"--tools=Agent".to_owned()));
        assert!(args.contains(&"--allowedTools=Agent".to_owned()));
        let env = environment(&c, &layout(), ToolProfile::None);
        assert!(env.contains(&("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS".into(), "1".into())));
        assert!(!workspace_tools::withheld(&c).contains(&"Agent"));
        // Not multi-agent: no Agent, and background tasks stay claude's default.
        let args = arguments(
            &config(),
            &layout(),
            NativeSession::Start("s"),
            ToolProfile::None,
        );
        assert!(args.contains(&"--tools=".to_owned()));
        let env = environment(&config(), &layout(), ToolProfile::None);
        assert!(
            env.iter()
                .all(|(k, _)| k != "CLAUDE_CODE_DISABLE_BACKGROUND_TASKS")
        );
        assert!(workspace_tools::withheld(&config()).contains(&"Agent"));
    }

    #[test]
    fn controls_add_exactly_their_tools_and_flags() {
        let mut c = config();
        c.function_tools = vec![FunctionToolSpec {
            name: "f".into(),
            description: "d".into(),
            parameters: serde_json::json!({"type": "object"}),
            defer_loading: true,
        }];
        c.tool_search = true;
        c.instructions = Some("be brief".into());
        c.execution_controls.web_search = Some(WebSearchControl {
            mode: WebSearchMode::Live,
            context_size: ContextSize::Medium,
            allowed_domains: None,
            location: None,
        });
        let schema = r#"{"type":"object","properties":{"n":{"type":"number","maximum":10.50}}}"#;
        c.execution_controls.output_format = Some(OutputFormat::json_schema(
            serde_json::from_str(schema).unwrap(),
        ));
        c.execution_controls.reasoning = Some(ReasoningControl {
            effort: Some(ReasoningEffort::Xhigh),
            summary: None,
        });
        let args = arguments(
            &c,
            &layout(),
            NativeSession::Resume("sid"),
            ToolProfile::None,
        );
        for expected in [
            "--tools=ToolSearch,WebSearch",
            "--allowedTools=mcp__functions,ToolSearch,WebSearch",
            schema,
            "/state/instructions.txt",
            "xhigh",
            r#"{"mcpServers":{"functions":{"type":"sdk","name":"functions"}}}"#,
        ] {
            assert!(
                args.contains(&expected.to_owned()),
                "{expected} not in {args:?}"
            );
        }
        assert_eq!(args[args.len() - 2..], ["--resume", "sid"]);
        let env = environment(&c, &layout(), ToolProfile::None);
        assert!(env.contains(&("ENABLE_TOOL_SEARCH".into(), "true".into())));
    }

    #[test]
    fn a_workspace_runs_the_native_set_less_the_withheld_tools() {
        let args = arguments(
            &config(),
            &layout(),
            NativeSession::Start("sid"),
            ToolProfile::Workspace,
        );
        assert!(args.contains(&"--tools=default".to_owned()));
        assert!(
            args.contains(
                &"--disallowedTools=AskUserQuestion,CronCreate,CronDelete,CronList,ScheduleWakeup,\
              Workflow,Monitor,TaskStop,SendMessage,ListAgents,Agent"
                    .to_owned()
            )
        );
    }

    #[test]
    fn disabled_web_search_adds_nothing() {
        let mut c = config();
        c.execution_controls.web_search = Some(WebSearchControl {
            mode: WebSearchMode::Disabled,
            context_size: ContextSize::Medium,
            allowed_domains: None,
            location: None,
        });
        assert!(builtin_tools(&c).is_empty());
        assert!(allowed_tools(&c).is_empty());
    }
}
