//! Steering: a further `user` line joins the running Turn. Sent while a function call is
//! pending, claude folds it into the same native turn (the next model request carries it); sent
//! during the last model request, claude runs it as a native turn of its own, and the Turn
//! lasts until that one ends, with a single terminal event and the later answer as its final
//! answer.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario};
use switchboard_protocol::messages::MessagePhase;
use switchboard_protocol::{ExecutionControls, InputPart, Receipt};

fn steer_text(text: &str) -> Vec<InputPart> {
    vec![InputPart::InputText { text: text.into() }]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_steer_joins_the_running_turn() {
    let Some(binary) = claude_binary("a_steer_joins_the_running_turn") else {
        return;
    };
    let (session, mut turn, call_id) =
        pending_weather_call(binary, "Nice", "Weather in Nice?").await;
    // `steer` returns once claude reported the line queued (its `command_lifecycle` event), so
    // the result below frees a turn that already holds the steer: no wait is needed.
    turn.control
        .steer(steer_text("STEERED: and tomorrow too"))
        .await
        .unwrap();
    assert_eq!(
        turn.control
            .submit_function_result(&call_id, text_result("mild"))
            .await,
        Receipt::Confirmed
    );
    assert_completed(&until_terminal(&mut turn).await);
    let requests = session.model_requests();
    assert_eq!(requests.len(), 2, "one native turn: call, then answer");
    assert!(
        requests[1]["messages"]
            .to_string()
            .contains("STEERED: and tomorrow too")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_steer_extends_the_turn() {
    let Some(binary) = claude_binary("a_late_steer_extends_the_turn") else {
        return;
    };
    let scenario = Scenario::new(vec![
        on_request(1, Reply::text("first answer").delay_ms(1500)),
        on_request(2, Reply::text("answer to the steer")),
    ]);
    let session = session(binary, Some(scenario), vec![], ExecutionControls::default()).await;
    let mut turn = session.turn(1, "hello").await;
    session.wait_for_model_call().await;
    turn.control
        .steer(steer_text("STEERED: one more thing"))
        .await
        .unwrap();
    let events = until_terminal(&mut turn).await;
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminals, 1);
    assert_completed(&events);
    let messages = completed_messages(&events);
    let phases: Vec<_> = messages
        .iter()
        .map(|(_, phase, text)| (*phase, text.as_str()))
        .collect();
    assert_eq!(
        phases,
        vec![
            (MessagePhase::Commentary, "first answer"),
            (MessagePhase::FinalAnswer, "answer to the steer"),
        ]
    );
    // The next Turn is a Turn of its own, not a leftover of this one.
    let mut next = session.turn(2, "bye").await;
    let events = until_terminal(&mut next).await;
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: bye"));
}
