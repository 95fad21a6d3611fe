//! Stdio MCP servers on workspace placements: the real `switchboard-mcp-fixture` server (rmcp),
//! its JSONL record, and the Sessions that declare it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use switchboard_protocol::McpStdioServer;
use switchboard_protocol::workspace::{NetworkAccess, Workspace, WorkspacePlacement};

/// The fixture's binary, built by the workspace build next to this test binary
/// (`target/<profile>/`).
pub fn fixture_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/<test> → target/<profile>/switchboard-mcp-fixture
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let binary = profile_dir.join("switchboard-mcp-fixture");
    assert!(
        binary.is_file(),
        "{} is missing: build it with `cargo build -p switchboard-mcp-fixture`",
        binary.display()
    );
    binary
}

/// A stdio server running `command` with `--record <record>`, started in `cwd`.
pub fn stdio_server(
    label: &str,
    command: &str,
    record: &str,
    cwd: &str,
    env_vars: &[&str],
) -> McpStdioServer {
    McpStdioServer {
        server_label: label.into(),
        command: command.into(),
        args: vec!["--record".into(), record.into()],
        cwd: cwd.into(),
        env_vars: env_vars.iter().map(|s| (*s).to_owned()).collect(),
        allowed_tools: None,
        required: true,
    }
}

/// A self-hosted workspace: `directory` on this machine.
pub fn self_hosted(environment_id: &str, directory: &Path) -> Workspace {
    Workspace {
        environment_id: environment_id.into(),
        placement: WorkspacePlacement::SelfHosted,
        directory: directory.canonicalize().unwrap().display().to_string(),
        capability_directories: vec![],
        network: NetworkAccess::Enabled,
        env: BTreeMap::new(),
        files: vec![],
        setup_commands: vec![],
    }
}

/// The fixture's record: one JSON value per line (none when it never started).
pub fn record(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

/// The working directories the fixture started in, in order.
pub fn started_in(record: &[Value]) -> Vec<String> {
    record
        .iter()
        .filter(|r| r["event"] == "start")
        .map(|r| r["cwd"].as_str().unwrap().to_owned())
        .collect()
}

/// The tools the fixture was called with, in order.
pub fn tools_called(record: &[Value]) -> Vec<String> {
    record
        .iter()
        .filter(|r| r["event"] == "tools/call")
        .map(|r| r["tool"].as_str().unwrap().to_owned())
        .collect()
}

/// Sets a variable of this test process (the self-hosted Runtime's own environment) before
/// any other thread exists, then runs `body` on a fresh multi-threaded runtime.
pub fn with_process_env(name: &str, value: &str, body: impl std::future::Future<Output = ()>) {
    // First, in a synchronous test: no thread of this process has started yet.
    super::process_env::set(name, value);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(body);
}

/// A Runtime running `harness` from `binary` that can place managed workspaces (with the
/// sandbox relay of this build).
pub fn managed_runtime(
    harness: switchboard_protocol::configuration::HarnessId,
    binary: PathBuf,
    state: &Path,
) -> switchboard_runtime::LocalRuntime {
    let locator = switchboard_runtime::Locator::new(state).with_explicit(harness, binary);
    let options = super::runtime_options(state);
    switchboard_runtime::LocalRuntime::start(
        std::sync::Arc::new(switchboard_runtime::Registry::standard(locator)),
        options,
    )
}

/// A managed workspace of `environment_id` whose `files` carry the fixture binary to
/// `/workspace/<name>` and whose setup makes it executable: the sandbox sees nothing of the
/// host build, so the server ships with the Environment, as a user's would.
pub fn managed_with_fixture(
    environment_id: &str,
    network: NetworkAccess,
    env: &[(&str, &str)],
) -> Workspace {
    use base64::Engine;
    let bytes = std::fs::read(fixture_binary()).unwrap();
    let mut workspace = super::workspace::managed(environment_id, network);
    workspace.env = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    workspace.files = vec![switchboard_protocol::workspace::WorkspaceFile {
        path: format!("/workspace/{FIXTURE_NAME}"),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    }];
    workspace.setup_commands = vec![super::workspace::setup(&format!("chmod +x {FIXTURE_NAME}"))];
    workspace
}

/// The fixture's file name in a managed workspace.
pub const FIXTURE_NAME: &str = "switchboard-mcp-fixture";

/// The fixture serving streamable HTTP on a loopback port, recording to `record`; it stops
/// when dropped.
pub struct HttpFixture {
    pub url: String,
    _child: tokio::process::Child,
}

impl HttpFixture {
    pub async fn start(record: &Path) -> HttpFixture {
        use tokio::io::AsyncBufReadExt;
        let mut child = tokio::process::Command::new(fixture_binary())
            .args(["--http", "127.0.0.1:0", "--record"])
            .arg(record)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let line = tokio::time::timeout(super::WAIT, lines.next_line())
            .await
            .expect("the fixture listens in time")
            .unwrap()
            .expect("the fixture printed its address");
        let addr = line.strip_prefix("listening ").expect("a listening line");
        HttpFixture {
            url: format!("http://{addr}/mcp"),
            _child: child,
        }
    }
}

/// The headers of each HTTP request the fixture recorded.
pub fn http_headers(record: &[Value]) -> Vec<serde_json::Map<String, Value>> {
    record
        .iter()
        .filter(|r| r["event"] == "http")
        .map(|r| r["headers"].as_object().unwrap().clone())
        .collect()
}

/// The processes whose command line holds `needle`.
pub fn command_lines_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
            let line = String::from_utf8_lossy(&bytes).replace('\0', " ");
            if line.contains(needle) {
                found.push(line);
            }
        }
    }
    found
}
