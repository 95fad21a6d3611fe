//! Claude Code on a workspace placement: the model's `Bash` call runs in the workspace and
//! writes a file there, it is reported as a `command_execution` opened and finished, and after
//! eviction the resumed session (`--resume`, same working directory) sees the file.
//! Self-hosted (claude works directly in the directory) and managed (claude inside a bubblewrap
//! sandbox, where the workspace is `/workspace`). The tool set is claude's native one without
//! the ask-user, scheduling, workflow, background and ListAgents tools (and without Subagents,
//! which no Session this protocol carries runs); `web_search: disabled` also removes WebSearch
//! and WebFetch, `live` and an omitted control keep them.

use crate::support;

use std::path::PathBuf;

use support::*;
use switchboard_adapter_kit::test_workspace::*;
use switchboard_claude::workspace_tools::{WEB_TOOLS, WITHHELD};
use switchboard_protocol::ExecutionControls;
use switchboard_protocol::configuration::WebSearchMode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn self_hosted_command_writes_the_workspace_and_resume_sees_it() {
    let Some(binary) = claude_binary("self_hosted_command_writes_the_workspace_and_resume_sees_it")
    else {
        return;
    };
    let model = mock_model(Some(shell_scenario())).await;
    let workspace = workspace_dir("claude");
    let state = state_dir("claude");
    let placement = self_hosted(workspace.path());
    let work_dir = placement.work_dir.to_string_lossy().into_owned();
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    write_evict_read(executor.as_ref(), workspace.path(), &work_dir).await;
    model.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandboxed_command_writes_the_workspace_and_resume_sees_it() {
    let test = "sandboxed_command_writes_the_workspace_and_resume_sees_it";
    let Some(binary) = claude_binary(test) else {
        return;
    };
    if !bwrap_or_skip(test) {
        return;
    }
    let binary = binary.canonicalize().unwrap();
    let model = mock_model(Some(shell_scenario())).await;
    let workspace = workspace_dir("claude");
    let state = state_dir("claude");
    let placement = sandboxed(workspace.path(), state.path(), &binary);
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    write_evict_read(executor.as_ref(), workspace.path(), SANDBOX_WORK_DIR).await;
    model.shutdown().await;
}

/// The tools the model is offered in a one-Turn workspace Session with `mode`.
async fn offered_in_workspace(binary: PathBuf, mode: Option<WebSearchMode>) -> Vec<String> {
    let model = mock_model(None).await;
    let workspace = workspace_dir("claude");
    let state = state_dir("claude");
    let controls = mode.map(web_search).unwrap_or_default();
    let config = configuration(&model.base_url(), vec![], controls);
    let placement = self_hosted(workspace.path());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "hello").await;
    assert_completed(&until_terminal(&mut turn).await);
    drop(executor);
    let requests = model_requests(&model.journal());
    model.shutdown().await;
    let mut tools = offered_tools(&requests[0]);
    tools.sort();
    tools
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workspace_tool_set_follows_web_search() {
    let Some(binary) = claude_binary("the_workspace_tool_set_follows_web_search") else {
        return;
    };
    for mode in [
        None,
        Some(WebSearchMode::Live),
        Some(WebSearchMode::Disabled),
    ] {
        let tools = offered_in_workspace(binary.clone(), mode).await;
        for native in ["Bash", "Read", "Edit", "Write", "Skill"] {
            assert!(
                tools.iter().any(|t| t == native),
                "{mode:?}: {native} in {tools:?}"
            );
        }
        for withheld in WITHHELD {
            assert!(
                !tools.iter().any(|t| t == withheld),
                "{mode:?}: {withheld} in {tools:?}"
            );
        }
        let web_kept = mode != Some(WebSearchMode::Disabled);
        for web in WEB_TOOLS {
            assert_eq!(
                tools.iter().any(|t| t == web),
                web_kept,
                "{mode:?}: {web} in {tools:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_command_is_reported_failed_with_its_exit_code() {
    let Some(binary) = claude_binary("a_failing_command_is_reported_failed_with_its_exit_code")
    else {
        return;
    };
    let model = mock_model(Some(failing_shell_scenario())).await;
    let workspace = workspace_dir("claude");
    let state = state_dir("claude");
    let placement = self_hosted(workspace.path());
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    failing_command_turn(executor.as_ref()).await;
    model.shutdown().await;
}

/// Structured output on a workspace placement (what `workspace_structured_output` advertises):
/// the workspace tool set runs beside claude's native StructuredOutput tool, and the answer is
/// the native result text as the final answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_output_runs_on_a_workspace() {
    let Some(binary) = claude_binary("structured_output_runs_on_a_workspace") else {
        return;
    };
    let answer = r#"{"answer":"in the workspace"}"#;
    let mut reply = switchboard_mock_model::Reply::text("Answering.");
    reply.tool_calls = vec![
        switchboard_mock_model::ToolCall::new(
            "StructuredOutput",
            serde_json::from_str(answer).unwrap(),
        )
        .id("toolu_ws_answer"),
    ];
    let model = mock_model(Some(switchboard_mock_model::Scenario::new(vec![
        on_request(1, reply),
    ])))
    .await;
    let workspace = workspace_dir("claude");
    let state = state_dir("claude");
    let schema = serde_json::json!({"type": "object",
        "properties": {"answer": {"type": "string"}}, "required": ["answer"]});
    let config = configuration(&model.base_url(), vec![], output_schema(schema));
    let placement = self_hosted(workspace.path());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Answer in structure").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    let finals: Vec<_> = completed_messages(&events)
        .into_iter()
        .filter(|(_, phase, _)| *phase == switchboard_protocol::messages::MessagePhase::FinalAnswer)
        .collect();
    assert_eq!(
        finals,
        vec![(
            "toolu_ws_answer".to_owned(),
            switchboard_protocol::messages::MessagePhase::FinalAnswer,
            answer.to_owned()
        )]
    );
    drop(executor);
    let requests = model_requests(&model.journal());
    model.shutdown().await;
    let tools = offered_tools(&requests[0]);
    for tool in ["StructuredOutput", "Bash", "Read"] {
        assert!(tools.iter().any(|t| t == tool), "{tool} in {tools:?}");
    }
}

/// A multi-agent Session on a workspace keeps the native `Agent` tool (the other withheld tools
/// stay out), and the inventory check takes it under the name `init` reports (`Task`): the Turn
/// completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_agent_workspace_session_keeps_the_agent_tool() {
    let Some(binary) = claude_binary("a_multi_agent_workspace_session_keeps_the_agent_tool") else {
        return;
    };
    let model = mock_model(None).await;
    let workspace = workspace_dir("claude");
    let state = state_dir("claude");
    let controls = ExecutionControls {
        subagents: Some(switchboard_protocol::subagents::SubagentControl {
            max_concurrent: None,
        }),
        ..ExecutionControls::default()
    };
    let config = configuration(&model.base_url(), vec![], controls);
    let placement = self_hosted(workspace.path());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "hello").await;
    assert_completed(&until_terminal(&mut turn).await);
    drop(executor);
    let requests = model_requests(&model.journal());
    model.shutdown().await;
    let tools = offered_tools(&requests[0]);
    assert!(tools.iter().any(|t| t == "Agent"), "{tools:?}");
    for withheld in WITHHELD.iter().filter(|t| **t != "Agent") {
        assert!(
            !tools.iter().any(|t| t == withheld),
            "{withheld} in {tools:?}"
        );
    }
}
