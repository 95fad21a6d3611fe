//! Deferred discovery: with `tool_search`, the eager function is offered inline while the
//! deferred one is withheld until the model loads it through native `ToolSearch`; the model then
//! calls it, and the call is an ordinary function call with a confirmed receipt.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::{ExecutionControls, FunctionToolSpec, Receipt, SessionConfiguration};

fn lookup() -> FunctionToolSpec {
    FunctionToolSpec {
        name: "lookup_record".into(),
        description: "Look up a record by key".into(),
        parameters: serde_json::json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}),
        defer_loading: true,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_loads_a_deferred_function_and_calls_it() {
    let Some(binary) = claude_binary("the_model_loads_a_deferred_function_and_calls_it") else {
        return;
    };
    // First request: load the deferred function. Then the mock's default calls what
    // ToolSearch loaded, and answers with its output.
    let load = ToolCall::new(
        "ToolSearch",
        serde_json::json!({"query": "select:mcp__functions__lookup_record", "max_results": 5}),
    );
    let scenario = Scenario::new(vec![on_request(1, Reply::tool_calls(vec![load]))]);
    let session = session_with(binary, Some(scenario), |base_url| SessionConfiguration {
        tool_search: true,
        ..configuration(
            base_url,
            vec![get_weather(), lookup()],
            ExecutionControls::default(),
        )
    })
    .await;
    let mut turn = session.turn(1, "Find record 7").await;
    let (call_id, name, _) = first_call(&mut turn).await;
    assert_eq!(name, "lookup_record");
    assert_eq!(
        turn.control
            .submit_function_result(&call_id, text_result("record 7: blue"))
            .await,
        Receipt::Confirmed
    );
    let events = until_terminal(&mut turn).await;
    assert_eq!(
        final_answer(&events).as_deref(),
        Some("FINAL: record 7: blue")
    );

    let requests = session.model_requests();
    assert_eq!(requests.len(), 3);
    let first = offered_tools(&requests[0]);
    assert!(first.contains(&"ToolSearch".to_owned()), "{first:?}");
    assert!(
        first.contains(&"mcp__functions__get_weather".to_owned()),
        "eager: {first:?}"
    );
    assert!(
        !first.contains(&"mcp__functions__lookup_record".to_owned()),
        "deferred: {first:?}"
    );
    let second = offered_tools(&requests[1]);
    assert!(
        second.contains(&"mcp__functions__lookup_record".to_owned()),
        "loaded: {second:?}"
    );
    session.model.shutdown().await;
}
