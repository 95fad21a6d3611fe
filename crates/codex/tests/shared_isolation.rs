//! Two Sessions on one shared app-server cannot see each other: each Turn sees only its own
//! calls and answer, and the model journal shows each Session's requests carrying only its own
//! instructions, tools and history, never the other's, while both Turns wait on calls at once
//! on the same process.

use crate::support;

use support::*;
use switchboard_protocol::AdapterEvent;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_sharing_a_process_see_only_their_own_thread() {
    let Some(pair) = SharingPair::start(
        "sessions_sharing_a_process_see_only_their_own_thread",
        r#"{"city":"Oslo"}"#,
    )
    .await
    else {
        return;
    };
    assert_ne!(
        pair.alpha.native_session_id(),
        pair.beta.native_session_id()
    );

    // Both Turns wait on a call at the same time, on the same process.
    let (mut turn_a, call_a) = pending_call(pair.alpha.as_ref(), 1, "alpha asks about Oslo").await;
    let (mut turn_b, call_b) = pending_call(pair.beta.as_ref(), 1, "beta asks about Oslo").await;
    assert_ne!(call_a, call_b);
    // Beta's result first, then alpha's: each reaches only its own Turn.
    let refused = turn_a
        .control
        .submit_function_result(&call_b, text_result("stolen"))
        .await;
    assert!(
        matches!(refused, switchboard_protocol::Receipt::Refused { .. }),
        "{refused:?}"
    );
    confirm_once(&turn_b, &call_b, text_result("weather-for-beta")).await;
    let events_b = until_terminal(&mut turn_b).await;
    confirm_once(&turn_a, &call_a, text_result("weather-for-alpha")).await;
    let events_a = until_terminal(&mut turn_a).await;
    assert_eq!(
        final_answer(&events_a).as_deref(),
        Some("FINAL: weather-for-alpha")
    );
    assert_eq!(
        final_answer(&events_b).as_deref(),
        Some("FINAL: weather-for-beta")
    );
    for (events, other_call) in [(&events_a, &call_b), (&events_b, &call_a)] {
        assert!(
            !events.iter().any(|e| matches!(e,
                AdapterEvent::FunctionCall { call_id, .. }
                | AdapterEvent::FunctionResultApplied { call_id }
                | AdapterEvent::CallAbandoned { call_id } if call_id == other_call)),
            "{events:?}"
        );
    }
    // A second Turn of alpha carries alpha's history only.
    weather_turn(pair.alpha.as_ref(), 2, "alpha asks again").await;
    assert_eq!(pair.host.process_ids().len(), 1);

    let journal = pair.model.journal();
    let (of_a, of_b) = (
        requests_of(&journal, "alpha"),
        requests_of(&journal, "beta"),
    );
    assert_eq!(of_a.len(), 4, "two model calls per alpha Turn");
    assert_eq!(of_b.len(), 2);
    assert_eq!(
        of_a.len() + of_b.len(),
        model_requests(&journal).len(),
        "every request is one Session's"
    );
    for (mine, name, other) in [(&of_a, "alpha", "beta"), (&of_b, "beta", "alpha")] {
        for request in mine.iter() {
            let tools = tool_names(request);
            assert!(tools.contains(&format!("only_{name}")), "{tools:?}");
            assert!(!tools.contains(&format!("only_{other}")), "{tools:?}");
            let text = request.to_string();
            for foreign in [
                format!("INSTRUCTIONS-OF-{other}"),
                format!("{other} asks"),
                format!("weather-for-{other}"),
            ] {
                assert!(
                    !text.contains(&foreign),
                    "{name}'s request shows {foreign}: {text}"
                );
            }
        }
    }
    let last_a = of_a.last().unwrap().to_string();
    assert!(
        last_a.contains("alpha asks about Oslo") && last_a.contains("weather-for-alpha"),
        "{last_a}"
    );
}
