//! The `minimax_code` profile on the second stand-in for `mcode`: the launcher reads the
//! `config.yaml` the profile wrote (an `anthropic-messages` custom provider) and starts
//! claude-agent-acp under Node ≥ 22 with the equivalent provider settings. A function round trip
//! runs through it: the call is published, its result answers the MCP request, the agent's
//! record of it confirms the receipt, and the result reaches the model.

use crate::support;

use std::time::Duration;

use support::*;
use switchboard_acp::{AcpAdapter, MINIMAX_CODE};
use switchboard_protocol::configuration::ProviderProtocol;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_function_round_trip_runs_on_claude_agent_acp_behind_the_standin() {
    let Some((package, node)) =
        claude_agent_acp("a_function_round_trip_runs_on_claude_agent_acp_behind_the_standin")
    else {
        return;
    };
    let bin = tempfile::tempdir().unwrap();
    let mcode = standin_mcode_claude(bin.path(), &package, &node);
    let adapter =
        AcpAdapter::new(MINIMAX_CODE, Some(mcode)).with_turn_deadline(Duration::from_secs(60));
    let model = mock_model(None).await;
    let mut config = configuration(&model.base_url(), vec![get_weather()]);
    config.model = "claude-test".into();
    config.model_provider.protocol = ProviderProtocol::Anthropic;
    config.model_provider.base_url = model.base_url();
    let (_state, executor) = prepare_fresh(&adapter, config, "acp").await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Paris?").await;
    let (call_id, name, _) = first_call(&mut turn).await;
    assert_eq!(name, "get_weather");
    confirm_once(&turn, &call_id, text_result("sunny, 21.0 C")).await;
    let events = until_terminal(&mut turn).await;
    assert_applied(&events, &call_id);
    assert_completed(&events);
    let answer = final_answer(&events).unwrap();
    assert!(
        answer.starts_with("FINAL: ") && answer.contains("sunny, 21.0 C"),
        "{answer}"
    );
    // The profile's provider key and the Agent's instructions (AGENTS.md) reached the model.
    let journal = model.journal();
    let messages: Vec<_> = journal
        .iter()
        .filter(|r| r["path"] == "/v1/messages")
        .collect();
    assert!(!messages.is_empty());
    assert!(
        messages
            .iter()
            .all(|r| r["headers"]["x-api-key"] == "sk-test-key")
    );
    let agent_loop: Vec<_> = messages
        .iter()
        .filter(|r| r.to_string().contains("mcp__functions__get_weather"))
        .collect();
    assert!(!agent_loop.is_empty());
    assert!(
        agent_loop.iter().all(|r| r["body"]["system"]
            .to_string()
            .contains("SWITCHBOARD-INSTRUCTIONS")),
        "{agent_loop:?}"
    );
}
