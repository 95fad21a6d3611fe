//! The Core–Runtime wire is a committed file, not a copy of types.
//!
//! `wire_snapshot.json` beside this test holds one canonical sample of every `CoreToRuntime` and
//! `RuntimeToCore` frame (a few frames more than once, where a payload has distinct shapes), as
//! the frame text a peer sends, plus the spelling of every value of every wire enum. The test
//! fails when a change to a public type (a payload, or a value type shared with the execution
//! model through `switchboard-vocabulary`) would move that wire: a rename, a new or missing
//! member, a changed tag. Each committed frame must also decode back into its sample, so the
//! receiving side is pinned too. An intended wire change regenerates the file with
//! `UPDATE_WIRE_SNAPSHOT=1 cargo nextest run -p switchboard-protocol -E 'test(wire_snapshot)'`,
//! and goes with a protocol version bump.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value, json};
use switchboard_protocol::envelope::{Envelope, MessageSet};
use switchboard_protocol::messages::*;
use switchboard_protocol::*;

const UPDATE: &str = "UPDATE_WIRE_SNAPSHOT";

fn exact(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn configuration() -> SessionConfiguration {
    SessionConfiguration {
        harness: HarnessId::Codex,
        model: "gpt-test".into(),
        instructions: Some("Be brief.".into()),
        model_provider: ModelProviderConfig {
            protocol: ProviderProtocol::Responses,
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key: "sk-test".into(),
            context_window: Some(200_000),
            max_output_tokens: Some(8_192),
        },
        function_tools: vec![FunctionToolSpec {
            name: "get_weather".into(),
            description: "Weather for a city".into(),
            parameters: exact(
                r#"{"type":"object","properties":{"t":{"type":"number","maximum":1.000}}}"#,
            ),
            defer_loading: true,
        }],
        tool_search: true,
        execution_controls: ExecutionControls {
            output_format: Some(OutputFormat::json_schema(exact(
                r#"{"type":"object","properties":{"p":{"multipleOf":0.10}}}"#,
            ))),
            web_search: Some(WebSearchControl {
                mode: WebSearchMode::Cached,
                context_size: ContextSize::High,
                allowed_domains: Some(vec!["example.com".into()]),
                location: Some(WebSearchLocation {
                    city: Some("Paris".into()),
                    country: Some("FR".into()),
                    region: None,
                    timezone: Some("Europe/Paris".into()),
                }),
            }),
            programmatic_tool_calling: Some(ProgrammaticToolCallingControl { enabled: false }),
            text_verbosity: Some(Verbosity::Low),
            reasoning: Some(ReasoningControl {
                effort: Some(ReasoningEffort::High),
                summary: Some(ReasoningSummary::Concise),
            }),
            service_tier: Some(ServiceTier::Flex),
            subagents: Some(subagents::SubagentControl {
                max_concurrent: Some(3),
            }),
        },
        mcp_servers: vec![
            McpServer {
                server_label: "tickets".into(),
                server_url: "https://mcp.example.com/mcp".into(),
                headers: Map::from_iter([("X-Team".to_owned(), json!("support"))]),
                allowed_tools: Some(vec!["lookup_ticket".into()]),
                required: true,
                bearer: Some("tok-test".into()),
            },
            McpServer {
                server_label: "docs".into(),
                server_url: "http://127.0.0.1:9/mcp".into(),
                headers: Map::new(),
                allowed_tools: None,
                required: false,
                bearer: None,
            },
        ],
        mcp_environment_servers: vec![McpServer {
            server_label: "wiki".into(),
            server_url: "http://127.0.0.1:8931/mcp".into(),
            headers: Map::from_iter([("X-Team".to_owned(), json!("docs"))]),
            allowed_tools: None,
            required: false,
            bearer: None,
        }],
        mcp_stdio_servers: vec![McpStdioServer {
            server_label: "labio".into(),
            command: "/usr/bin/labio".into(),
            args: vec!["--stdio".into()],
            cwd: "/workspace".into(),
            env_vars: vec!["LAB_TOKEN".into()],
            allowed_tools: Some(vec![]),
            required: true,
        }],
        harness_config: Some(Map::from_iter([("sandbox".to_owned(), json!("read-only"))])),
        workspace: None,
    }
}

fn capabilities() -> Capabilities {
    Capabilities {
        streaming: true,
        usage: true,
        function_tools: true,
        structured_output: true,
        ..Capabilities::default()
    }
}

fn text(t: &str) -> InputPart {
    InputPart::InputText { text: t.into() }
}

fn image() -> InputPart {
    InputPart::InputImage {
        image_url: "data:image/png;base64,iVBORw0KGgo=".into(),
    }
}

/// Every Core → Runtime frame, with its frame id.
fn core_to_runtime() -> Vec<Envelope<CoreToRuntime>> {
    let session = Some("sesn_1".to_owned());
    let run = Some("run_1".to_owned());
    let frames: Vec<(Option<String>, CoreToRuntime)> = vec![
        (
            None,
            Welcome {
                version: PROTOCOL_VERSION.into(),
            }
            .into(),
        ),
        (
            None,
            HelloRefused {
                code: "incompatible_version".into(),
                message: "upgrade the older side.".into(),
                supported_version: PROTOCOL_VERSION.into(),
            }
            .into(),
        ),
        (
            session.clone(),
            ExecutionPrepare {
                session_id: "sesn_1".into(),
                configuration: configuration(),
            }
            .into(),
        ),
        (
            session.clone(),
            ExecutionPrepare {
                session_id: "sesn_1".into(),
                configuration: SessionConfiguration {
                    harness: HarnessId::ClaudeCode,
                    instructions: None,
                    model_provider: ModelProviderConfig {
                        protocol: ProviderProtocol::Anthropic,
                        base_url: "http://127.0.0.1:9".into(),
                        api_key: "sk-test".into(),
                        context_window: None,
                        max_output_tokens: None,
                    },
                    function_tools: vec![],
                    tool_search: false,
                    // Absent options are omitted, not null.
                    execution_controls: ExecutionControls::default(),
                    harness_config: None,
                    ..configuration()
                },
            }
            .into(),
        ),
        (
            session.clone(),
            ExecutionPrepare {
                session_id: "sesn_2".into(),
                configuration: SessionConfiguration {
                    workspace: Some(Workspace {
                        environment_id: "env_1".into(),
                        placement: WorkspacePlacement::Managed,
                        directory: MANAGED_WORKSPACE_DIRECTORY.into(),
                        capability_directories: vec![],
                        network: NetworkAccess::Disabled,
                        env: [("TOKEN".to_owned(), "s3cret".to_owned())].into(),
                        files: vec![WorkspaceFile {
                            path: "/workspace/a.txt".into(),
                            data: "aGk=".into(),
                        }],
                        setup_commands: vec![SetupCommand {
                            command: "make".into(),
                            cwd: None,
                        }],
                    }),
                    ..configuration()
                },
            }
            .into(),
        ),
        (
            session.clone(),
            ExecutionPrepare {
                session_id: "sesn_3".into(),
                configuration: SessionConfiguration {
                    workspace: Some(Workspace {
                        environment_id: "env_2".into(),
                        placement: WorkspacePlacement::SelfHosted,
                        directory: "/home/me/project".into(),
                        capability_directories: vec!["/home/me/skills".into()],
                        network: NetworkAccess::Enabled,
                        env: Default::default(),
                        files: vec![],
                        setup_commands: vec![],
                    }),
                    ..configuration()
                },
            }
            .into(),
        ),
        (
            Some("wsreq_1".into()),
            WorkspaceWrite {
                environment_id: "env_1".into(),
                placement: WorkspacePlacement::Managed,
                file: WorkspaceFile {
                    path: "/workspace/b.txt".into(),
                    data: "aGk=".into(),
                },
            }
            .into(),
        ),
        (
            Some("wsreq_2".into()),
            WorkspaceList {
                environment_id: "env_1".into(),
                placement: WorkspacePlacement::Managed,
                path: Some("/workspace".into()),
            }
            .into(),
        ),
        (
            Some("wsreq_3".into()),
            WorkspaceRemove {
                environment_id: "env_1".into(),
            }
            .into(),
        ),
        (
            run.clone(),
            ExecutionStart {
                session_id: "sesn_1".into(),
                run_id: "run_1".into(),
                turn_id: "turn_1".into(),
                traceparent: Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into()),
                input: vec![text("Hello"), image()],
            }
            .into(),
        ),
        (
            session,
            ExecutionRelease {
                session_id: "sesn_1".into(),
            }
            .into(),
        ),
        (
            run.clone(),
            PromptSteer {
                input_id: "input_1".into(),
                input: vec![text("Also this")],
            }
            .into(),
        ),
        (run.clone(), PromptCancel {}.into()),
        (
            run.clone(),
            FunctionResult {
                delivery_id: "dlv_1".into(),
                call_id: "call_1".into(),
                success: true,
                output: Some(FunctionOutput::Text("18 C".into())),
                error: None,
            }
            .into(),
        ),
        (
            run,
            FunctionResult {
                delivery_id: "dlv_2".into(),
                call_id: "call_2".into(),
                success: false,
                output: Some(FunctionOutput::Parts(vec![text("partial"), image()])),
                error: Some("timed out".into()),
            }
            .into(),
        ),
    ];
    frames
        .into_iter()
        .map(|(id, m)| Envelope::new(id, m))
        .collect()
}

