//! With no scenario the mock plays one tool round-trip per turn: call the caller's first
//! function with schema-generated arguments, then answer `FINAL: <last tool output>`.

use crate::common;

use common::{post_json, responses_tool};
use serde_json::{Value, json};

fn codex_prefix(user_text: &str) -> Vec<Value> {
    vec![
        json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "BASE-INSTR"}]}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": user_text}]}),
    ]
}

fn codex_tools() -> Value {
    // Codex's own tools come first (as codex 0.171 sends them); the default must skip them and
    // call the dynamic tool.
    let own = |name: &str| {
        json!({"type": "function", "name": name, "strict": false,
        "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}})
    };
    json!([
        own("exec_command"), own("write_stdin"), own("request_user_input"), own("view_image"),
        {"type": "namespace", "name": "multi_agent_v1", "tools": [own("close_agent"), own("resume_agent")]},
        own("get_goal"), own("create_goal"), own("update_goal"),
        responses_tool("get_weather"),
    ])
}

#[tokio::test]
async fn codex_turns_call_the_dynamic_tool_once_then_answer_with_its_output() {
    let model = common::start(None).await;
    let mut input = codex_prefix("What is the weather in Paris?");
    let (_, first) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "gpt-fake", "input": input, "tools": codex_tools()}),
    )
    .await;
    let call = first["output"][0].clone();
    assert_eq!(call["type"], "function_call");
    assert_eq!(call["name"], "get_weather");
    // Minimal instance of {"city": {"type": "string"}}, required.
    assert_eq!(call["arguments"], "{\"city\":\"\"}");

    // MCP-style output: an array of input_text parts.
    input.push(call.clone());
    input.push(
        json!({"type": "function_call_output", "call_id": call["call_id"],
                      "output": [{"type": "input_text", "text": "Wall time: 0.1s"},
                                 {"type": "input_text", "text": "sunny 21C"}]}),
    );
    let (_, second) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "gpt-fake", "input": input, "tools": codex_tools()}),
    )
    .await;
    assert_eq!(
        second["output"][0]["content"][0]["text"],
        "FINAL: Wall time: 0.1s\nsunny 21C"
    );

    // A new turn (a new user message after the old outputs) calls the tool again.
    input.push(second["output"][0].clone());
    input.push(json!({"type": "message", "role": "user",
                      "content": [{"type": "input_text", "text": "And in Rome?"}]}));
    let (_, third) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "gpt-fake", "input": input, "tools": codex_tools()}),
    )
    .await;
    assert_eq!(third["output"][0]["type"], "function_call");
}

#[tokio::test]
async fn claude_turns_call_the_mcp_tool_then_answer_with_the_string_result() {
    let model = common::start(None).await;
    let tools = json!([{"name": "Bash", "input_schema": {"type": "object"}},
                       {"name": "mcp__lab__get_weather", "description": "Get weather",
                        "input_schema": {"type": "object", "properties": {"city": {"type": "string", "minLength": 3}},
                                         "required": ["city"]}}]);
    let mut messages = vec![json!({"role": "user", "content": [
        {"type": "text", "text": "<system-reminder>context</system-reminder>"},
        {"type": "text", "text": "Weather in Paris?"}]})];
    let (_, first) = post_json(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "claude-fake", "messages": messages, "tools": tools}),
    )
    .await;
    let tool_use = first["content"][0].clone();
    assert_eq!(tool_use["name"], "mcp__lab__get_weather");
    assert_eq!(tool_use["input"], json!({"city": "aaa"}));
    assert_eq!(first["stop_reason"], "tool_use");

    messages.push(json!({"role": "assistant", "content": [tool_use.clone()]}));
    // Claude Code may append reminder text after the tool results of a message.
    messages.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tool_use["id"], "content": "foggy 12C"},
        {"type": "text", "text": "<system-reminder>note</system-reminder>"}]}));
    let (_, second) = post_json(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "claude-fake", "messages": messages, "tools": tools}),
    )
    .await;
    assert_eq!(
        second["content"],
        json!([{"type": "text", "text": "FINAL: foggy 12C"}])
    );
    assert_eq!(second["stop_reason"], "end_turn");
}

#[tokio::test]
async fn without_tools_the_user_text_is_echoed() {
    let model = common::start(None).await;
    let (_, response) = post_json(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "system", "content": "Be terse."},
                                            {"role": "user", "content": "ping"}]}),
    )
    .await;
    assert_eq!(response["choices"][0]["message"]["content"], "ECHO: ping");
}
