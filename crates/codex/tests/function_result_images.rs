//! A function result with text and image parts: codex confirms it and the model request carries
//! the parts in order, the image unchanged, as the function call's output.

use crate::support;

use serde_json::json;
use support::*;
use switchboard_protocol::{FunctionOutput, FunctionResultContent, InputPart};

/// A 1×1 PNG.
const PIXEL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_result_is_confirmed_and_reaches_the_model_in_order() {
    let Some(binary) = codex_binary("an_image_result_is_confirmed_and_reaches_the_model_in_order")
    else {
        return;
    };
    let model = weather_model(r#"{"city":"Paris"}"#).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![get_weather()]).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather map of Paris?").await;
    let (call_id, _, _) = first_call(&mut turn).await;

    let result = FunctionResultContent {
        success: true,
        output: Some(FunctionOutput::Parts(vec![
            InputPart::InputText {
                text: "the map:".into(),
            },
            InputPart::InputImage {
                image_url: PIXEL.into(),
            },
            InputPart::InputText {
                text: "sunny".into(),
            },
        ])),
        error: None,
    };
    confirm_once(&turn, &call_id, result).await;
    let events = until_terminal(&mut turn).await;
    assert_applied(&events, &call_id);
    assert_completed(&events);

    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 2);
    let outputs = function_call_outputs(&requests[1]);
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0]["call_id"], call_id.as_str());
    // The image URL is unchanged; `detail: "high"` is codex's own default for a tool image.
    assert_eq!(
        outputs[0]["output"],
        json!([
            {"type": "input_text", "text": "the map:"},
            {"type": "input_image", "image_url": PIXEL, "detail": "high"},
            {"type": "input_text", "text": "sunny"},
        ])
    );
}
