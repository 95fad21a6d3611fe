//! An unsuccessful result reaches claude as an MCP `isError` result; claude records it as one
//! `is_error` text (the output, then the error, joined by a newline), and that record confirms
//! the receipt.

use crate::support;

use support::*;
use switchboard_protocol::{FunctionOutput, FunctionResultContent, Receipt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_result_is_confirmed_as_an_error() {
    let Some(binary) = claude_binary("a_failed_result_is_confirmed_as_an_error") else {
        return;
    };
    let (session, mut turn, call_id) =
        pending_weather_call(binary, "Atlantis", "Weather in Atlantis?").await;
    let failed = FunctionResultContent {
        success: false,
        output: Some(FunctionOutput::Text("lookup failed".into())),
        error: Some("no such city".into()),
    };
    assert_eq!(
        turn.control.submit_function_result(&call_id, failed).await,
        Receipt::Confirmed
    );
    assert_completed(&until_terminal(&mut turn).await);

    let result = last_tool_result(&session.model_requests()[1]);
    assert_eq!(result["is_error"], true);
    assert_eq!(result["content"], "lookup failed\nno such city");
    session.model.shutdown().await;
}
