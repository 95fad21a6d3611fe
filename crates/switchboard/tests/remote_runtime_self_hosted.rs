//! The self-hosted placement end to end, Core and `switchboard runtime --enroll` as two
//! processes with separate data dirs, on each harness:
//! - a `self_hosted` Session created with input while no Runtime is enrolled shows the
//!   `environment_connection` required action, and its create response carries the enrollment
//!   command once;
//! - running that exact command enrolls a Runtime, which clears the action and runs the Turn:
//!   the mock model has the harness run a native shell command that writes a file, and the file
//!   is in `workspace_directory` afterwards;
//! - the Runtime killed mid-Turn fails that Turn; the next input waits for the Environment
//!   again (its request held until the Environment connects); the Runtime restarted with its
//!   saved credential (no token) runs the next Turn, and the lost Turn's model request was
//!   never sent again;
//! - deleting the Session removes its state directory on the Runtime and leaves the workspace
//!   directory (the user's) as it was.
//!
//! The two processes share the host's network namespace: the harness on the Runtime's side
//! calls the model provider Core hands it, the mock model on Core's loopback, so separate
//! namespaces would need a routed veth pair and a mock listening on it, with no gain for what
//! this proves (Core and the Runtime only meet over the WebSocket either way).

use crate::support;

use serde_json::{Value, json};
use support::{Core, Mock, Process, awaits_connection, harness_installed, poll, scratch};
use switchboard_runtime::HarnessInstall;

struct Harness {
    install: &'static HarnessInstall,
    model: &'static str,
    /// The Session's `x_agents_core` selecting the harness (codex is the default).
    select: Option<Value>,
    /// A tool only this harness offers in a workspace, to keep the scripted shell command from
    /// answering another request.
    shell_tool: Option<&'static str>,
}

fn scenario(harness: &Harness) -> Value {
    let mut write =
        json!({"name": "write", "reply": {"shell": "echo made > made.txt"}, "times": 1});
    if let Some(tool) = harness.shell_tool {
        write["when"] = json!({"tool_offered": tool});
    }
    json!({"rules": [
        {"name": "wrote", "when": {"tool_output_present": true}, "reply": {"text": "Wrote made.txt."}},
        {"name": "hang", "when": {"last_text_contains": "HANG"}, "reply": {"delay_ms": 120000}},
        {"name": "again", "when": {"last_text_contains": "AGAIN"}, "reply": {"text": "Here again."}},
        write,
    ]})
}

/// `switchboard runtime` from the words of the enroll command, its state in `data_dir`.
fn run_command(words: &[String], data_dir: &std::path::Path) -> Process {
    let data_dir = data_dir.display().to_string();
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    args.extend(["--data-dir", &data_dir]);
    Process::spawn(&args, false)
}

