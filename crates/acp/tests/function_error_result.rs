//! An unsuccessful function result: the MCP answer is flagged `isError` with the error text,
//! the agent's `tool_call_update` records exactly that, so the receipt is confirmed, and the text
//! reaches the model.

use crate::support;

use support::*;
use switchboard_acp::CODEX_ACP;
use switchboard_protocol::FunctionResultContent;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_result_is_confirmed_as_an_error() {
    let Some(binary) = agent_binary("a_failed_result_is_confirmed_as_an_error", &CODEX_ACP) else {
        return;
    };
    let model = mock_model(None).await;
    let config = configuration(&model.base_url(), vec![get_weather()]);
    let (_state, executor) = prepare(CODEX_ACP, binary, config).await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Atlantis?").await;
    let (call_id, _, _) = first_call(&mut turn).await;
    let failed = FunctionResultContent {
        success: false,
        output: None,
        error: Some("no such city".into()),
    };
    confirm_once(&turn, &call_id, failed).await;
    let events = until_terminal(&mut turn).await;
    assert_applied(&events, &call_id);
    assert_completed(&events);
    let answer = final_answer(&events).unwrap();
    assert!(answer.contains("no such city"), "{answer}");
}
