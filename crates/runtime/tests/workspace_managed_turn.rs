//! A real codex Turn in a managed workspace, through the Runtime's frames: the model makes the
//! harness run a native command that writes a file; it runs inside the bubblewrap sandbox with
//! the network disabled (the provider reached through the relay), in `/workspace`, next to the
//! Environment's `files`; the file is listed by `workspace_list`, and `workspace_remove` after
//! the release deletes it all.

use crate::support;

use std::time::Duration;

use support::workspace::*;
use support::{codex_binary, configuration, local_runtime, prepare, scratch, send, until_done};
use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario, When};
use switchboard_protocol::messages::{
    CommandStatus, ExecutionRelease, ExecutionStart, PreparationState, TurnOutcome,
};
use switchboard_protocol::workspace::{
    NetworkAccess, WorkspaceEntry, WorkspaceList, WorkspacePlacement, WorkspaceRemove,
};
use switchboard_protocol::{InputPart, RuntimeToCore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_codex_command_writes_the_managed_workspace_without_network() {
    let test = "a_codex_command_writes_the_managed_workspace_without_network";
    let (Some(_), Some(binary)) = (bwrap(test), codex_binary(test)) else {
        return;
    };
    let scenario = Scenario::new(vec![
        Rule::new(
            When {
                tool_output_present: Some(false),
                ..When::default()
            },
            Reply::shell("cat seed.txt > made.txt && pwd >> made.txt"),
        ),
        Rule::from(Reply::text("DONE")),
    ]);
    let model = MockModel::start(MockConfig::loopback().with_scenario(scenario))
        .await
        .unwrap();
    let data = scratch("ws-turn-");
    let mut runtime = local_runtime(binary, data.path(), Duration::from_secs(300));
    let mut workspace = managed("env_turn", NetworkAccess::Disabled);
    workspace.files = vec![file("/workspace/seed.txt", "seeded\n")];
    let mut config = configuration(&model.base_url(), vec![]);
    config.workspace = Some(workspace);
    prepare(&mut runtime, "sess_turn", config).await;

    let start = ExecutionStart {
        session_id: "sess_turn".into(),
        run_id: "run_1".into(),
        turn_id: "turn_1".into(),
        traceparent: None,
        input: vec![InputPart::InputText {
            text: "Make the file".into(),
        }],
    };
    send(&runtime, "run_1", start).await;
    let frames = until_done(&mut runtime, "run_1").await;
    let Some(RuntimeToCore::Done(done)) = frames.last() else {
        panic!("{frames:?}")
    };
    assert_eq!(done.outcome, TurnOutcome::Completed, "{frames:?}");
    let finished = frames.iter().find_map(|f| match f {
        RuntimeToCore::CommandExecution(c) if c.status == CommandStatus::Completed => Some(c),
        _ => None,
    });
    let finished = finished.unwrap_or_else(|| panic!("no completed command: {frames:?}"));
    assert_eq!(finished.exit_code, Some(0), "{finished:?}");

    let dir = managed_dir(data.path(), "env_turn");
    assert_eq!(
        std::fs::read_to_string(dir.join("made.txt")).unwrap(),
        "seeded\n/workspace\n"
    );
    let listed = request(
        &mut runtime,
        "wsreq_l",
        WorkspaceList {
            environment_id: "env_turn".into(),
            placement: WorkspacePlacement::Managed,
            path: None,
        },
    )
    .await;
    assert!(
        listed.files.contains(&WorkspaceEntry {
            path: "/workspace/made.txt".into(),
            size_bytes: 18,
        }),
        "{listed:?}"
    );

    send(
        &runtime,
        "sess_turn",
        ExecutionRelease {
            session_id: "sess_turn".into(),
        },
    )
    .await;
    let released = preparation(&mut runtime, "sess_turn").await;
    assert_eq!(released.last().unwrap().state, PreparationState::Released);
    let removed = request(
        &mut runtime,
        "wsreq_rm",
        WorkspaceRemove {
            environment_id: "env_turn".into(),
        },
    )
    .await;
    assert_eq!(removed.error_code, None);
    assert!(!data.path().join("environments/env_turn").exists());
    runtime.shutdown().await;
    model.shutdown().await;
}
