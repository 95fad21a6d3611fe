//! A function call through the `functions` MCP server: the call is published with the agent's
//! tool call id, the result answers the MCP request, the agent's `tool_call_update` carrying it
//! confirms the receipt, and the result reaches the model.

use crate::support;

use support::*;
use switchboard_acp::CODEX_ACP;
use switchboard_protocol::{AdapterEvent, Receipt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_result_is_confirmed_and_reaches_the_model() {
    let Some(binary) = agent_binary(
        "function_result_is_confirmed_and_reaches_the_model",
        &CODEX_ACP,
    ) else {
        return;
    };
    let model = mock_model(None).await;
    let config = configuration(&model.base_url(), vec![get_weather()]);
    let (_state, executor) = prepare(CODEX_ACP, binary, config).await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Paris?").await;
    let (call_id, name, arguments) = first_call(&mut turn).await;
    assert_eq!(name, "get_weather");
    assert_eq!(arguments, r#"{"city":""}"#);

    let refused = turn
        .control
        .submit_function_result("call_nope", text_result("x"))
        .await;
    assert!(matches!(refused, Receipt::Refused { .. }), "{refused:?}");

    confirm_once(&turn, &call_id, text_result("sunny, 21.0 C")).await;
    let events = until_terminal(&mut turn).await;
    eprintln!("{events:#?}");
    assert_applied(&events, &call_id);
    assert_completed(&events);
    let answer = final_answer(&events).unwrap();
    assert!(answer.starts_with("FINAL: "), "{answer}");
    assert!(answer.contains("sunny, 21.0 C"), "{answer}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AdapterEvent::CallAbandoned { .. }))
    );
}