/// Every Runtime → Core frame, with its frame id.
fn runtime_to_core() -> Vec<Envelope<RuntimeToCore>> {
    let session = Some("sesn_1".to_owned());
    let run = Some("run_1".to_owned());
    let usage = Usage {
        input_tokens: 120,
        cached_input_tokens: 20,
        output_tokens: 30,
        reasoning_output_tokens: 5,
        total_tokens: 150,
    };
    let advertisements = vec![
        HarnessAdvertisement::new(
            HarnessId::Codex,
            HarnessState::Available,
            Some("0.171.0".into()),
            capabilities(),
        ),
        HarnessAdvertisement::new(
            HarnessId::ClaudeCode,
            HarnessState::Installing,
            None,
            Capabilities::default(),
        ),
        HarnessAdvertisement::new(
            HarnessId::MinimaxCode,
            HarnessState::Missing,
            None,
            Capabilities::default(),
        ),
        HarnessAdvertisement::new(
            HarnessId::Codex,
            HarnessState::Failed {
                reason: "version 0.1.0 is not the pinned 0.171.0".into(),
            },
            None,
            capabilities(),
        ),
    ];
    let frames: Vec<(Option<String>, RuntimeToCore)> = vec![
        (None, Hello::current("rt_1", "0.1.0").into()),
        (
            None,
            Heartbeat {
                supported_harnesses: advertisements,
            }
            .into(),
        ),
        (
            session.clone(),
            PreparationStatus {
                session_id: "sesn_1".into(),
                state: PreparationState::Ready,
                error_code: None,
                error: None,
            }
            .into(),
        ),
        (
            session,
            PreparationStatus {
                session_id: "sesn_1".into(),
                state: PreparationState::Failed,
                error_code: Some("harness_unavailable".into()),
                error: Some("codex is not installed".into()),
            }
            .into(),
        ),
        (
            run.clone(),
            OutputMessage {
                id: "msg_1".into(),
                status: MessageStatus::InProgress,
                phase: None,
                text: String::new(),
            }
            .into(),
        ),
        (
            run.clone(),
            Delta {
                item_id: "msg_1".into(),
                delta: "Hel".into(),
            }
            .into(),
        ),
        (
            run.clone(),
            OutputMessage {
                id: "msg_1".into(),
                status: MessageStatus::Completed,
                phase: Some(MessagePhase::FinalAnswer),
                text: "Hello".into(),
            }
            .into(),
        ),
        (
            run.clone(),
            Reasoning {
                item_id: "rs_1".into(),
                text: "Thinking".into(),
            }
            .into(),
        ),
        (
            run.clone(),
            CommandExecution {
                item_id: "cmd_1".into(),
                command: "ls".into(),
                status: CommandStatus::Completed,
                exit_code: Some(0),
                output: Some("a\n".into()),
                cwd: Some("/workspace".into()),
                duration_ms: Some(12),
            }
            .into(),
        ),
        (
            run.clone(),
            WebSearchCall {
                item_id: "ws_1".into(),
                status: WebSearchStatus::Completed,
                action: Some(WebSearchAction::Search {
                    query: Some("weather".into()),
                    queries: Some(vec!["weather".into()]),
                }),
            }
            .into(),
        ),
        (
            run.clone(),
            WebSearchCall {
                item_id: "ws_2".into(),
                status: WebSearchStatus::InProgress,
                action: None,
            }
            .into(),
        ),
        (
            run.clone(),
            McpCall {
                item_id: "mcp_1".into(),
                server_label: "tickets".into(),
                name: "lookup_ticket".into(),
                arguments: r#"{"id":"T-1"}"#.into(),
                output: None,
                error: None,
                status: McpCallStatus::InProgress,
            }
            .into(),
        ),
        (
            run.clone(),
            McpCall {
                item_id: "mcp_1".into(),
                server_label: "tickets".into(),
                name: "lookup_ticket".into(),
                arguments: r#"{"id":"T-1"}"#.into(),
                output: Some(r#"{"result":"open"}"#.into()),
                error: None,
                status: McpCallStatus::Completed,
            }
            .into(),
        ),
        (run.clone(), usage.into()),
        (
            run.clone(),
            FunctionCall {
                call_id: "call_1".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris","n":1.50}"#.into(),
            }
            .into(),
        ),
        (
            run.clone(),
            CallAbandoned {
                call_id: "call_3".into(),
            }
            .into(),
        ),
        (
            Some("dlv_1".into()),
            InteractionDecisionAck {
                delivery_id: "dlv_1".into(),
                applied: true,
                error_code: None,
                error: None,
            }
            .into(),
        ),
        (
            run.clone(),
            FunctionResultApplied {
                call_id: "call_1".into(),
            }
            .into(),
        ),
        (
            run.clone(),
            PromptSteerAck {
                input_id: "input_1".into(),
                accepted: false,
                error_code: Some("turn_ended".into()),
                error: Some("The Turn has ended.".into()),
            }
            .into(),
        ),
        (
            run.clone(),
            ErrorEvent {
                code: "connection_failed".into(),
                message: "The provider answered 503.".into(),
                http_status: Some(503),
            }
            .into(),
        ),
        (
            run.clone(),
            Done {
                outcome: TurnOutcome::Completed,
                usage: Some(usage),
            }
            .into(),
        ),
        (
            Some("wsreq_2".into()),
            WorkspaceResult {
                environment_id: "env_1".into(),
                files: vec![WorkspaceEntry {
                    path: "/workspace/b.txt".into(),
                    size_bytes: 2,
                }],
                error_code: None,
                error: None,
            }
            .into(),
        ),
        (
            Some("wsreq_1".into()),
            WorkspaceResult {
                environment_id: "env_1".into(),
                files: vec![],
                error_code: Some("invalid_path".into()),
                error: Some("The path leaves the workspace.".into()),
            }
            .into(),
        ),
        (
            run.clone(),
            subagents::SubagentStatus {
                subagent_id: "thread-child".into(),
                parent_id: None,
                name: Some("Euclid".into()),
                instructions: Some("Look it up.".into()),
                state: subagents::SubagentState::Active,
            }
            .into(),
        ),
        (
            run.clone(),
            subagents::SubagentTurn {
                subagent_id: "thread-child".into(),
                turn_id: "turn-child".into(),
                status: subagents::SubagentTurnStatus::Completed,
            }
            .into(),
        ),
        (
            run.clone(),
            subagents::SubagentItem {
                subagent_id: "thread-child".into(),
                turn_id: "turn-child".into(),
                item: subagents::ChildItem::AssistantMessage(subagents::ChildMessage {
                    item_id: "msg-child".into(),
                    text: "Found it.".into(),
                }),
            }
            .into(),
        ),
        (
            run.clone(),
            subagents::SubagentFunctionCall {
                subagent_id: "thread-child".into(),
                turn_id: "turn-child".into(),
                call_id: "call_child".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris"}"#.into(),
            }
            .into(),
        ),
        (
            run.clone(),
            subagents::CoordinationCall {
                item_id: "collab-1".into(),
                sender_id: None,
                status: subagents::CoordinationStatus::Completed,
                call: subagents::Coordination::WaitForSubagents {
                    recipient_ids: vec!["thread-child".into()],
                },
            }
            .into(),
        ),
        (
            run,
            ProtocolError {
                frame_type: Some("delta".into()),
                error_code: "bad_payload".into(),
                message: "invalid `delta` payload".into(),
            }
            .into(),
        ),
    ];
    frames
        .into_iter()
        .map(|(id, m)| Envelope::new(id, m))
        .collect()
}

/// Which Core → Runtime frame this is. No wildcard: a new frame does not compile until it has a
/// place here, and the test then asks for its sample.
fn core_index(m: &CoreToRuntime) -> usize {
    match m {
        CoreToRuntime::Welcome(_) => 0,
        CoreToRuntime::HelloRefused(_) => 1,
        CoreToRuntime::ExecutionPrepare(_) => 2,
        CoreToRuntime::ExecutionStart(_) => 3,
        CoreToRuntime::ExecutionRelease(_) => 4,
        CoreToRuntime::PromptSteer(_) => 5,
        CoreToRuntime::PromptCancel(_) => 6,
        CoreToRuntime::FunctionResult(_) => 7,
        CoreToRuntime::WorkspaceWrite(_) => 8,
        CoreToRuntime::WorkspaceList(_) => 9,
        CoreToRuntime::WorkspaceRemove(_) => 10,
    }
}
const CORE_FRAMES: usize = 11;

/// As [`core_index`], for Runtime → Core.
fn runtime_index(m: &RuntimeToCore) -> usize {
    match m {
        RuntimeToCore::Hello(_) => 0,
        RuntimeToCore::Heartbeat(_) => 1,
        RuntimeToCore::PreparationStatus(_) => 2,
        RuntimeToCore::OutputMessage(_) => 3,
        RuntimeToCore::Delta(_) => 4,
        RuntimeToCore::Reasoning(_) => 5,
        RuntimeToCore::CommandExecution(_) => 6,
        RuntimeToCore::WebSearchCall(_) => 7,
        RuntimeToCore::Usage(_) => 8,
        RuntimeToCore::FunctionCall(_) => 9,
        RuntimeToCore::CallAbandoned(_) => 10,
        RuntimeToCore::InteractionDecisionAck(_) => 11,
        RuntimeToCore::FunctionResultApplied(_) => 12,
        RuntimeToCore::PromptSteerAck(_) => 13,
        RuntimeToCore::Error(_) => 14,
        RuntimeToCore::Done(_) => 15,
        RuntimeToCore::ProtocolError(_) => 16,
        RuntimeToCore::WorkspaceResult(_) => 17,
        RuntimeToCore::McpCall(_) => 18,
        RuntimeToCore::SubagentStatus(_) => 19,
        RuntimeToCore::SubagentTurn(_) => 20,
        RuntimeToCore::SubagentItem(_) => 21,
        RuntimeToCore::SubagentFunctionCall(_) => 22,
        RuntimeToCore::CoordinationCall(_) => 23,
    }
}
const RUNTIME_FRAMES: usize = 24;

fn spellings<T: Serialize>(values: &[T]) -> Value {
    serde_json::to_value(values).unwrap()
}

/// The spelling of every value of every wire enum (some appear in no frame sample).
fn values() -> Value {
    use ReasoningEffort as E;
    use ServiceTier as S;
    json!({
        "HarnessId": spellings(&HarnessId::ALL),
        "ProviderProtocol": spellings(&[ProviderProtocol::Responses, ProviderProtocol::Anthropic, ProviderProtocol::ChatCompletions]),
        "WebSearchMode": spellings(&[WebSearchMode::Disabled, WebSearchMode::Cached, WebSearchMode::Live]),
        "ContextSize": spellings(&[ContextSize::Low, ContextSize::Medium, ContextSize::High]),
        "Verbosity": spellings(&[Verbosity::Low, Verbosity::Medium, Verbosity::High]),
        "ReasoningEffort": spellings(&[E::None, E::Minimal, E::Low, E::Medium, E::High, E::Xhigh, E::Max]),
        "ReasoningSummary": spellings(&[ReasoningSummary::Auto, ReasoningSummary::Concise, ReasoningSummary::Detailed]),
        "ServiceTier": spellings(&[S::Auto, S::Default, S::Flex, S::Priority, S::Fast, S::Ultrafast]),
        "OutputFormatType": spellings(&[OutputFormatType::JsonSchema]),
        "WorkspacePlacement": spellings(&[WorkspacePlacement::SelfHosted, WorkspacePlacement::Managed]),
        "NetworkAccess": spellings(&[NetworkAccess::Enabled, NetworkAccess::Disabled]),
        "PreparationState": spellings(&[PreparationState::Preparing, PreparationState::Queued, PreparationState::Ready, PreparationState::Failed, PreparationState::Released]),
        "MessageStatus": spellings(&[MessageStatus::InProgress, MessageStatus::Completed]),
        "MessagePhase": spellings(&[MessagePhase::Commentary, MessagePhase::FinalAnswer]),
        "CommandStatus": spellings(&[CommandStatus::InProgress, CommandStatus::Completed, CommandStatus::Failed, CommandStatus::Declined]),
        "WebSearchStatus": spellings(&[WebSearchStatus::InProgress, WebSearchStatus::Completed, WebSearchStatus::Incomplete]),
        "WebSearchAction": spellings(&[
            WebSearchAction::OpenPage { url: Some("https://example.com".into()) },
            WebSearchAction::FindInPage { url: None, pattern: Some("rain".into()) },
            WebSearchAction::Other,
        ]),
        "McpCallStatus": spellings(&[McpCallStatus::InProgress, McpCallStatus::Completed, McpCallStatus::Failed]),
        "SubagentState": spellings(&[subagents::SubagentState::Active, subagents::SubagentState::Closed]),
        "SubagentTurnStatus": spellings(&[subagents::SubagentTurnStatus::InProgress, subagents::SubagentTurnStatus::Completed, subagents::SubagentTurnStatus::Failed, subagents::SubagentTurnStatus::Cancelled]),
        "CoordinationStatus": spellings(&[subagents::CoordinationStatus::InProgress, subagents::CoordinationStatus::Completed, subagents::CoordinationStatus::Failed]),
        "Coordination": spellings(&[
            subagents::Coordination::CreateSubagent { agent_id: Some("thread-child".into()), content: "Look it up.".into(), model: None, reasoning_effort: Some("low".into()) },
            subagents::Coordination::SendSubagentInput { recipient_id: "thread-child".into(), content: "More.".into() },
            subagents::Coordination::ResumeSubagent { recipient_id: "thread-child".into() },
            subagents::Coordination::InterruptSubagent { recipient_id: "thread-child".into() },
            subagents::Coordination::CloseSubagent { recipient_id: "thread-child".into() },
        ]),
        "TurnOutcome": spellings(&[TurnOutcome::Completed, TurnOutcome::Failed, TurnOutcome::Cancelled]),
    })
}

/// Each frame as the wire text a peer sends, read back as JSON (key order kept).
fn encoded<M: MessageSet>(frames: &[Envelope<M>]) -> Value {
    Value::Array(
        frames
            .iter()
            .map(|f| exact(&f.to_json().unwrap()))
            .collect(),
    )
}

fn covers_every_frame<M>(frames: &[Envelope<M>], index: fn(&M) -> usize, count: usize) {
    let mut seen = vec![false; count];
    for f in frames {
        seen[index(&f.message)] = true;
    }
    let missing: Vec<usize> = (0..count).filter(|i| !seen[*i]).collect();
    assert!(missing.is_empty(), "frames without a sample: {missing:?}");
}

/// Every committed frame decodes back into its sample.
fn decodes_back<M: MessageSet + PartialEq + std::fmt::Debug>(
    committed: &Value,
    frames: &[Envelope<M>],
) {
    let committed = committed.as_array().unwrap();
    assert_eq!(committed.len(), frames.len());
    for (text, frame) in committed.iter().zip(frames) {
        let decoded = Envelope::<M>::from_json(&text.to_string()).unwrap();
        assert_eq!(&decoded, frame);
    }
}

#[test]
fn wire_snapshot_matches_every_frame_shape() {
    let core = core_to_runtime();
    let runtime = runtime_to_core();
    covers_every_frame(&core, core_index, CORE_FRAMES);
    covers_every_frame(&runtime, runtime_index, RUNTIME_FRAMES);

    let snapshot = json!({
        "protocol_version": PROTOCOL_VERSION,
        "core_to_runtime": encoded(&core),
        "runtime_to_core": encoded(&runtime),
        "values": values(),
    });
    let text = serde_json::to_string_pretty(&snapshot).unwrap() + "\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wire_snapshot.json");
    if std::env::var_os(UPDATE).is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with {UPDATE}=1", path.display()));
    assert!(
        committed == text,
        "the Core–Runtime wire moved (compare {} with the frames below). If the change is \
         intended, bump the protocol version and regenerate with {UPDATE}=1.\n{text}",
        path.display()
    );

    let committed: Value = exact(&committed);
    decodes_back(&committed["core_to_runtime"], &core);
    decodes_back(&committed["runtime_to_core"], &runtime);
}
