//! Evict + resume: an evicted Session holds no process; the next Turn starts a new codex on
//! the same CODEX_HOME, resumes the same thread, and the model is offered the same dynamic
//! tools (and the output schema) with the earlier history.

use crate::support;

use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evicted_session_resumes_its_thread_and_tools() {
    let Some(binary) = codex_binary("evicted_session_resumes_its_thread_and_tools") else {
        return;
    };
    let model = weather_model(r#"{"city":"Lyon"}"#).await;
    let schema: serde_json::Value = serde_json::from_str(r#"{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}"#).unwrap();
    let config = configuration(
        &model.base_url(),
        vec![get_weather()],
        output_schema(schema.clone()),
    );
    let (_state, executor) = prepare(binary, config).await;
    evict_and_resume(executor.as_ref()).await;

    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 4, "two model calls per Turn");
    let after_resume = &requests[2];
    // Same dynamic tool, re-offered from codex's rollout.
    let tool = |r: &serde_json::Value| {
        r["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "get_weather")
            .cloned()
    };
    assert_eq!(tool(after_resume), tool(&requests[0]));
    assert!(tool(after_resume).is_some());
    // Earlier history is kept.
    let input = after_resume["input"].to_string();
    assert!(
        input.contains("Weather in Lyon?") && input.contains("weather #1"),
        "{input}"
    );
    // The schema still applies to the resumed Turn.
    for request in &requests {
        assert_eq!(request["text"]["format"]["schema"], schema);
    }
    // Every request after resume goes to the same codex thread.
    let thread_header = |i: usize| {
        model
            .journal()
            .iter()
            .filter(|r| {
                r["path"]
                    .as_str()
                    .is_some_and(|p| p.ends_with("/responses"))
            })
            .nth(i)
            .and_then(|r| r["headers"]["thread-id"].as_str().map(str::to_owned))
    };
    assert_eq!(thread_header(3), thread_header(0));
}
