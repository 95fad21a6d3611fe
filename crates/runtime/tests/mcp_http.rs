//! HTTP MCP servers on `environment: none`, end to end on the real harnesses: each server is a
//! real streamable-HTTP MCP server that records every request's headers, reached through the
//! Runtime's loopback credential gateway; the model is the mock model.

use crate::support;

use serde_json::{Map, json};
use support::mcp::*;
use support::mcp_server::{McpServer as TestServer, TOOLS};
use support::scratch;
use switchboard_mock_model::{Scenario, mcp_tool_turn};
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{PreparationState, TurnOutcome};
use switchboard_protocol::{McpCallStatus, RuntimeToCore};

const BEARER: &str = "tok-MCP-LEAK-CANARY-7f3a9c";

fn outcome(frames: &[RuntimeToCore]) -> TurnOutcome {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => done.outcome,
        other => panic!("the Turn did not end with done: {other:?}"),
    }
}

/// The model calls the tool, the result reaches the model, the `mcp_call` frames carry it, the
/// bearer and declared header reach the server exactly, and the bearer is nowhere else.
async fn full_turn_with_bearer(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let logs = capture_logs();
    let mcp = TestServer::start().await;
    let model = model(mcp_tool_turn(
        "lab",
        "get_weather",
        json!({"city": "Paris"}),
        "FINAL: sunny",
    ))
    .await;
    let state = scratch("mcp-bearer-");
    let mut runtime = runtime(harness, binary, state.path());
    let mut lab = server("lab", &mcp.url(), Some(&["get_weather"]));
    lab.bearer = Some(BEARER.into());
    lab.headers = Map::from_iter([("X-Team".to_owned(), json!("support"))]);
    lab.required = true;
    let config = configuration(harness, &model, vec![lab]);
    let frames = prepared_turn(&mut runtime, "sess_1", config, "Weather in Paris?").await;

    let calls = mcp_calls(&frames);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].status, McpCallStatus::InProgress);
    assert_eq!(calls[0].item_id, calls[1].item_id);
    let done = &calls[1];
    assert_eq!(done.status, McpCallStatus::Completed, "{done:?}");
    assert_eq!(
        (done.server_label.as_str(), done.name.as_str()),
        ("lab", "get_weather")
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&done.arguments).unwrap(),
        json!({"city": "Paris"})
    );
    assert!(
        done.output
            .as_deref()
            .unwrap()
            .contains("get_weather in Paris: sunny 21C"),
        "{done:?}"
    );

    // The server saw the call, with the bearer exactly and the declared header, on every request.
    assert_eq!(mcp.calls().len(), 1);
    for request in mcp.requests() {
        assert_eq!(
            request.headers["authorization"],
            format!("Bearer {BEARER}").as_str(),
            "{request:?}"
        );
        assert_eq!(request.headers["x-team"], "support", "{request:?}");
    }
    // The tool's result reached the model.
    let requests = model_requests(&model);
    let last = requests.last().unwrap().to_string();
    assert!(last.contains("get_weather in Paris: sunny 21C"), "{last}");

    // Zero hits: frames, the Session's state (harness homes, config, transcripts), the
    // harness processes' environment and command line (checked while they still run).
    assert!(!format!("{frames:?}").contains(BEARER));
    let hits = leak_scan(BEARER, &[state.path()]);
    assert!(hits.is_empty(), "the bearer leaked to {hits:?}");
    let logs = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(
        !logs.is_empty(),
        "the Runtime logged nothing: the capture is not working"
    );
    assert!(!logs.contains(BEARER), "the bearer is in the Runtime's log");
}

