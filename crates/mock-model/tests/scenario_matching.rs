//! Rules are tried in order against each request; every condition present must hold, and a
//! rule with `times` stops firing once used up. The journal's `matched` says which rule fired.

use crate::common;

use common::{post, responses_tool};
use serde_json::{Value, json};
use switchboard_mock_model::{ItemKind, MockModel, Protocol, Reply, Rule, Scenario, When};

/// A scenario whose rules each answer with their own index as text.
fn indexed(whens: Vec<When>) -> Scenario {
    Scenario::new(
        whens
            .into_iter()
            .enumerate()
            .map(|(i, when)| Rule::new(when, Reply::text(format!("rule {i}"))))
            .collect(),
    )
    .with_otherwise(Reply::text("otherwise"))
}

/// Which rule answered the latest request, per the journal.
fn matched(model: &MockModel) -> Value {
    model.journal().last().unwrap()["matched"].clone()
}

fn rule(index: usize) -> Value {
    json!({"rule": index, "name": null})
}

async fn ask(model: &MockModel, path: &str, body: Value) -> Value {
    let response = post(model, path, &body).await;
    assert_eq!(response.status().as_u16(), 200);
    matched(model)
}

#[tokio::test]
async fn the_first_matching_rule_answers() {
    let model = common::start(Some(indexed(vec![
        When {
            last_text_contains: Some("Paris".into()),
            ..When::default()
        },
        When {
            last_text_contains: Some("weather".into()),
            ..When::default()
        },
    ])))
    .await;
    let ask_text = |text: &'static str| {
        ask(
            &model,
            "/v1/responses",
            json!({"model": "m", "input": text}),
        )
    };
    assert_eq!(ask_text("weather in Paris").await, rule(0));
    assert_eq!(ask_text("weather in Rome").await, rule(1));
    assert_eq!(ask_text("hello").await, json!("otherwise"));
}

#[tokio::test]
async fn last_item_kind_and_text() {
    let model = common::start(Some(indexed(vec![
        When {
            last_kind: Some(ItemKind::ToolOutput),
            last_text_equals: Some("sunny".into()),
            ..When::default()
        },
        When {
            last_kind: Some(ItemKind::ToolOutput),
            ..When::default()
        },
        When {
            last_kind: Some(ItemKind::User),
            ..When::default()
        },
    ])))
    .await;
    let with_output = |output: &str| {
        json!({"model": "m", "input": [
            {"type": "message", "role": "user", "content": "q"},
            {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"},
            {"type": "function_call_output", "call_id": "c", "output": output}]})
    };
    assert_eq!(
        ask(&model, "/v1/responses", with_output("sunny")).await,
        rule(0)
    );
    assert_eq!(
        ask(&model, "/v1/responses", with_output("sunny!")).await,
        rule(1)
    );
    let user = json!({"model": "m", "messages": [{"role": "user", "content": "q"}]});
    assert_eq!(ask(&model, "/v1/chat/completions", user).await, rule(2));
    let system = json!({"model": "m", "messages": [{"role": "system", "content": "q"}]});
    assert_eq!(
        ask(&model, "/v1/chat/completions", system).await,
        json!("otherwise")
    );
}

#[tokio::test]
async fn tool_offered_also_matches_the_namespaced_spelling() {
    let model = common::start(Some(indexed(vec![
        When {
            tool_offered: Some("mcp__lab__get_weather".into()),
            ..When::default()
        },
        When {
            tool_offered: Some("get_time".into()),
            ..When::default()
        },
    ])))
    .await;
    let namespaced = json!({"model": "m", "input": "q", "tools": [{"type": "namespace",
        "name": "mcp__lab", "tools": [responses_tool("get_weather")]}]});
    assert_eq!(ask(&model, "/v1/responses", namespaced).await, rule(0));
    let claude = json!({"model": "m", "messages": [{"role": "user", "content": "q"}],
        "tools": [{"name": "mcp__lab__get_weather", "input_schema": {"type": "object"}}]});
    assert_eq!(ask(&model, "/v1/messages", claude).await, rule(0));
    let plain = json!({"model": "m", "input": "q", "tools": [responses_tool("get_time")]});
    assert_eq!(ask(&model, "/v1/responses", plain).await, rule(1));
}

#[tokio::test]
async fn tool_output_present_looks_at_the_current_turn_only() {
    let model = common::start(Some(indexed(vec![When {
        tool_output_present: Some(true),
        ..When::default()
    }])))
    .await;
    let turn = json!({"model": "m", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "out"}]}]});
    assert_eq!(ask(&model, "/v1/messages", turn.clone()).await, rule(0));
    let mut next_turn = turn;
    next_turn["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "user", "content": "next question"}));
    assert_eq!(
        ask(&model, "/v1/messages", next_turn).await,
        json!("otherwise")
    );
}

