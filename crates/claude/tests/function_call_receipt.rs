//! Function call → result → confirmed receipt → final answer: the call id is the model's
//! tool-use id, the arguments keep their exact JSON text, and exactly the submitted text reaches
//! the model.

mod support;

use support::*;
use switchboard_mock_model::{Reply, Rule, Scenario, ToolCall, When};
use switchboard_protocol::{AdapterEvent, ExecutionControls, Receipt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_result_is_confirmed_and_reaches_the_model() {
    let Some(binary) = claude_binary("function_result_is_confirmed_and_reaches_the_model") else {
        return;
    };
    let arguments = r#"{"city":"Paris","days":2.5}"#;
    let model = mock_model(Some(Scenario::new(vec![Rule::new(
        When {
            request: Some(1),
            ..When::default()
        },
        Reply::tool_calls(vec![
            ToolCall::new(
                "mcp__functions__get_weather",
                serde_json::from_str(arguments).unwrap(),
            )
            .id("toolu_weather_1"),
        ]),
    )])))
    .await;
    let config = configuration(
        &model.base_url(),
        vec![get_weather()],
        ExecutionControls::default(),
    );
    let (_state, executor) = prepare(binary, config).await;

    let mut turn = executor
        .start_turn(user_turn(1, "Weather in Paris?"))
        .await
        .unwrap();
    let call_id = loop {
        match next_event(&mut turn).await {
            AdapterEvent::FunctionCall {
                call_id,
                name,
                arguments: got,
            } => {
                assert_eq!(name, "get_weather");
                assert_eq!(got, arguments, "arguments keep their JSON text");
                break call_id;
            }
            AdapterEvent::FunctionResultApplied { .. } | AdapterEvent::CallAbandoned { .. } => {
                panic!("call state before the call")
            }
            event => assert!(!event.is_terminal(), "{event:?}"),
        }
    };
    assert_eq!(
        call_id, "toolu_weather_1",
        "the call id is the model's tool-use id"
    );

    let receipt = turn
        .control
        .submit_function_result(&call_id, text_result("sunny, 21.0 C"))
        .await;
    assert_eq!(receipt, Receipt::Confirmed);
    // A second result for the same call is refused: the adapter never answers twice.
    let again = turn
        .control
        .submit_function_result(&call_id, text_result("sunny, 21.0 C"))
        .await;
    assert!(matches!(again, Receipt::Refused { .. }), "{again:?}");

    let events = until_terminal(&mut turn).await;
    assert!(
        events.iter().any(
            |e| matches!(e, AdapterEvent::FunctionResultApplied { call_id: c } if *c == call_id)
        ),
        "{events:?}"
    );
    assert_eq!(
        final_answer(&events).as_deref(),
        Some("FINAL: sunny, 21.0 C")
    );
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );

    // The Turn's usage is the sum of what the provider reported for its two requests.
    let calls = model_calls(&model.journal());
    let reported = |key: &str| {
        calls
            .iter()
            .map(|c| c["reply"]["usage"][key].as_u64().unwrap())
            .sum::<u64>()
    };
    let Some(AdapterEvent::Completed { usage: Some(usage) }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(usage.input_tokens, reported("input_tokens"));
    assert_eq!(usage.output_tokens, reported("output_tokens"));

    // What the model endpoint received: the function as an MCP tool with its schema, then the
    // result under the same tool-use id.
    let requests = model_requests(&model.journal());
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
    let last = requests[1]["messages"].as_array().unwrap().last().unwrap();
    let result = last["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_result")
        .unwrap();
    assert_eq!(result["tool_use_id"], "toolu_weather_1");
    assert_eq!(result["content"][0]["text"], "sunny, 21.0 C");
    model.shutdown().await;
}
