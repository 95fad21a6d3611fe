//! The project's mock model with its built-in default (call the first caller function once with
//! schema-generated arguments, then answer `FINAL: <tool output>`): one full function round
//! trip through the real codex, as a Runtime would run it.

use crate::support;

use support::*;

// The mock model's built-in default skips codex 0.171.0's own tools (`multi_agent_v1`, goals,
// `exec_command`), so its "first offered function" is the caller's `get_weather`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mock_model_default_plays_one_function_round_trip() {
    let Some(binary) = codex_binary("mock_model_default_plays_one_function_round_trip") else {
        return;
    };
    let model = mock_model(None).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![get_weather()]).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "What is the weather?").await;
    let mut calls = 0;
    let events = until_terminal_answering(&mut turn, |name, arguments| {
        calls += 1;
        assert_eq!(name, "get_weather");
        let args: serde_json::Value = serde_json::from_str(arguments).unwrap();
        assert!(args["city"].is_string(), "{arguments}");
        text_result("mock sunshine")
    })
    .await;
    assert_eq!(calls, 1);
    assert_completed(&events);
    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 2);
    let last_input = requests[1]["input"].to_string();
    assert!(
        last_input.contains("mock sunshine"),
        "the result reached the model"
    );
    model.shutdown().await;
}
