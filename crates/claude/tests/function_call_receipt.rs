//! Function call → result → confirmed receipt → final answer: the call id is the model's
//! tool-use id, the arguments keep their exact JSON text, and exactly the submitted text reaches
//! the model.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::AdapterEvent;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_result_is_confirmed_and_reaches_the_model() {
    let Some(binary) = claude_binary("function_result_is_confirmed_and_reaches_the_model") else {
        return;
    };
    let arguments = r#"{"city":"Paris","days":2.5}"#;
    let call = ToolCall::new(
        "mcp__functions__get_weather",
        serde_json::from_str(arguments).unwrap(),
    )
    .id("toolu_weather_1");
    let scenario = Scenario::new(vec![on_request(1, Reply::tool_calls(vec![call]))]);
    let session = function_session(binary, scenario).await;

    let mut turn = session.turn(1, "Weather in Paris?").await;
    let (call_id, name, got) = first_call(&mut turn).await;
    assert_eq!(name, "get_weather");
    assert_eq!(got, arguments, "arguments keep their JSON text");
    assert_eq!(
        call_id, "toolu_weather_1",
        "the call id is the model's tool-use id"
    );

    confirm_once(&turn, &call_id, text_result("sunny, 21.0 C")).await;

    let events = until_terminal(&mut turn).await;
    assert_applied(&events, &call_id);
    assert_eq!(
        final_answer(&events).as_deref(),
        Some("FINAL: sunny, 21.0 C")
    );
    assert_completed(&events);

    // The Turn's usage is the sum of what the provider reported for its two requests.
    let calls = session.model_calls();
    let Some(AdapterEvent::Completed { usage: Some(usage) }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(usage.input_tokens, reported_usage(&calls, "input_tokens"));
    assert_eq!(usage.output_tokens, reported_usage(&calls, "output_tokens"));

    // What the model endpoint received: the function as an MCP tool with its schema, then the
    // result under the same tool-use id.
    let requests = session.model_requests();
    assert_eq!(requests.len(), 2);
    let tool = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__functions__get_weather")
        .expect("the function is offered")
        .clone();
    assert_eq!(tool["description"], "Get the weather for a city");
    assert_eq!(
        tool["input_schema"]["required"],
        serde_json::json!(["city"])
    );
    let result = last_tool_result(&requests[1]);
    assert_eq!(result["tool_use_id"], "toolu_weather_1");
    assert_eq!(result["content"][0]["text"], "sunny, 21.0 C");
    session.model.shutdown().await;
}
