//! An image in a function result reaches claude as an MCP image, and its native record (the
//! image at the same position, plus claude's own note where it saved the file) confirms the
//! receipt. The model receives the image as a base64 block between the texts.

mod support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::{
    AdapterEvent, ExecutionControls, FunctionOutput, FunctionResultContent, InputPart, Receipt,
};

/// A 2×2 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_result_is_confirmed_and_reaches_the_model() {
    let Some(binary) = claude_binary("an_image_result_is_confirmed_and_reaches_the_model") else {
        return;
    };
    let model = mock_model(Some(Scenario::new(vec![on_request(
        1,
        Reply::tool_calls(vec![ToolCall::new(
            "mcp__functions__get_weather",
            serde_json::json!({"city": "Rome"}),
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
        .start_turn(user_turn(1, "Show me the weather map"))
        .await
        .unwrap();
    let call_id = next_call_id(&mut turn).await;
    let result = FunctionResultContent {
        success: true,
        output: Some(FunctionOutput::Parts(vec![
            InputPart::InputText {
                text: "map follows".into(),
            },
            InputPart::InputImage {
                image_url: format!("data:image/png;base64,{PNG}"),
            },
            InputPart::InputText {
                text: "legend: red is hot".into(),
            },
        ])),
        error: None,
    };
    assert_eq!(
        turn.control.submit_function_result(&call_id, result).await,
        Receipt::Confirmed
    );
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );

    let requests = model_requests(&model.journal());
    let last = requests[1]["messages"].as_array().unwrap().last().unwrap();
    let content = last["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_result")
        .unwrap()["content"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(content[0]["text"], "map follows");
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["source"]["type"], "base64");
    assert_eq!(content.last().unwrap()["text"], "legend: red is hot");
    model.shutdown().await;
}