#[tokio::test]
async fn protocol_stream_and_json_schema() {
    let model = common::start(Some(indexed(vec![
        When {
            protocol: Some(Protocol::Anthropic),
            ..When::default()
        },
        When {
            json_schema: Some(true),
            ..When::default()
        },
        When {
            stream: Some(true),
            ..When::default()
        },
    ])))
    .await;
    let messages = json!({"model": "m", "messages": [{"role": "user", "content": "q"}]});
    assert_eq!(ask(&model, "/v1/messages", messages).await, rule(0));
    let schema = json!({"model": "m", "input": "q", "text": {"format": {"type": "json_schema",
        "name": "s", "schema": {"type": "object"}}}});
    assert_eq!(ask(&model, "/v1/responses", schema).await, rule(1));
    let streamed = json!({"model": "m", "input": "q", "stream": true});
    assert_eq!(ask(&model, "/v1/responses", streamed).await, rule(2));
    let plain = json!({"model": "m", "input": "q"});
    assert_eq!(
        ask(&model, "/v1/responses", plain).await,
        json!("otherwise")
    );
}

#[tokio::test]
async fn request_number_and_times() {
    let model = common::start(Some(Scenario::new(vec![
        Rule::new(
            When {
                request: Some(2),
                ..When::default()
            },
            Reply::text("second"),
        ),
        Rule::from(Reply::text("limited")).times(2),
        Rule::from(Reply::text("rest")),
    ])))
    .await;
    let mut texts = Vec::new();
    for _ in 0..5 {
        let response = post(
            &model,
            "/v1/responses",
            &json!({"model": "m", "input": "q"}),
        )
        .await;
        let body: Value = response.json().await.unwrap();
        texts.push(body["output"][0]["content"][0]["text"].clone());
    }
    assert_eq!(
        texts,
        [
            json!("limited"),
            json!("second"),
            json!("limited"),
            json!("rest"),
            json!("rest")
        ]
    );
    let numbers: Vec<Value> = model
        .journal()
        .iter()
        .map(|e| e["request"].clone())
        .collect();
    assert_eq!(numbers, [json!(1), json!(2), json!(3), json!(4), json!(5)]);
}

/// A Claude Code Subagent's request: its task opened the turn, claude's own text (a `system`
/// message) follows it, and a tool result may be followed by more of claude's text.
#[tokio::test]
async fn the_opening_user_text_and_any_turn_output_match() {
    let model = common::start(Some(indexed(vec![
        When {
            user_text_contains: Some("CHILD TASK".into()),
            tool_output_contains: Some("sunny".into()),
            ..When::default()
        },
        When {
            user_text_contains: Some("CHILD TASK".into()),
            ..When::default()
        },
    ])))
    .await;
    let opened = |tail: Value| {
        let mut messages = vec![
            json!({"role": "user", "content": "CHILD TASK: the weather"}),
            json!({"role": "system", "content": [{"type": "text", "text": "# Environment"}]}),
        ];
        if let Value::Array(more) = tail {
            messages.extend(more);
        }
        json!({"model": "m", "max_tokens": 10, "messages": messages})
    };
    assert_eq!(
        ask(&model, "/v1/messages", opened(json!([]))).await,
        rule(1)
    );
    let after_output = opened(json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}]},
        {"role": "system", "content": [{"type": "text", "text": "a reminder"}]},
    ]));
    assert_eq!(ask(&model, "/v1/messages", after_output).await, rule(0));
    let root =
        json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "ROOT"}]});
    assert_eq!(ask(&model, "/v1/messages", root).await, json!("otherwise"));
}
