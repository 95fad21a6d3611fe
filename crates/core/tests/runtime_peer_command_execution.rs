//! `command_execution` frames from a scripted Runtime peer become public `command_execution`
//! Items (agents-api-wire §7): `item.added` in_progress when the command starts, its output as
//! one `agent.output.command_execution_output.delta`, `item.done` with command, cwd, output,
//! exit_code, duration_ms and status; a command still running when the Turn settles is stored
//! `incomplete`.

use crate::support;

use futures::StreamExt;
use serde_json::{Value, json};
use support::{KEY, Peer};
use switchboard_protocol::messages::{CommandExecution, CommandStatus, TurnOutcome};

fn command(id: &str, status: CommandStatus, finished: bool) -> CommandExecution {
    CommandExecution {
        item_id: id.into(),
        command: format!("echo {id} > {id}.txt"),
        status,
        exit_code: finished.then_some(0),
        output: finished.then(|| format!("{id} out\n")),
        cwd: Some("/workspace".into()),
        duration_ms: finished.then_some(7),
    }
}

#[tokio::test]
async fn command_frames_become_command_execution_items_with_their_events() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    let stream = reqwest::Client::new()
        .get(format!("{}/agents/sessions/{id}/events", peer.base))
        .header("authorization", format!("Bearer {KEY}"))
        .header("openai-beta", "agents=v1")
        .send()
        .await
        .unwrap();
    let reader = tokio::spawn(async move {
        let mut body = stream.bytes_stream();
        let mut text = String::new();
        let mut events: Vec<Value> = Vec::new();
        while let Some(chunk) = body.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
            while let Some(end) = text.find("\n\n") {
                let block: String = text.drain(..end + 2).collect();
                if let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) {
                    let event: Value = serde_json::from_str(data).unwrap();
                    let last = event["type"] == "agent.session.turn.completed";
                    events.push(event);
                    if last {
                        return events;
                    }
                }
            }
        }
        events
    });
    for frame in [
        command("ran", CommandStatus::InProgress, false),
        command("ran", CommandStatus::Completed, true),
        command("open", CommandStatus::InProgress, false),
    ] {
        peer.send(&run, frame.into()).await;
    }
    peer.done(&run, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
    let events = tokio::time::timeout(std::time::Duration::from_secs(30), reader)
        .await
        .unwrap()
        .unwrap();

    let item = |name: &str, status: &str, finished: bool| {
        json!({"type": "command_execution", "turn_id": turn,
               "command": format!("echo {name} > {name}.txt"), "cwd": "/workspace",
               "output": finished.then(|| format!("{name} out\n")),
               "exit_code": finished.then_some(0), "duration_ms": finished.then_some(7),
               "status": status})
    };
    let without_id = |i: &Value| {
        let mut i = i.clone();
        assert!(i["id"].as_str().unwrap().starts_with("item_"), "{i}");
        i.as_object_mut().unwrap().remove("id");
        i
    };
    let command_events: Vec<(String, Value)> = events
        .iter()
        .filter(|e| {
            e["item"]["type"] == "command_execution"
                || e["type"] == "agent.output.command_execution_output.delta"
        })
        .map(|e| (e["type"].as_str().unwrap().to_owned(), e.clone()))
        .collect();
    let kinds: Vec<&str> = command_events.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "agent.session.turn.item.added",
            "agent.output.command_execution_output.delta",
            "agent.session.turn.item.done",
            "agent.session.turn.item.added",
            "agent.session.turn.item.done",
        ]
    );
    let ran_id = command_events[0].1["item"]["id"].clone();
    assert_eq!(
        without_id(&command_events[0].1["item"]),
        item("ran", "in_progress", false)
    );
    let delta = &command_events[1].1;
    assert_eq!(delta["item_id"], ran_id);
    assert_eq!(delta["delta"], "ran out\n");
    assert_eq!(delta["output_index"], command_events[0].1["output_index"]);
    assert_eq!(
        without_id(&command_events[2].1["item"]),
        item("ran", "completed", true)
    );
    assert_eq!(
        without_id(&command_events[4].1["item"]),
        item("open", "incomplete", false)
    );

    let (status, items) = peer
        .request(
            "GET",
            &format!("/agents/sessions/{id}/turns/{turn}/items?order=asc"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{items}");
    let stored: Vec<Value> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "command_execution")
        .map(without_id)
        .collect();
    assert_eq!(
        stored,
        vec![
            item("ran", "completed", true),
            item("open", "incomplete", false)
        ]
    );
}
