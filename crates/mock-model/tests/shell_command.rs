//! A `shell` reply runs its command line with whichever shell tool the harness offers, in that
//! tool's own argument shape, and says so in text when the request offers none.

use crate::common;

use common::post_json;
use serde_json::{Value, json};
use switchboard_mock_model::{Reply, Scenario};

const COMMAND: &str = "echo made > made.txt";

fn scenario() -> Scenario {
    Scenario::new(vec![Reply::shell(COMMAND).into()])
}

fn function(name: &str) -> Value {
    json!({"type": "function", "name": name, "parameters": {"type": "object"}})
}

#[tokio::test]
async fn codex_exec_command_gets_cmd() {
    let model = common::start(Some(scenario())).await;
    let body = json!({"model": "gpt-fake", "input": "go",
        "tools": [function("write_stdin"), function("exec_command")]});
    let (status, response) = post_json(&model, "/v1/responses", &body).await;
    assert_eq!(status, 200);
    let call = &response["output"][0];
    assert_eq!(call["type"], "function_call");
    assert_eq!(call["name"], "exec_command");
    let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"cmd": COMMAND}));
}

#[tokio::test]
async fn claude_bash_gets_command_and_description() {
    let model = common::start(Some(scenario())).await;
    let body = json!({"model": "claude-fake", "max_tokens": 100,
        "messages": [{"role": "user", "content": "go"}],
        "tools": [{"name": "Read", "input_schema": {"type": "object"}},
                  {"name": "Bash", "input_schema": {"type": "object"}}]});
    let (status, response) = post_json(&model, "/v1/messages", &body).await;
    assert_eq!(status, 200);
    let call = &response["content"][0];
    assert_eq!(call["type"], "tool_use");
    assert_eq!(call["name"], "Bash");
    assert_eq!(
        call["input"],
        json!({"command": COMMAND, "description": "Run a shell command"})
    );
}

#[tokio::test]
async fn no_shell_tool_is_said_in_text() {
    let model = common::start(Some(scenario())).await;
    let body = json!({"model": "gpt-fake", "input": "go", "tools": [function("get_weather")]});
    let (_, response) = post_json(&model, "/v1/responses", &body).await;
    assert_eq!(
        response["output"][0]["content"][0]["text"],
        format!("NO SHELL TOOL OFFERED: {COMMAND}")
    );
}
