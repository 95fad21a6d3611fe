//! Evict + resume: an evicted Session holds no process; the next Turn starts a new claude with
//! the same flags and `--resume`s the same native session, so the model gets the earlier
//! history and the functions are offered (and served) again. A new executor on the same state
//! directory (a Runtime restart) resumes the same way.

use crate::support;

use support::*;
use switchboard_protocol::ExecutionControls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evicted_session_resumes_its_history_and_functions() {
    let Some(binary) = claude_binary("evicted_session_resumes_its_history_and_functions") else {
        return;
    };
    // The default plays one function round trip per Turn.
    let model = mock_model(None).await;
    let config = configuration(
        &model.base_url(),
        vec![get_weather()],
        ExecutionControls::default(),
    );
    let (state, executor) = prepare(binary.clone(), config.clone()).await;
    let session = evict_and_resume(executor.as_ref()).await;

    // A new executor on the same state directory: what a restarted Runtime does.
    drop(executor);
    let again = prepare_in(&adapter(binary), config, state.path()).await;
    assert_eq!(again.native_session_id().as_deref(), Some(session.as_str()));
    weather_turn(again.as_ref(), 3, "And the day after?").await;

    let calls = model_calls(&model.journal());
    assert_eq!(calls.len(), 6, "two model calls per Turn");
    for (i, call) in calls.iter().enumerate() {
        // One native session throughout: claude sends its id with every request.
        let user_id = call["body"]["metadata"]["user_id"].as_str().unwrap_or("");
        assert!(user_id.contains(&session), "request {i}: {user_id}");
        assert!(
            offered_tools(&call["body"]).contains(&"mcp__functions__get_weather".to_owned()),
            "request {i} offers the function"
        );
    }
    // Earlier history is kept after each resume.
    let after_evict = calls[2]["body"]["messages"].to_string();
    assert!(
        after_evict.contains("Weather in Lyon?") && after_evict.contains("weather #1"),
        "{after_evict}"
    );
    let after_restart = calls[4]["body"]["messages"].to_string();
    assert!(
        after_restart.contains("Weather in Lyon?") && after_restart.contains("weather #2"),
        "{after_restart}"
    );
    model.shutdown().await;
}
