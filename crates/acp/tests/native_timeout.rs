//! Abandonment by the agent's own MCP tool timeout, on the `minimax_code` profile through the
//! stand-in for `mcode` (it declares `functions` in codex's config with `tool_timeout_sec`, as
//! MiniMax Code's MCP client would time the call out): the agent records the call failed, the
//! call is abandoned, a result is refused as `call_abandoned`, and the Turn goes on to its end.

use crate::support;

use std::time::Duration;

use support::*;
use switchboard_acp::{AcpAdapter, CODEX_ACP, MINIMAX_CODE};
use switchboard_mock_model::MockModel;
use switchboard_protocol::adapter::CALL_ABANDONED;
use switchboard_protocol::{AdapterEvent, Receipt, SessionExecutor};

/// What must outlive the Turns: the mock model and the launcher's folder.
type Kept = (MockModel, tempfile::TempDir);

/// A `minimax_code` Session on the stand-in whose `functions` calls time out after 1 s.
async fn timing_out(
    test: &str,
    hold: Option<&std::path::Path>,
) -> Option<(Kept, tempfile::TempDir, Box<dyn SessionExecutor>)> {
    let codex_acp = agent_binary(test, &CODEX_ACP)?;
    let bin = tempfile::tempdir().unwrap();
    let timeout = std::path::PathBuf::from("1");
    let mut options = vec![("tool-timeout", timeout.as_path())];
    options.extend(hold.map(|dir| ("hold", dir)));
    let mcode = standin_mcode_with(bin.path(), &codex_acp, &options);
    let adapter =
        AcpAdapter::new(MINIMAX_CODE, Some(mcode)).with_turn_deadline(Duration::from_secs(45));
    let model = mock_model(None).await;
    let config = configuration(&model.base_url(), vec![get_weather()]);
    let (state, executor) = prepare_fresh(&adapter, config, "acp").await;
    Some(((model, bin), state, executor))
}

fn refused_abandoned(receipt: &Receipt) -> bool {
    matches!(receipt, Receipt::Refused { code, .. } if code == CALL_ABANDONED)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_tool_timeout_abandons_the_pending_call() {
    let test = "the_agents_tool_timeout_abandons_the_pending_call";
    let Some((_kept, _state, executor)) = timing_out(test, None).await else {
        return;
    };
    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Paris?").await;
    let (call_id, _, _) = first_call(&mut turn).await;
    let mut events = Vec::new();
    while !events
        .iter()
        .any(|e| matches!(e, AdapterEvent::CallAbandoned { .. }))
    {
        events.push(next_event(&mut turn).await);
    }
    assert_abandoned(&events, &call_id);
    let late = turn
        .control
        .submit_function_result(&call_id, text_result("sunny"))
        .await;
    assert!(refused_abandoned(&late), "{late:?}");
    // The agent hands the model the timeout and the Turn goes on to its end.
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AdapterEvent::FunctionResultApplied { .. })),
        "{events:?}"
    );

    weather_turn_acp(executor.as_ref(), 2, "And in Lyon?").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_answered_after_the_timeout_is_abandoned_without_a_receipt() {
    let test = "a_result_answered_after_the_timeout_is_abandoned_without_a_receipt";
    let hold = tempfile::tempdir().unwrap();
    let Some((_kept, _state, executor)) = timing_out(test, Some(hold.path())).await else {
        return;
    };
    let mut turn = start_user_turn(executor.as_ref(), 1, "Weather in Paris?").await;
    let (call_id, _, _) = first_call(&mut turn).await;
    // The agent has timed the call out; the stand-in holds its record of that.
    until_exists(&hold.path().join("held")).await;
    let control = turn.control.clone();
    let id = call_id.clone();
    let receipt = tokio::spawn(async move {
        control
            .submit_function_result(&id, text_result("sunny"))
            .await
    });
    // Whether the driver takes the result or the agent's failed record first, the call ends
    // abandoned and the result refused (the SDK suite checks the public side of both).
    std::fs::write(hold.path().join("release"), "").unwrap();
    let receipt = receipt.await.unwrap();
    assert!(refused_abandoned(&receipt), "{receipt:?}");
    let events = until_terminal(&mut turn).await;
    assert_abandoned(&events, &call_id);
    assert_completed(&events);
}
