//! Steering: a profile with a steering extension sends it (`mcode/session/steer` on the
//! `minimax_code` profile, which the stand-in for `mcode` records, since neither stand-in agent
//! has it). A profile without one refuses it with `unsupported_steering`: `cancel_turn.rs`.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::*;
use switchboard_acp::{AcpAdapter, CODEX_ACP, MINIMAX_CODE};
use switchboard_protocol::InputPart;

fn faster() -> Vec<InputPart> {
    vec![InputPart::InputText {
        text: "Answer faster.".into(),
    }]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_minimax_profile_steers_with_its_extension() {
    let Some(codex_acp) = agent_binary("the_minimax_profile_steers_with_its_extension", &CODEX_ACP)
    else {
        return;
    };
    let bin = tempfile::tempdir().unwrap();
    let record = tempfile::tempdir().unwrap();
    let mcode = standin_mcode_with(bin.path(), &codex_acp, &[("record", record.path())]);
    let adapter =
        AcpAdapter::new(MINIMAX_CODE, Some(mcode)).with_turn_deadline(Duration::from_secs(45));
    let model = mock_model(None).await;
    let config = configuration(&model.base_url(), vec![get_weather()]);
    let (_state, executor) = prepare_fresh(&adapter, config, "acp").await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Paris?").await;
    let (call_id, _, _) = first_call(&mut turn).await;
    turn.control.steer(faster()).await.unwrap();
    let sent = std::fs::read_to_string(record.path().join("steer.jsonl")).unwrap();
    let sent: serde_json::Value = serde_json::from_str(sent.trim()).unwrap();
    assert_eq!(
        sent,
        json!({
            "sessionId": executor.native_session_id().unwrap(),
            "prompt": [{"type": "text", "text": "Answer faster."}],
        })
    );
    // The Turn goes on.
    confirm_once(&turn, &call_id, text_result("sunny")).await;
    assert_completed(&until_terminal(&mut turn).await);
}
