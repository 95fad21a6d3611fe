//! A reader that stops reading is cut off with `error{code: stream_interrupted}` and never slows
//! the Session or another reader down (core-contracts §8).

use crate::support;

use futures::StreamExt;
use serde_json::Value;
use support::{KEY, Peer};
use switchboard_protocol::messages::{
    Delta, MessagePhase, MessageStatus, OutputMessage, TurnOutcome,
};

/// Reads a whole SSE body and returns its `data:` payloads.
async fn read_all(resp: reqwest::Response) -> Vec<Value> {
    let mut text = String::new();
    let mut body = resp.bytes_stream();
    while let Some(chunk) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    text.split("\n\n")
        .filter_map(|block| block.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

#[tokio::test]
async fn a_stalled_reader_is_interrupted_and_a_live_reader_sees_everything() {
    let mut peer = Peer::start().await;
    let (id, run, _turn) = peer.started_turn().await;
    let open = |id: String| {
        reqwest::Client::new()
            .get(format!("{}/agents/sessions/{id}/events", peer.base))
            .header("authorization", format!("Bearer {KEY}"))
            .header("openai-beta", "agents=v1")
            .send()
    };
    let stalled = open(id.clone()).await.unwrap();
    let live = open(id.clone()).await.unwrap();
    // The live reader reports how many deltas it has seen; the producer never gets more than
    // a batch ahead of it, so it keeps up by construction.
    let (seen_tx, mut seen) = tokio::sync::watch::channel(0usize);
    let live_reader = tokio::spawn(async move {
        let mut body = live.bytes_stream();
        let mut text = String::new();
        let mut deltas = 0;
        while let Some(chunk) = body.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
            while let Some(end) = text.find("\n\n") {
                let block: String = text.drain(..end + 2).collect();
                if block.contains("output_text.delta") {
                    deltas += 1;
                    let _ = seen_tx.send(deltas);
                }
                if block.contains("agent.session.turn.completed") {
                    return deltas;
                }
            }
        }
        deltas
    });

    // Far more event bytes than socket buffers and the 256-event buffer hold.
    const DELTAS: usize = 24_000;
    const BATCH: usize = 100;
    let open_msg = OutputMessage {
        id: "m1".into(),
        status: MessageStatus::InProgress,
        phase: None,
        text: String::new(),
    };
    peer.send(&run, open_msg.into()).await;
    let chunk = "x".repeat(1024);
    for sent in (BATCH..=DELTAS).step_by(BATCH) {
        for _ in 0..BATCH {
            let d = Delta {
                item_id: "m1".into(),
                delta: chunk.clone(),
            };
            peer.send(&run, d.into()).await;
        }
        seen.wait_for(|n| *n >= sent).await.unwrap();
    }
    let done_msg = OutputMessage {
        id: "m1".into(),
        status: MessageStatus::Completed,
        phase: Some(MessagePhase::FinalAnswer),
        text: chunk.repeat(DELTAS),
    };
    peer.send(&run, done_msg.into()).await;
    peer.done(&run, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;

    assert_eq!(live_reader.await.unwrap(), DELTAS);
    let events = read_all(stalled).await;
    let last = events.last().expect("some events");
    assert_eq!(last["type"], "error");
    assert_eq!(last["error"]["code"], "stream_interrupted");
    assert_eq!(last["error"]["type"], "server_error");
    assert!(
        events.len() < DELTAS,
        "the stalled reader was cut off early"
    );
}