async fn self_hosted_end_to_end(test: &str, harness: Harness) {
    if !harness_installed(test, harness.install) {
        return;
    }
    let dir = scratch("self-hosted-");
    let mock = Mock::start(dir.path(), Some(scenario(&harness))).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace_directory = workspace.display().to_string();

    let mut body = json!({
        "environment": {"type": "self_hosted", "workspace_directory": workspace_directory},
        "agent": {"model": harness.model},
        "input": "Please write made.txt.",
    });
    if let Some(select) = &harness.select {
        body["x_agents_core"] = select.clone();
    }
    let (status, session) = core.api("POST", "/agents/sessions", Some(body)).await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let environment = &session["environment"];
    assert_eq!(environment["type"], "self_hosted", "{session}");
    assert_eq!(
        environment["workspace_directory"],
        workspace_directory.as_str()
    );
    let environment_id = environment["id"].as_str().unwrap().to_owned();
    assert!(environment_id.starts_with("env_"), "{session}");
    let enrollment = &session["x_agents_core"]["enrollment"];
    let token = enrollment["token"]
        .as_str()
        .expect("the enrollment token")
        .to_owned();
    let command = enrollment["command"]
        .as_str()
        .expect("the enrollment command");
    let words: Vec<String> = command.split(' ').map(str::to_owned).collect();
    assert_eq!(words.len(), 6, "{command}");
    assert_eq!(
        &words[..3],
        ["switchboard", "runtime", "--core"],
        "{command}"
    );
    assert_eq!(&words[4..], ["--enroll", token.as_str()], "{command}");
    // Shown once: reads do not carry it.
    let read = core.get(&format!("/agents/sessions/{id}")).await;
    assert!(!read.to_string().contains(&token), "{read}");

    // Offline with pending input: the Session asks for its Environment.
    core.wait_for(&id, "the environment_connection action", |s| {
        awaits_connection(s, &environment_id)
    })
    .await;

    let runtime_dir = dir.path().join("runtime");
    let mut runtime = run_command(&words, &runtime_dir);
    let enrolled = runtime.line().await;
    assert!(
        enrolled.starts_with(&format!("Enrolled for Environment {environment_id};")),
        "{enrolled}"
    );
    runtime.line().await; // connected
    core.wait_session(&id, "idle").await;
    let session = core.get(&format!("/agents/sessions/{id}")).await;
    assert!(!awaits_connection(&session, &environment_id), "{session}");
    let turns = core.turns(&id).await;
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0]["status"], "completed", "{:?}", turns[0]);
    assert_eq!(
        std::fs::read_to_string(workspace.join("made.txt")).expect("the file the command wrote"),
        "made\n"
    );

    // The Runtime dies mid-Turn: that Turn fails.
    let (status, body) = core.send_input(&id, "HANG until the Runtime is gone").await;
    assert_eq!(status, 202, "{body}");
    poll("the model request of the hanging Turn", || async {
        mock.entries()
            .iter()
            .any(|e| e["matched"]["name"] == "hang")
            .then_some(())
    })
    .await;
    runtime.child.kill().await.expect("killing the Runtime");
    let turns = core.wait_turns(&id, 2, "failed").await;
    assert_eq!(turns[0]["status"], "completed");

    // The next input waits for the Environment (the request is held until it connects), then
    // runs on the restarted Runtime, which connects with its saved credential alone.
    let data_dir = runtime_dir.display().to_string();
    let ((status, body), _restarted) = tokio::join!(core.send_input(&id, "AGAIN, please"), async {
        core.wait_for(&id, "the environment_connection action again", |s| {
            awaits_connection(s, &environment_id)
        })
        .await;
        let mut restarted = Process::spawn(
            &["runtime", "--core", &words[3], "--data-dir", &data_dir],
            false,
        );
        restarted.line().await; // connected
        restarted
    });
    assert_eq!(status, 202, "{body}");
    let turns = core.wait_turns(&id, 3, "completed").await;
    assert_eq!(turns[1]["status"], "failed", "{turns:?}");
    let hung = mock
        .entries()
        .iter()
        .filter(|e| e["matched"]["name"] == "hang")
        .count();
    assert_eq!(hung, 1, "the lost Turn's model request was sent again");
    let items = core.items(&id).await;
    assert!(
        items.iter().any(|i| i.to_string().contains("Here again.")),
        "no answer to the next Turn in {items:?}"
    );

    // Deleting the Session removes its harness state on the enrolled Runtime; the workspace
    // directory is the user's and stays as the Turns left it.
    assert!(runtime_dir.join("sessions").join(&id).is_dir());
    let (status, body) = core
        .api("DELETE", &format!("/agents/sessions/{id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        !runtime_dir.join("sessions").join(&id).exists(),
        "the Session's state is still on the Runtime"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.join("made.txt")).expect("the workspace stays"),
        "made\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_runs_a_self_hosted_session_on_an_enrolled_runtime() {
    self_hosted_end_to_end(
        "codex_runs_a_self_hosted_session_on_an_enrolled_runtime",
        Harness {
            install: &switchboard_runtime::install::CODEX,
            model: "gpt-test",
            select: None,
            shell_tool: None,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_runs_a_self_hosted_session_on_an_enrolled_runtime() {
    self_hosted_end_to_end(
        "claude_code_runs_a_self_hosted_session_on_an_enrolled_runtime",
        Harness {
            install: &switchboard_runtime::install::CLAUDE_CODE,
            model: "claude-test",
            select: Some(json!({"harness": "claude_code"})),
            shell_tool: Some("Bash"),
        },
    )
    .await;
}
