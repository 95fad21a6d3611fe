//! Results the adapter cannot deliver are refused without consuming the pending call: an
//! unknown call id, and content Claude Code cannot take (an image URL). The call then still
//! takes a good result, which is confirmed.

use crate::support;

use support::*;
use switchboard_protocol::{FunctionOutput, FunctionResultContent, InputPart, Receipt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undeliverable_results_leave_the_call_pending() {
    let Some(binary) = claude_binary("undeliverable_results_leave_the_call_pending") else {
        return;
    };
    let (session, mut turn, call_id) =
        pending_weather_call(binary, "Oslo", "Weather in Oslo?").await;

    let unknown = turn
        .control
        .submit_function_result("toolu_nope", text_result("x"))
        .await;
    assert!(
        matches!(&unknown, Receipt::Refused { code, .. } if code == "unknown_call"),
        "{unknown:?}"
    );

    let image_url = FunctionResultContent {
        success: true,
        output: Some(FunctionOutput::Parts(vec![InputPart::InputImage {
            image_url: "https://example.com/weather.png".into(),
        }])),
        error: None,
    };
    let refused = turn
        .control
        .submit_function_result(&call_id, image_url)
        .await;
    assert!(
        matches!(&refused, Receipt::Refused { code, .. } if code == "unsupported_content"),
        "{refused:?}"
    );

    // Still pending: a result claude can take is delivered and confirmed.
    let receipt = turn
        .control
        .submit_function_result(&call_id, text_result("snow"))
        .await;
    assert_eq!(receipt, Receipt::Confirmed);
    let events = until_terminal(&mut turn).await;
    assert_eq!(final_answer(&events).as_deref(), Some("FINAL: snow"));
    assert_completed(&events);
    session.model.shutdown().await;
}
