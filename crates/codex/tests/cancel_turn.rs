//! Cancel mid-Turn: `turn/interrupt` settles the Turn as cancelled while the model is still
//! answering, pending calls are abandoned, and the Session runs its next Turn normally.

use crate::support;

use support::fake_responses::{FakeResponses, Script};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_while_the_model_hangs() {
    let Some(binary) = codex_binary("cancel_while_the_model_hangs") else {
        return;
    };
    let model = FakeResponses::start(Script::Hang).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![]).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "never answered").await;
    // Cancel once codex is waiting on the model: the request reached the provider.
    tokio::time::timeout(WAIT, model.wait_for_requests(1))
        .await
        .expect("codex never called the model");
    turn.control.cancel().await.unwrap();
    assert_cancelled(&until_terminal(&mut turn).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_abandons_a_pending_call() {
    let Some(binary) = codex_binary("cancel_abandons_a_pending_call") else {
        return;
    };
    let model = weather_model(r#"{"city":"Rome"}"#).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![get_weather()]).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Rome?").await;
    let call_id = next_call_id(&mut turn).await;
    cancel_abandons(&mut turn, &call_id).await;

    // The executor is idle again at once and runs the next Turn.
    let mut next = start_user_turn(executor.as_ref(), 2, "again").await;
    let events = until_terminal_answering(&mut next, |_, _| text_result("warm")).await;
    assert_completed(&events);
}
