//! `delay_ms` holds the whole reply back; `interval_ms` spaces the streamed events.

use crate::common;

use std::time::{Duration, Instant};

use common::post;
use serde_json::json;
use switchboard_mock_model::{Reply, Rule, Scenario};

#[tokio::test]
async fn delay_holds_the_reply_back() {
    let scenario = Scenario::new(vec![Rule::from(Reply::default().delay_ms(300))]);
    let model = common::start(Some(scenario)).await;
    let started = Instant::now();
    let response = post(
        &model,
        "/v1/responses",
        &json!({"model": "m", "input": "q"}),
    )
    .await;
    assert_eq!(response.status().as_u16(), 200);
    assert!(started.elapsed() >= Duration::from_millis(300));
    // No content in the rule: the built-in default supplied the answer.
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["output"][0]["content"][0]["text"], "ECHO: q");
    assert_eq!(model.journal()[0]["reply"]["delay_ms"], 300);
}

#[tokio::test]
async fn interval_spaces_stream_events() {
    let scenario = Scenario::new(vec![Rule::from(
        Reply::text("one two three").deltas(3).interval_ms(50),
    )]);
    let model = common::start(Some(scenario)).await;
    let mut response = post(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "q"}]}),
    )
    .await;
    // 1 role chunk + 3 deltas + finish + [DONE] = 6 events, so 5 intervals.
    let mut arrivals = Vec::new();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        arrivals.push(Instant::now());
        body.extend_from_slice(&chunk);
    }
    let events = common::parse_sse(&String::from_utf8(body).unwrap());
    assert_eq!(events.len(), 6);
    let spread = *arrivals.last().unwrap() - arrivals[0];
    assert!(
        spread >= Duration::from_millis(250),
        "events were spaced: {spread:?}"
    );
    assert!(arrivals.len() >= 2, "events arrived in more than one piece");
}
