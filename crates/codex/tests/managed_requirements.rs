//! `programmatic_tool_calling.enabled: false` checks codex's managed requirements before the
//! thread starts or resumes: a managed file that forces code mode on refuses the Session with an
//! error naming the file and key, and starts no codex; without it the Turn runs with code mode
//! off. The managed directory is the adapter's (codex's own is `/etc/codex`), so the files are
//! planted in a temporary one.

use crate::support;

use std::path::Path;
use std::time::Duration;

use support::*;
use switchboard_codex::{Codex, CodexAdapter};
use switchboard_protocol::{
    Adapter, AdapterError, ExecutionControls, PrepareRequest, ProgrammaticToolCallingControl,
    SessionExecutor,
};

const FORCING: &str = "[features]\ncode_mode = true\n";

fn adapter(binary: std::path::PathBuf, managed: &Path) -> CodexAdapter {
    CodexAdapter::with_harness(binary, Codex::with_managed_dir(managed.to_owned()))
        .with_turn_deadline(Duration::from_secs(45))
}

fn controls(enabled: bool) -> ExecutionControls {
    ExecutionControls {
        programmatic_tool_calling: Some(ProgrammaticToolCallingControl { enabled }),
        ..Default::default()
    }
}

async fn try_prepare(
    adapter: &CodexAdapter,
    controls: ExecutionControls,
    base_url: &str,
    state: &Path,
) -> Result<Box<dyn SessionExecutor>, AdapterError> {
    let request = PrepareRequest {
        session_id: "sess_test".into(),
        configuration: configuration(base_url, vec![], controls),
        state_dir: state.to_owned(),
        placement: None,
    };
    tokio::time::timeout(Duration::from_secs(60), adapter.prepare(request))
        .await
        .expect("prepare timed out")
}

fn assert_refused(result: Result<impl Sized, AdapterError>, managed: &Path) {
    let Err(AdapterError::InvalidConfiguration(message)) = result else {
        panic!("the Session must be refused")
    };
    let file = managed.join("requirements.toml");
    assert_eq!(
        message,
        format!(
            "codex managed requirements force code mode on ({}: features.code_mode = true), \
             but this Session sets programmatic_tool_calling.enabled to false",
            file.display()
        )
    );
}

fn offers_code_mode(model: &switchboard_mock_model::MockModel) -> bool {
    model_requests(&model.journal())
        .iter()
        .flat_map(|r| r["tools"].as_array().cloned().unwrap_or_default())
        .any(|t| t["name"] == "exec" && t["type"] == "custom")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_code_mode_refuses_the_start_and_without_it_the_turn_runs() {
    let Some(binary) =
        codex_binary("forced_code_mode_refuses_the_start_and_without_it_the_turn_runs")
    else {
        return;
    };
    let model = mock_model(None).await;
    let managed = tempfile::tempdir().unwrap();
    let adapter = adapter(binary, managed.path());

    // Planted: the start is refused before codex runs (no codex home, no model request).
    std::fs::write(managed.path().join("requirements.toml"), FORCING).unwrap();
    let refused = tempfile::tempdir().unwrap();
    let result = try_prepare(&adapter, controls(false), &model.base_url(), refused.path()).await;
    assert_refused(result, managed.path());
    assert!(
        std::fs::read_dir(refused.path()).unwrap().next().is_none(),
        "nothing of codex was started"
    );
    assert!(model.journal().is_empty());

    // A Session that keeps code mode on is not affected by the same file.
    let on = tempfile::tempdir().unwrap();
    let executor = try_prepare(&adapter, controls(true), &model.base_url(), on.path())
        .await
        .expect("code mode on runs under the requirement");
    drop(executor);

    // Without the file, the Session starts and its Turn runs with code mode off.
    std::fs::remove_file(managed.path().join("requirements.toml")).unwrap();
    let state = tempfile::tempdir().unwrap();
    let executor = try_prepare(&adapter, controls(false), &model.base_url(), state.path())
        .await
        .expect("prepare without managed requirements");
    let mut turn = start_user_turn(executor.as_ref(), 1, "hi").await;
    assert_completed(&until_terminal(&mut turn).await);
    assert!(!offers_code_mode(&model));

    // Planted again later: the resume after eviction is refused the same way.
    executor.evict().await.unwrap();
    std::fs::write(managed.path().join("requirements.toml"), FORCING).unwrap();
    assert_refused(
        executor.start_turn(user_turn(2, "again")).await.map(|_| ()),
        managed.path(),
    );
    assert!(!executor.is_resident());
    drop(executor);
    model.shutdown().await;
}
