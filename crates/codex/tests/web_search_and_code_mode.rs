//! Execution controls reach codex as native settings, visible in what it sends the model:
//! `web_search` as the Responses web_search tool (with context size, domains and location), and
//! programmatic tool calling as codex's code mode (`exec`) tool. Absent controls leave codex's
//! defaults; `disabled` / `enabled: false` remove the tools.

use crate::support;

use serde_json::Value;
use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_protocol::configuration::{ContextSize, WebSearchMode};
use switchboard_protocol::{
    ExecutionControls, ProgrammaticToolCallingControl, WebSearchControl, WebSearchLocation,
};

async fn tools_sent(binary: std::path::PathBuf, controls: ExecutionControls) -> Vec<Value> {
    let model = FakeResponses::start(Script::Text("ok".into())).await;
    let config = configuration(&model.base_url(), vec![get_weather()], controls);
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "hi").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    let requests = model_requests(&model.journal());
    requests[0]["tools"].as_array().cloned().unwrap_or_default()
}

fn web_search_tool(tools: &[Value]) -> Option<&Value> {
    tools.iter().find(|t| t["type"] == "web_search")
}

fn has_code_mode(tools: &[Value]) -> bool {
    tools
        .iter()
        .any(|t| t["name"] == "exec" && t["type"] == "custom")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_search_with_settings_and_code_mode_on() {
    let Some(binary) = codex_binary("live_search_with_settings_and_code_mode_on") else {
        return;
    };
    let tools = tools_sent(
        binary,
        ExecutionControls {
            web_search: Some(WebSearchControl {
                mode: WebSearchMode::Live,
                context_size: ContextSize::High,
                allowed_domains: Some(vec!["example.com".into()]),
                location: Some(WebSearchLocation {
                    city: Some("Paris".into()),
                    country: Some("FR".into()),
                    region: None,
                    timezone: Some("Europe/Paris".into()),
                }),
            }),
            programmatic_tool_calling: Some(ProgrammaticToolCallingControl { enabled: true }),
            ..Default::default()
        },
    )
    .await;
    let search = web_search_tool(&tools).expect("web_search tool");
    assert_eq!(search["external_web_access"], true);
    assert_eq!(search["search_context_size"], "high");
    assert_eq!(
        search["filters"]["allowed_domains"],
        serde_json::json!(["example.com"])
    );
    assert_eq!(search["user_location"]["city"], "Paris");
    assert_eq!(search["user_location"]["country"], "FR");
    assert_eq!(search["user_location"]["timezone"], "Europe/Paris");
    assert!(has_code_mode(&tools), "code mode exec tool offered");
    assert!(
        tools.iter().any(|t| t["name"] == "get_weather"),
        "functions stay direct tools"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_search_and_code_mode_off() {
    let Some(binary) = codex_binary("cached_search_and_code_mode_off") else {
        return;
    };
    let tools = tools_sent(
        binary,
        ExecutionControls {
            web_search: Some(WebSearchControl {
                mode: WebSearchMode::Cached,
                context_size: ContextSize::Low,
                allowed_domains: None,
                location: None,
            }),
            programmatic_tool_calling: Some(ProgrammaticToolCallingControl { enabled: false }),
            ..Default::default()
        },
    )
    .await;
    let search = web_search_tool(&tools).expect("web_search tool");
    assert_eq!(search["external_web_access"], false);
    assert_eq!(search["search_context_size"], "low");
    assert!(!has_code_mode(&tools));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabled_search_removes_the_tool() {
    let Some(binary) = codex_binary("disabled_search_removes_the_tool") else {
        return;
    };
    let tools = tools_sent(
        binary,
        ExecutionControls {
            web_search: Some(WebSearchControl {
                mode: WebSearchMode::Disabled,
                context_size: ContextSize::Medium,
                allowed_domains: None,
                location: None,
            }),
            ..Default::default()
        },
    )
    .await;
    assert!(web_search_tool(&tools).is_none(), "{tools:?}");
}
