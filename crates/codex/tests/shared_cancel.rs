//! A cancel on a shared app-server touches only its Session: while both Sessions' Turns wait on
//! a call, cancelling one ends it cancelled with its call abandoned, and the other Turn takes
//! its result and completes; the cancelled Session then runs its next Turn normally.

use crate::support;

use support::*;
use switchboard_protocol::AdapterEvent;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_touches_only_its_session() {
    let Some(pair) =
        SharingPair::start("a_cancel_touches_only_its_session", r#"{"city":"Rome"}"#).await
    else {
        return;
    };
    let (mut turn_a, call_a) = pending_call(pair.alpha.as_ref(), 1, "alpha asks about Rome").await;
    let (mut turn_b, call_b) = pending_call(pair.beta.as_ref(), 1, "beta asks about Rome").await;
    cancel_abandons(&mut turn_a, &call_a).await;

    confirm_once(&turn_b, &call_b, text_result("weather-for-beta")).await;
    let events_b = until_terminal(&mut turn_b).await;
    assert_completed(&events_b);
    assert_eq!(
        final_answer(&events_b).as_deref(),
        Some("FINAL: weather-for-beta")
    );
    assert!(
        !events_b.iter().any(|e| matches!(
            e,
            AdapterEvent::CallAbandoned { .. } | AdapterEvent::Cancelled { .. }
        )),
        "{events_b:?}"
    );
    weather_turn(pair.alpha.as_ref(), 2, "alpha asks again").await;
    assert_eq!(pair.host.process_ids().len(), 1);
}
