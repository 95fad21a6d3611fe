//! A scripted drop closes the connection: before any response, or mid-stream after N events.

use crate::common;

use common::post;
use serde_json::json;
use switchboard_mock_model::{Reply, Rule, Scenario};

#[tokio::test]
async fn drop_closes_the_connection_without_a_response() {
    let scenario = Scenario::new(vec![Rule::from(Reply::drop_connection()).times(1)]);
    let model = common::start(Some(scenario)).await;
    let result = reqwest::Client::new()
        .post(format!("{}/v1/responses", model.base_url()))
        .json(&json!({"model": "m", "input": "q", "stream": true}))
        .send()
        .await;
    let error = result.expect_err("no response arrives");
    assert!(!error.is_status(), "no HTTP status was received: {error:?}");
    assert_eq!(model.journal()[0]["reply"], json!({"dropped": true}));

    // The server itself lives on.
    let response = post(
        &model,
        "/v1/responses",
        &json!({"model": "m", "input": "q"}),
    )
    .await;
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn drop_after_events_cuts_the_stream() {
    let scenario = Scenario::new(vec![Rule::from(
        Reply::text("a long answer in many pieces")
            .deltas(5)
            .drop_after_events(3),
    )]);
    let model = common::start(Some(scenario)).await;
    let mut response = post(
        &model,
        "/v1/messages",
        &json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "q"}]}),
    )
    .await;
    assert_eq!(response.status().as_u16(), 200);
    let mut received = Vec::new();
    let error = loop {
        match response.chunk().await {
            Ok(Some(chunk)) => received.extend_from_slice(&chunk),
            Ok(None) => panic!("the stream ended cleanly"),
            Err(error) => break error,
        }
    };
    assert!(error.is_body() || error.is_decode(), "{error:?}");
    let text = String::from_utf8(received).unwrap();
    let events = common::parse_sse(&text);
    let names: Vec<_> = events.iter().map(|e| e.name.clone().unwrap()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "content_block_delta"
        ]
    );
    assert_eq!(model.journal()[0]["reply"]["drop_after_events"], 3);
}
