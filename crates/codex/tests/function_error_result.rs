//! A failed result's error text reaches the model as a final text part after the output.

use crate::support;

use support::*;
use switchboard_protocol::{FunctionOutput, FunctionResultContent, InputPart, Receipt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_text_is_appended_and_reaches_the_model() {
    let Some(binary) = codex_binary("error_text_is_appended_and_reaches_the_model") else {
        return;
    };
    let model = weather_model(r#"{"city":"Oslo"}"#).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![get_weather()]).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Oslo?").await;
    let call_id = next_call_id(&mut turn).await;
    let result = FunctionResultContent {
        success: false,
        output: Some(FunctionOutput::Parts(vec![InputPart::InputText {
            text: "partial data;".into(),
        }])),
        error: Some("upstream timeout".into()),
    };
    assert_eq!(
        turn.control.submit_function_result(&call_id, result).await,
        Receipt::Confirmed
    );
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);

    let requests = model_requests(&model.journal());
    let output = requests.last().unwrap()["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .unwrap()["output"]
        .clone();
    // codex joins text parts for the model; both parts arrive, error last.
    let text = match &output {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("|"),
        other => other.to_string(),
    };
    let (partial, error) = (
        text.find("partial data;").expect(&text),
        text.find("upstream timeout").expect(&text),
    );
    assert!(partial < error, "{text}");
}
