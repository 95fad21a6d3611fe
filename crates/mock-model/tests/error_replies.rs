//! Scripted HTTP errors arrive in each provider's own error shape (or a verbatim body), and a
//! server-side refusal never takes the server down.

use crate::common;

use common::post_json;
use serde_json::json;
use switchboard_mock_model::{ErrorReply, Reply, Rule, Scenario};

#[tokio::test]
async fn errors_use_the_callers_error_shape() {
    let scenario = Scenario::new(vec![Rule::from(Reply::error(529, "Overloaded")).times(2)])
        .with_otherwise(Reply::error(500, "boom"));
    let model = common::start(Some(scenario)).await;
    let messages = json!({"model": "m", "messages": [{"role": "user", "content": "q"}]});
    let (status, body) = post_json(&model, "/v1/messages?beta=true", &messages).await;
    assert_eq!(status, 529);
    assert_eq!(
        body,
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
    // A streaming request gets the same plain JSON error: nothing is streamed.
    let mut streamed = messages.clone();
    streamed["stream"] = json!(true);
    let response = common::post(&model, "/v1/messages", &streamed).await;
    assert_eq!(response.status().as_u16(), 529);
    assert_eq!(response.headers()["content-type"], "application/json");

    let (status, body) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "m", "input": "q", "stream": true}),
    )
    .await;
    assert_eq!(status, 500);
    assert_eq!(
        body,
        json!({"error": {"message": "boom", "type": "server_error", "param": null, "code": null}})
    );
    let (_, body) = post_json(&model, "/v1/messages", &messages).await;
    assert_eq!(body["error"]["type"], "api_error");
}

#[tokio::test]
async fn a_verbatim_error_body_is_sent_as_is() {
    let body = json!({"error": {"message": "quota", "type": "insufficient_quota", "code": "insufficient_quota"}});
    let scenario = Scenario::new(vec![Rule::from(Reply {
        error: Some(ErrorReply {
            status: 429,
            message: None,
            body: Some(body.clone()),
        }),
        ..Reply::default()
    })]);
    let model = common::start(Some(scenario)).await;
    let (status, got) = post_json(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": "q"}]}),
    )
    .await;
    assert_eq!((status, got), (429, body.clone()));
    assert_eq!(
        model.journal()[0]["reply"],
        json!({"status": 429, "body": body})
    );
}
