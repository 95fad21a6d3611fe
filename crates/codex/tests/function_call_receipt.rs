//! Function call → result → confirmed receipt → final answer, with the exact arguments and the
//! exact result text reaching the model.

use crate::support;

use support::*;
use switchboard_protocol::{FunctionResultContent, Receipt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_result_is_confirmed_and_reaches_the_model() {
    let Some(binary) = codex_binary("function_result_is_confirmed_and_reaches_the_model") else {
        return;
    };
    let arguments = r#"{"city":"Paris","days":2.50}"#;
    let model = weather_model(arguments).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![get_weather()]).await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Paris?").await;

    let (call_id, name, got) = first_call(&mut turn).await;
    assert_eq!(name, "get_weather");
    assert_eq!(got, arguments, "arguments keep their exact JSON text");

    // An unknown call is refused without touching the pending one.
    let refused = turn
        .control
        .submit_function_result(
            "call_nope",
            FunctionResultContent {
                success: true,
                output: None,
                error: None,
            },
        )
        .await;
    assert!(matches!(refused, Receipt::Refused { .. }), "{refused:?}");

    confirm_once(&turn, &call_id, text_result("sunny, 21.0 C")).await;

    let events = until_terminal(&mut turn).await;
    assert_applied(&events, &call_id);
    assert_eq!(
        final_answer(&events).as_deref(),
        Some("FINAL: sunny, 21.0 C")
    );
    assert_completed(&events);

    // What the model endpoint received: the dynamic tool, then the output. (codex 0.171.0
    // sanitizes tool schemas natively, e.g. it drops `maximum`; the adapter sends them unchanged,
    // see the dynamic_tools unit tests.)
    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 2);
    let tool = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_weather")
        .unwrap()
        .clone();
    assert_eq!(tool["description"], "Get the weather for a city");
    assert_eq!(tool["parameters"]["required"], serde_json::json!(["city"]));
    let outputs = function_call_outputs(&requests[1]);
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0]["call_id"], call_id.as_str());
    assert_eq!(outputs[0]["output"], "sunny, 21.0 C");
}
