//! A Runtime cannot answer a Turn it does not run: frames for a Run from another link (here a
//! Runtime enrolled for some self-hosted Environment, which learned the Run ID) are ignored; the
//! Turn goes on and settles only from the link it was dispatched to.

use crate::support;

use std::time::Duration;

use support::Peer;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{Done, TurnOutcome};
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use tokio::sync::mpsc;

#[tokio::test]
async fn another_links_frames_for_a_run_are_ignored() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;

    let (to_intruder, _from_core) = mpsc::channel::<Envelope<CoreToRuntime>>(8);
    let (intruder, from_intruder) = mpsc::channel::<Envelope<RuntimeToCore>>(8);
    peer.state.engine.attach(
        "intruder".into(),
        false,
        Some(("env_intruder".into(), peer.project().await)),
        to_intruder,
        from_intruder,
    );
    let done = Done {
        outcome: TurnOutcome::Completed,
        usage: None,
    };
    intruder
        .send(Envelope::new(Some(run.clone()), done.into()))
        .await
        .unwrap();
    // Closing the link is the fence: Core handles a link's frames in order and drops the link
    // only after the last one.
    drop(intruder);
    let links = &peer.state.engine.links;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while links.environment_connected("env_intruder") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the intruder's link was never dropped"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let (_, t) = peer
        .request("GET", &format!("/agents/sessions/{id}/turns/{turn}"), None)
        .await;
    assert_eq!(t["status"], "in_progress", "{t}");
    assert_eq!(peer.session(&id).await["status"], "in_progress");

    // The link running the Turn settles it.
    peer.done(&run, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
}
