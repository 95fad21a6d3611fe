//! The real codex runs a Turn in a managed workspace: started through adapter-kit's spawn with
//! the placement the Runtime builds (the wrapper first, the sandbox's env in the environment),
//! inside bubblewrap with the network disabled, it reaches the scripted model only through the
//! provider relay, works in `/workspace`, and answers.

use crate::support;

use std::time::Duration;

use support::fake_responses::{FakeResponses, Script};
use support::workspace::*;
use support::{WAIT, codex_binary, scratch};
use switchboard_adapter_kit::cpu::Cpus;
use switchboard_adapter_kit::process::{self, Spawned};
use switchboard_adapter_kit::state_dir::StateDir;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::workspace::NetworkAccess;
use switchboard_runtime::{Locator, Registry};
use tokio::io::AsyncReadExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_answers_from_inside_a_network_disabled_workspace() {
    let test = "codex_answers_from_inside_a_network_disabled_workspace";
    let (Some(bwrap), Some(binary)) = (bwrap(test), codex_binary(test)) else {
        return;
    };
    let model = FakeResponses::start(Script::Text("Hello from the sandbox".into())).await;
    let data = scratch("ws-codex-");
    let registry = Registry::standard(
        Locator::new(data.path()).with_explicit(HarnessId::Codex, binary.clone()),
    );
    let install_dir = registry.install_dir(HarnessId::Codex).unwrap();
    assert!(binary.starts_with(&install_dir));
    let workspaces = workspaces(data.path(), bwrap);

    let mut workspace = managed("env_codex", NetworkAccess::Disabled);
    workspace
        .env
        .insert("OPENAI_API_KEY_SB".into(), "sk-test-key".into());
    let base_url = format!("{}/v1", model.base_url());
    let state_dir = data.path().join("sessions/sess_codex");
    let placed = workspaces
        .place(
            "sess_codex",
            &workspace,
            &base_url,
            &state_dir,
            std::slice::from_ref(&install_dir),
        )
        .await
        .unwrap();
    let state = StateDir::new(state_dir.clone(), "codex");
    state.create_dirs(&[state.join("codex-home")]).unwrap();

    let Spawned {
        mut child,
        stdin,
        mut stdout,
    } = process::spawn(
        &binary,
        &state,
        Some(&placed.placement),
        Cpus::Any,
        |command| {
            command
                .arg("exec")
                .arg("--skip-git-repo-check")
                .args(["-c", "model_provider=sb"])
                .args(["-c", "model_providers.sb.name=sb"])
                .arg("-c")
                .arg(format!("model_providers.sb.base_url={base_url}"))
                .args(["-c", "model_providers.sb.wire_api=responses"])
                .args(["-c", "model_providers.sb.env_key=OPENAI_API_KEY_SB"])
                .args(["-c", "model=gpt-fake"])
                .arg("Say hello")
                .env("HOME", state.root())
                .env("CODEX_HOME", state.join("codex-home"));
        },
    )
    .unwrap();
    // `codex exec` reads stdin to its end when it is not a terminal.
    drop(stdin);
    let mut out = String::new();
    tokio::time::timeout(WAIT, stdout.read_to_string(&mut out))
        .await
        .unwrap()
        .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .unwrap()
        .unwrap();
    let stderr = std::fs::read_to_string(state.stderr_log()).unwrap_or_default();
    assert!(status.success(), "codex failed: {out}\n{stderr}");
    assert!(out.contains("Hello from the sandbox"), "{out}\n{stderr}");

    // The model saw codex working in /workspace, with the key from the sandbox's env.
    let journal = model.journal();
    assert!(!journal.is_empty());
    let request = serde_json::to_string(&journal[0]).unwrap();
    assert!(request.contains("<cwd>/workspace</cwd>"), "{request}");
    assert!(request.contains("sk-test-key"), "{request}");
}
