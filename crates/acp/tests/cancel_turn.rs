//! Cancel while a function call is pending: `session/cancel` ends the Turn cancelled, the call
//! is abandoned (codex-acp sends no final status for it), a late result is refused, and the
//! Session runs its next Turn. Steering a profile without a steer extension is refused.

use crate::support;

use support::*;
use switchboard_acp::CODEX_ACP;
use switchboard_protocol::{AdapterError, InputPart};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_abandons_the_pending_call_and_the_session_goes_on() {
    let Some(binary) = agent_binary(
        "cancel_abandons_the_pending_call_and_the_session_goes_on",
        &CODEX_ACP,
    ) else {
        return;
    };
    let model = mock_model(None).await;
    let config = configuration(&model.base_url(), vec![get_weather()]);
    let (_state, executor) = prepare(CODEX_ACP, binary, config).await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Paris?").await;
    let (call_id, _, _) = first_call(&mut turn).await;
    let steer = turn
        .control
        .steer(vec![InputPart::InputText {
            text: "faster".into(),
        }])
        .await;
    assert!(
        matches!(
            &steer,
            Err(AdapterError::Rejected { code, message })
                if code == "unsupported_steering" && message == "This agent has no steering extension."
        ),
        "{steer:?}"
    );
    cancel_abandons(&mut turn, &call_id).await;

    weather_turn_acp(executor.as_ref(), 2, "And in Lyon?").await;
}
