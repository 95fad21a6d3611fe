//! Helpers shared by the integration tests: start a mock, post JSON, read SSE frames.

use serde_json::Value;
use switchboard_mock_model::{MockConfig, MockModel, Scenario};

/// A mock on an ephemeral loopback port, with `scenario` (or the built-in default).
pub async fn start(scenario: Option<Scenario>) -> MockModel {
    let mut config = MockConfig::loopback();
    config.scenario = scenario;
    MockModel::start(config).await.expect("mock model starts")
}

/// POSTs `body` as JSON to `path` (e.g. `/v1/responses`).
pub async fn post(model: &MockModel, path: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}{path}", model.base_url()))
        .json(body)
        .send()
        .await
        .expect("request is answered")
}

/// POSTs and returns the status and parsed JSON body.
pub async fn post_json(model: &MockModel, path: &str, body: &Value) -> (u16, Value) {
    let response = post(model, path, body).await;
    let status = response.status().as_u16();
    let text = response.text().await.expect("body arrives");
    (status, serde_json::from_str(&text).expect("body is JSON"))
}

/// One server-sent event: its `event:` name, if any, and its `data:` payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub name: Option<String>,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).expect("event data is JSON")
    }
}

/// POSTs and returns the SSE events of a streamed reply, checking the content type.
pub async fn post_stream(model: &MockModel, path: &str, body: &Value) -> Vec<Event> {
    let response = post(model, path, body).await;
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(content_type, "text/event-stream");
    parse_sse(&response.text().await.expect("stream completes"))
}

/// Splits an SSE body into events. Every frame must end with a blank line.
pub fn parse_sse(body: &str) -> Vec<Event> {
    assert!(body.ends_with("\n\n"), "stream ends with a complete frame");
    body.trim_end_matches('\n')
        .split("\n\n")
        .map(|frame| {
            let mut event = Event {
                name: None,
                data: String::new(),
            };
            for line in frame.lines() {
                if let Some(name) = line.strip_prefix("event: ") {
                    event.name = Some(name.to_owned());
                } else if let Some(data) = line.strip_prefix("data: ") {
                    event.data = data.to_owned();
                } else {
                    panic!("unexpected SSE line {line:?}");
                }
            }
            event
        })
        .collect()
}

/// The `type` of each event, checking that named events repeat it as their name.
pub fn types(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let kind = e.json()["type"].as_str().unwrap().to_owned();
            assert_eq!(
                e.name.as_deref(),
                Some(kind.as_str()),
                "event name = data.type"
            );
            kind
        })
        .collect()
}

/// A function tool for the Responses API.
pub fn responses_tool(name: &str) -> Value {
    serde_json::json!({
        "type": "function", "name": name, "description": "test tool", "strict": false,
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"], "additionalProperties": false}
    })
}
