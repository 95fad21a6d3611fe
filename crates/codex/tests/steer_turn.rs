//! Steering: input added to a running Turn is accepted by codex (`turn/steer` with the
//! expected Turn id) and reaches the model; steering without a running Turn is refused.

use crate::support;

use support::*;
use switchboard_protocol::{InputPart, Receipt, TurnHandle};

/// Steers `STEERED: in Celsius please` into the Turn while its weather call is pending (so the
/// Turn is certainly running), answers the call (confirmed), and answers whatever else the model
/// asks (the steered message starts a new model round) until the Turn completes.
async fn steer_during_the_call_then_complete(turn: &mut TurnHandle) {
    let call_id = next_call_id(turn).await;
    turn.control
        .steer(vec![InputPart::InputText {
            text: "STEERED: in Celsius please".into(),
        }])
        .await
        .expect("the steer is accepted");
    assert_eq!(
        turn.control
            .submit_function_result(&call_id, text_result("sunny"))
            .await,
        Receipt::Confirmed
    );
    let events = until_terminal_answering(turn, |_, _| text_result("sunny, 20 C")).await;
    assert_completed(&events);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steered_input_joins_the_running_turn() {
    let Some(binary) = codex_binary("steered_input_joins_the_running_turn") else {
        return;
    };
    let model = weather_model(r#"{"city":"Nice"}"#).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![get_weather()]).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Nice?").await;
    steer_during_the_call_then_complete(&mut turn).await;
    let requests = model_requests(&model.journal());
    assert!(
        requests.last().unwrap()["input"]
            .to_string()
            .contains("STEERED: in Celsius please")
    );

    // After the Turn, steering is refused by codex.
    assert!(
        turn.control
            .steer(vec![InputPart::InputText {
                text: "late".into()
            }])
            .await
            .is_err()
    );
}

/// A steer joins the running Turn under the Session's output schema: the model request that
/// carries the steered text also carries the frozen schema as its strict `text.format`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steered_input_joins_under_the_output_schema() {
    let Some(binary) = codex_binary("steered_input_joins_under_the_output_schema") else {
        return;
    };
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": false,
    });
    let model = weather_model(r#"{"city":"Nice"}"#).await;
    let config = configuration(
        &model.base_url(),
        vec![get_weather()],
        output_schema(schema.clone()),
    );
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Nice?").await;
    steer_during_the_call_then_complete(&mut turn).await;

    let requests = model_requests(&model.journal());
    let steered: Vec<_> = requests
        .iter()
        .filter(|r| {
            r["input"]
                .to_string()
                .contains("STEERED: in Celsius please")
        })
        .collect();
    assert!(!steered.is_empty(), "the steer reached the model");
    // Every request of the Turn, the steered ones included, runs under the schema.
    for request in &requests {
        let format = &request["text"]["format"];
        assert_eq!(format["type"], "json_schema");
        assert_eq!(format["strict"], true);
        assert_eq!(format["schema"], schema);
    }
}
