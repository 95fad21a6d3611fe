//! Every request and its reply are journaled, in memory and as JSON lines, so tests can assert
//! exactly what a harness sent.

use serde_json::{Value, json};
use switchboard_mock_model::{
    MockConfig, MockModel, Reply, Rule, Scenario, ToolCall, count_tokens,
};

#[tokio::test]
async fn entries_record_the_request_verbatim_and_the_reply() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let scenario = Scenario::new(vec![
        Rule::from(Reply::tool_calls(vec![ToolCall::new("f", json!({"x": 1}))]))
            .named("first")
            .times(1),
    ]);
    let model = MockModel::start(
        MockConfig::loopback()
            .with_scenario(scenario)
            .with_journal_path(&path),
    )
    .await
    .unwrap();
    let client = reqwest::Client::new();
    // Parsed from text: `json!` would turn the literal 0.70 into 0.7.
    let body: Value = serde_json::from_str(
        r#"{"model": "gpt-fake", "stream": true, "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
            "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
            "text": {"format": {"type": "json_schema", "name": "s", "schema": {"type": "object"}}},
            "temperature": 0.70}"#,
    )
    .unwrap();
    let response = client
        .post(format!("{}/v1/responses?x=1", model.base_url()))
        .header("authorization", "Bearer dummy")
        .header("originator", "switchboard-test")
        .json(&body)
        .send()
        .await
        .unwrap();
    response.text().await.unwrap();
    client
        .post(format!("{}/v1/responses", model.base_url()))
        .body("{not json")
        .send()
        .await
        .unwrap();
    client
        .get(format!("{}/nowhere", model.base_url()))
        .send()
        .await
        .unwrap();

    let journal = model.journal();
    assert_eq!(journal.len(), 3);
    let first = &journal[0];
    assert_eq!(first["seq"], 1);
    assert_eq!(first["request"], 1);
    assert_eq!(first["protocol"], "responses");
    assert_eq!(first["method"], "POST");
    assert_eq!(first["path"], "/v1/responses");
    assert_eq!(first["query"], "x=1");
    assert_eq!(first["headers"]["authorization"], "Bearer dummy");
    assert_eq!(first["headers"]["originator"], "switchboard-test");
    assert_eq!(first["body"], body);
    // Numbers keep their exact text.
    assert!(first["body"].to_string().contains("0.70"));
    assert_eq!(first["matched"], json!({"rule": 0, "name": "first"}));
    assert_eq!(
        first["reply"],
        json!({"status": 200, "stream": true, "id": "resp_1", "text": "",
               "tool_calls": [{"name": "f", "namespace": null, "arguments": "{\"x\":1}"}],
               "usage": {"input_tokens": count_tokens("hi") + count_tokens("f"),
                         "output_tokens": count_tokens("f") + count_tokens("{\"x\":1}")}})
    );

    let second = &journal[1];
    assert_eq!(second["seq"], 2);
    assert_eq!(second["body"], Value::Null);
    assert_eq!(second["body_text"], "{not json");
    assert_eq!(second["reply"]["status"], 400);
    assert_eq!(
        second.get("request"),
        None,
        "a refused request is not a model request"
    );

    assert_eq!(journal[2]["reply"]["status"], 404);

    let file = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = file
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines, journal);
    model.shutdown().await;
}

#[tokio::test]
async fn the_journal_file_is_appended_to() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    for _ in 0..2 {
        let model = MockModel::start(MockConfig::loopback().with_journal_path(&path))
            .await
            .unwrap();
        reqwest::Client::new()
            .head(model.base_url())
            .send()
            .await
            .unwrap();
        model.shutdown().await;
    }
    let file = std::fs::read_to_string(&path).unwrap();
    assert_eq!(file.lines().count(), 2);
}

#[tokio::test]
async fn the_journal_from_a_mark_holds_only_what_came_after_it() {
    let model = MockModel::start(MockConfig::loopback()).await.unwrap();
    let client = reqwest::Client::new();
    for path in ["/first", "/second", "/third"] {
        client
            .get(format!("{}{path}", model.base_url()))
            .send()
            .await
            .unwrap();
    }
    let whole = model.journal();
    assert_eq!(whole.len(), 3);
    assert_eq!(model.journal_from(0), whole);
    assert_eq!(model.journal_from(1), whole[1..].to_vec());
    assert_eq!(model.journal_from(1)[0]["path"], "/second");
    assert_eq!(model.journal_from(3), Vec::<Value>::new());
    assert_eq!(model.journal_from(7), Vec::<Value>::new());
}
