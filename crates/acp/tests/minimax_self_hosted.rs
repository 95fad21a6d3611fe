//! The `minimax_code` profile on a self-hosted workspace (the Runtime's self-hosted placement
//! is the workspace directory itself, `runtime/src/workspace/mod.rs`), on the codex-acp
//! stand-in for `mcode`: the agent works in the directory, its native shell tool writes there
//! (allowed: the workspace is the boundary), a function round trip runs through the loopback
//! `functions` server, and `config.yaml` carries the workspace's tool controls
//! (`features.webFetch=false` for `web_search: disabled`, no `sandbox` override outside a
//! managed sandbox).

use crate::support;

use std::time::Duration;

use support::*;
use switchboard_acp::{AcpAdapter, CODEX_ACP, MINIMAX_CODE};
use switchboard_adapter_kit::test_workspace;
use switchboard_mock_model::{Reply, Rule, Scenario, When};
use switchboard_protocol::configuration::{ContextSize, WebSearchControl, WebSearchMode};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn minimax_runs_in_a_self_hosted_directory() {
    let Some(codex_acp) = agent_binary("minimax_runs_in_a_self_hosted_directory", &CODEX_ACP)
    else {
        return;
    };
    let bin = tempfile::tempdir().unwrap();
    let adapter = AcpAdapter::new(MINIMAX_CODE, Some(standin_mcode(bin.path(), &codex_acp)))
        .with_turn_deadline(Duration::from_secs(45));
    let workspace = tempfile::tempdir().unwrap();
    let shell = When {
        user_text_contains: Some("WRITE".into()),
        tool_output_present: Some(false),
        ..When::default()
    };
    let model = mock_model(Some(Scenario::new(vec![
        Rule::new(shell, Reply::shell("pwd > made.txt")),
        Rule::new(
            When {
                user_text_contains: Some("WRITE".into()),
                ..When::default()
            },
            Reply::text("Wrote made.txt."),
        ),
    ])))
    .await;
    let mut config = configuration(&model.base_url(), vec![get_weather()]);
    config.execution_controls.web_search = Some(WebSearchControl {
        mode: WebSearchMode::Disabled,
        context_size: ContextSize::Medium,
        allowed_domains: None,
        location: None,
    });
    let state = state_dir("acp");
    let placement = test_workspace::self_hosted(workspace.path());
    let work_dir = placement.work_dir.clone();
    let executor = prepare_placed(&adapter, config, state.path(), Some(placement)).await;

    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(state.path().join("agent-data/config.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        written["features"],
        serde_json::json!({"webSearch": false, "webFetch": false})
    );
    assert!(written.get("sandbox").is_none(), "{written}");

    weather_turn_acp(executor.as_ref(), 1, "Weather in Paris?").await;

    let mut turn = start_user_turn(executor.as_ref(), 2, "WRITE made.txt").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    assert_eq!(final_answer(&events).as_deref(), Some("Wrote made.txt."));
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("made.txt"))
            .unwrap_or_else(|e| panic!("{e}: {events:#?}\n{:#?}", model.journal())),
        format!("{}\n", work_dir.display())
    );
}
