//! An image in a function result reaches claude as an MCP image, and its native record (the
//! image at the same position, plus claude's own note where it saved the file) confirms the
//! receipt. The model receives the image as a base64 block between the texts.

use crate::support;

use support::*;
use switchboard_protocol::{FunctionOutput, FunctionResultContent, InputPart, Receipt};

/// A 2×2 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_result_is_confirmed_and_reaches_the_model() {
    let Some(binary) = claude_binary("an_image_result_is_confirmed_and_reaches_the_model") else {
        return;
    };
    let (session, mut turn, call_id) =
        pending_weather_call(binary, "Rome", "Show me the weather map").await;
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
    assert_completed(&until_terminal(&mut turn).await);

    let content = last_tool_result(&session.model_requests()[1])["content"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(content[0]["text"], "map follows");
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["source"]["type"], "base64");
    assert_eq!(content.last().unwrap()["text"], "legend: red is hot");
    session.model.shutdown().await;
}
