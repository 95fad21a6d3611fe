//! Requests the mock cannot serve get a 400 (or 404/405) in the provider's own error shape,
//! never a panic, and the server keeps serving.

use crate::common;

use serde_json::Value;
use switchboard_mock_model::MockModel;

async fn send(model: &MockModel, method: reqwest::Method, path: &str, body: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .request(method, format!("{}{path}", model.base_url()))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn openai_error(body: &Value) -> &str {
    assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");
    body["error"]["message"].as_str().unwrap()
}

fn anthropic_error(body: &Value) -> &str {
    assert_eq!(body["type"], "error", "{body}");
    body["error"]["message"].as_str().unwrap()
}

#[tokio::test]
async fn bad_bodies_get_a_400_in_the_provider_shape() {
    let model = common::start(None).await;
    let post = reqwest::Method::POST;
    let cases = [
        ("/v1/responses", "{oops", "not valid JSON"),
        ("/v1/responses", "[]", "must be a JSON object"),
        ("/v1/responses", r#"{"input": "q"}"#, "'model'"),
        ("/v1/responses", r#"{"model": "m", "input": 5}"#, "'input'"),
        (
            "/v1/responses",
            r#"{"model": "m", "input": [1]}"#,
            "'input[0]'",
        ),
        (
            "/v1/responses",
            r#"{"model": "m", "stream": "yes"}"#,
            "'stream'",
        ),
        ("/v1/responses", r#"{"model": "m", "tools": {}}"#, "'tools'"),
        ("/v1/chat/completions", r#"{"model": "m"}"#, "'messages'"),
        (
            "/v1/chat/completions",
            r#"{"model": "m", "messages": [{"content": "x"}]}"#,
            "role",
        ),
    ];
    for (path, body, needle) in cases {
        let (status, error) = send(&model, post.clone(), path, body).await;
        assert_eq!(status, 400, "{path} {body}");
        assert!(openai_error(&error).contains(needle), "{error}");
    }
    let cases = [
        ("/v1/messages", "{oops", "not valid JSON"),
        ("/v1/messages", r#"{"model": "m"}"#, "messages"),
        (
            "/v1/messages",
            r#"{"model": "m", "messages": [{"content": "x"}]}"#,
            "role",
        ),
        (
            "/v1/messages",
            r#"{"model": "m", "messages": [{"role": "user"}]}"#,
            "content",
        ),
        (
            "/v1/messages?beta=true",
            r#"{"model": 1, "messages": []}"#,
            "'model'",
        ),
        ("/v1/messages/count_tokens", "[]", "JSON object"),
    ];
    for (path, body, needle) in cases {
        let (status, error) = send(&model, post.clone(), path, body).await;
        assert_eq!(status, 400, "{path} {body}");
        assert!(anthropic_error(&error).contains(needle), "{error}");
        assert_eq!(error["error"]["type"], "invalid_request_error");
    }
    // Still serving.
    let (status, _) = send(
        &model,
        post,
        "/v1/responses",
        r#"{"model": "m", "input": "q"}"#,
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn unknown_routes_get_a_404() {
    let model = common::start(None).await;
    let (status, error) = send(&model, reqwest::Method::POST, "/v1/completions", "{}").await;
    assert_eq!(status, 404);
    assert_eq!(error["error"]["code"], "unknown_url");
    let (status, error) = send(&model, reqwest::Method::GET, "/v1/messages/batches", "").await;
    assert_eq!(status, 404);
    assert_eq!(error["error"]["type"], "not_found_error");
    let (status, error) = send(&model, reqwest::Method::GET, "/v1/responses", "").await;
    assert_eq!(status, 405);
    assert!(openai_error(&error).contains("GET"));
}
