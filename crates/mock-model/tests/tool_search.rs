//! Claude Code's tool search (ENABLE_TOOL_SEARCH): deferred tools are loaded with `ToolSearch`,
//! whose result comes back as `tool_reference` blocks; then the loaded tool is called.

use crate::common;

use common::post_json;
use serde_json::{Value, json};
use switchboard_mock_model::{ItemKind, Reply, Rule, Scenario, ToolCall, When};

fn tool_search() -> Value {
    json!({"name": "ToolSearch", "description": "Search deferred tools",
           "input_schema": {"type": "object", "properties": {"query": {"type": "string"},
                            "max_results": {"type": "number"}}, "required": ["query"]}})
}

fn weather() -> Value {
    json!({"name": "mcp__sdklab__get_weather", "description": "Get weather",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}},
                            "required": ["city"]}})
}

/// What claude 2.1.332 sends with ENABLE_TOOL_SEARCH (captured against this mock): a
/// placeholder tool that must never be called, and once loaded, the tool itself still marked
/// `defer_loading`.
fn placeholder() -> Value {
    json!({"name": "DeferredToolPlaceholder",
           "description": "Reserved placeholder that keeps deferred tool loading active; never call this tool.",
           "input_schema": {"type": "object", "properties": {}}, "defer_loading": true})
}

fn loaded_weather() -> Value {
    let mut tool = weather();
    tool["defer_loading"] = json!(true);
    tool
}

#[tokio::test]
async fn the_default_loads_a_deferred_tool_then_calls_it() {
    let model = common::start(None).await;
    let announcement = "The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded \u{2014} calling them directly will fail with InputValidationError. Use ToolSearch with query \"select:<name>[,<name>...]\" to load tool schemas before calling them:\nmcp__sdklab__get_weather";
    let mut messages = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]}),
        json!({"role": "system", "content": [{"type": "text", "text": "# Environment\n..."},
                                             {"type": "text", "text": announcement}]}),
    ];
    let (_, first) = post_json(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "claude-fake", "messages": messages, "tools": [tool_search(), placeholder()]}),
    )
    .await;
    let search = first["content"][0].clone();
    assert_eq!(search["name"], "ToolSearch");
    assert_eq!(
        search["input"],
        json!({"query": "select:mcp__sdklab__get_weather", "max_results": 5})
    );

    messages.push(json!({"role": "assistant", "content": [search.clone()]}));
    messages.push(
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": search["id"],
        "content": [{"type": "tool_reference", "tool_name": "mcp__sdklab__get_weather"}],
        "cache_control": {"type": "ephemeral"}}]}),
    );
    let tools = json!([tool_search(), placeholder(), loaded_weather()]);
    let (_, second) = post_json(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "claude-fake", "messages": messages, "tools": tools}),
    )
    .await;
    let call = second["content"][0].clone();
    assert_eq!(call["name"], "mcp__sdklab__get_weather");
    // The loaded schema is used, although the tool is still marked deferred.
    assert_eq!(call["input"], json!({"city": "a"}));

    messages.push(json!({"role": "assistant", "content": [call.clone()]}));
    messages.push(
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"],
        "content": [{"type": "text", "text": "foggy 12C"}]}]}),
    );
    let (_, third) = post_json(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "claude-fake", "messages": messages, "tools": tools}),
    )
    .await;
    assert_eq!(third["content"][0]["text"], "FINAL: foggy 12C");
}

#[tokio::test]
async fn deferred_tools_are_never_called_directly() {
    let model = common::start(None).await;
    let (_, reply) = post_json(
        &model,
        "/v1/messages",
        &json!({"model": "claude-fake", "messages": [{"role": "user", "content": "hi"}],
                "tools": [placeholder(), loaded_weather()]}),
    )
    .await;
    assert_eq!(
        reply["content"][0],
        json!({"type": "text", "text": "ECHO: hi"})
    );
}

#[tokio::test]
async fn rules_see_tool_reference_results_as_tool_output_text() {
    let scenario = Scenario::new(vec![
        Rule::new(
            When {
                last_kind: Some(ItemKind::ToolOutput),
                last_text_contains: Some("mcp__sdklab__get_weather".into()),
                ..When::default()
            },
            Reply::tool_calls(vec![ToolCall::new(
                "mcp__sdklab__get_weather",
                json!({"city": "Oslo"}),
            )]),
        )
        .named("after ToolSearch"),
        Rule::new(
            When::default(),
            Reply::tool_calls(vec![ToolCall::new(
                "ToolSearch",
                json!({"query": "select:mcp__sdklab__get_weather"}),
            )]),
        ),
    ]);
    let model = common::start(Some(scenario)).await;
    let messages = json!([
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ToolSearch",
                                           "input": {"query": "select:mcp__sdklab__get_weather"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
            "content": [{"type": "tool_reference", "tool_name": "mcp__sdklab__get_weather"}]}]},
    ]);
    let (_, reply) = post_json(
        &model,
        "/v1/messages",
        &json!({"model": "claude-fake", "messages": messages, "tools": [tool_search(), weather()]}),
    )
    .await;
    assert_eq!(reply["content"][0]["input"], json!({"city": "Oslo"}));
    assert_eq!(
        model.journal()[0]["matched"],
        json!({"rule": 0, "name": "after ToolSearch"})
    );
}
