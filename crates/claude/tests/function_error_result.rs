//! An unsuccessful result reaches claude as an MCP `isError` result; claude records it as one
//! `is_error` text (the output, then the error, joined by a newline), and that record confirms
//! the receipt.

mod support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::{
    AdapterEvent, ExecutionControls, FunctionOutput, FunctionResultContent, Receipt,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_result_is_confirmed_as_an_error() {
    let Some(binary) = claude_binary("a_failed_result_is_confirmed_as_an_error") else {
        return;
    };
    let model = mock_model(Some(Scenario::new(vec![on_request(
        1,
        Reply::tool_calls(vec![ToolCall::new(
            "mcp__functions__get_weather",
            serde_json::json!({"city": "Atlantis"}),
        )]),
    )])))
    .await;
    let config = configuration(
        &model.base_url(),
        vec![get_weather()],
        ExecutionControls::default(),
    );
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = executor
        .start_turn(user_turn(1, "Weather in Atlantis?"))
        .await
        .unwrap();
    let call_id = next_call_id(&mut turn).await;
    let failed = FunctionResultContent {
        success: false,
        output: Some(FunctionOutput::Text("lookup failed".into())),
        error: Some("no such city".into()),
    };
    assert_eq!(
        turn.control.submit_function_result(&call_id, failed).await,
        Receipt::Confirmed
    );
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );

    let requests = model_requests(&model.journal());
    let last = requests[1]["messages"].as_array().unwrap().last().unwrap();
    let result = last["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_result")
        .unwrap();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["content"], "lookup failed\nno such city");
    model.shutdown().await;
}
