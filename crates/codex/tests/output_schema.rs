//! `text.format` json_schema reaches the model as a strict `text.format` on the Turn, and the
//! final agent message text is published unchanged as the final answer.

use crate::support;

use support::fake_responses::{FakeResponses, JSON_REPLY, Script};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_schema_reaches_the_model_and_the_answer_is_unchanged() {
    let Some(binary) = codex_binary("output_schema_reaches_the_model_and_the_answer_is_unchanged")
    else {
        return;
    };
    let schema_text = r#"{"type":"object","properties":{"answer":{"type":"string"},"confidence":{"type":"number"}},"required":["answer","confidence"],"additionalProperties":false}"#;
    let schema: serde_json::Value = serde_json::from_str(schema_text).unwrap();
    let model = FakeResponses::start(Script::Text("unused".into())).await;
    let config = configuration(&model.base_url(), vec![], output_schema(schema.clone()));
    let (_state, executor) = prepare(binary, config).await;

    for n in 1..=2 {
        let mut turn = start_user_turn(executor.as_ref(), n, "Answer in JSON").await;
        let events = until_terminal(&mut turn).await;
        assert_completed(&events);
        assert_eq!(
            final_answer(&events).as_deref(),
            Some(JSON_REPLY),
            "the text is codex's, unchanged"
        );
    }

    // Every Turn carries the schema (codex applies outputSchema to one Turn only).
    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let format = &request["text"]["format"];
        assert_eq!(format["type"], "json_schema");
        assert_eq!(format["strict"], true);
        assert_eq!(format["schema"].to_string(), schema.to_string());
    }
}