/// Anonymous servers, `allowed_tools` of one, `[]` and null, and an optional server that is
/// down: exactly the selected tools are offered to the model, and the Turn runs.
async fn allowlists_anonymous_and_optional(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let (one, none, all) = (
        TestServer::start().await,
        TestServer::start().await,
        TestServer::start().await,
    );
    let model = model(Scenario::new(vec![])).await;
    let state = scratch("mcp-allow-");
    let mut runtime = runtime(harness, binary, state.path());
    let servers = vec![
        server("one", &one.url(), Some(&["get_time"])),
        server("none", &none.url(), Some(&[])),
        server("all", &all.url(), None),
        server("down", &dead_url(), None),
    ];
    let config = configuration(harness, &model, servers);
    prepared_turn(&mut runtime, "sess_1", config, "hello").await;

    let first = model_requests(&model).into_iter().next().unwrap();
    let mut mcp_tools: Vec<String> = offered(&first)
        .into_iter()
        .filter(|n| n.starts_with("mcp__"))
        .collect();
    mcp_tools.sort();
    let mut expected: Vec<String> = TOOLS.iter().map(|t| format!("mcp__all__{t}")).collect();
    expected.push("mcp__one__get_time".into());
    expected.sort();
    assert_eq!(mcp_tools, expected);

    // No bearer on any anonymous request; Claude sends a blank Authorization.
    for request in [&one, &none, &all].iter().flat_map(|s| s.requests()) {
        let authorization = request
            .headers
            .get("authorization")
            .map(|v| v.to_str().unwrap().to_owned());
        match harness {
            HarnessId::ClaudeCode => assert_eq!(authorization.as_deref(), Some(""), "{request:?}"),
            _ => assert_eq!(authorization, None, "{request:?}"),
        }
    }
}

/// A required server that cannot be reached fails the start: preparation fails and no Turn
/// can run.
async fn required_down_fails_the_start(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let model = model(Scenario::new(vec![])).await;
    let state = scratch("mcp-required-");
    let mut runtime = runtime(harness, binary, state.path());
    let mut down = server("down", &dead_url(), None);
    down.required = true;
    let (prepared, error) = prepare(
        &mut runtime,
        "sess_1",
        configuration(harness, &model, vec![down]),
    )
    .await;
    assert_eq!(prepared, PreparationState::Failed, "{error:?}");
    assert!(error.unwrap().contains("down"));
    assert!(model_requests(&model).is_empty());
}

/// A required server that is down when an evicted Session resumes cold fails that Turn, and the
/// Session's history stays: once the server is back, the next Turn resumes it.
async fn required_down_at_cold_resume(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let mcp = TestServer::start().await;
    let addr = mcp.addr;
    let model = model(Scenario::new(vec![])).await;
    let state = scratch("mcp-resume-");
    let idle = std::time::Duration::from_millis(500);
    let mut runtime = runtime_evicting_after(harness, binary, state.path(), idle);
    let mut lab = server("lab", &mcp.url(), None);
    lab.required = true;
    let (prepared, error) = prepare(
        &mut runtime,
        "sess_1",
        configuration(harness, &model, vec![lab]),
    )
    .await;
    assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    let frames = run(&mut runtime, "sess_1", "run_1", "REMEMBER-first-turn").await;
    assert_eq!(outcome(&frames), TurnOutcome::Completed, "{frames:?}");

    let mut notices = runtime.notices();
    let notice = tokio::time::timeout(support::WAIT, notices.recv())
        .await
        .expect("evicted")
        .unwrap();
    assert_eq!(
        notice,
        switchboard_runtime::Notice::Evicted {
            session_id: "sess_1".into()
        }
    );
    drop(mcp);
    let requests_before = model_requests(&model).len();
    let frames = run(&mut runtime, "sess_1", "run_2", "second").await;
    assert_eq!(outcome(&frames), TurnOutcome::Failed, "{frames:?}");
    assert_eq!(
        model_requests(&model).len(),
        requests_before,
        "no model request without the server"
    );

    let _mcp = TestServer::start_on(addr).await;
    let frames = run(&mut runtime, "sess_1", "run_3", "third").await;
    assert_eq!(outcome(&frames), TurnOutcome::Completed, "{frames:?}");
    let last = model_requests(&model).last().unwrap().to_string();
    assert!(
        last.contains("REMEMBER-first-turn") && last.contains("third"),
        "{last}"
    );
}

both_harnesses! {
    mcp_turn_carries_the_bearer_and_the_result => full_turn_with_bearer,
    mcp_allowed_tools_select_exactly_and_optional_down_is_skipped => allowlists_anonymous_and_optional,
    mcp_required_server_down_fails_the_start => required_down_fails_the_start,
    mcp_required_server_down_at_cold_resume_fails_the_turn_and_keeps_history => required_down_at_cold_resume,
}
