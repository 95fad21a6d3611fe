//! The built `switchboard` binary as separate processes: `mock-model`, `serve
//! --no-local-runtime` and `runtime` dialing it, plus raw HTTP against Core. Every wait polls an
//! observable condition until a deadline; nothing sleeps for a fixed time.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_runtime::Locator;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdout, Command};

/// Bound on any single wait (a real codex Turn included).
pub const WAIT: Duration = Duration::from_secs(90);
pub const API_KEY: &str = "sk-sb-remote-runtime-test";
pub const TOKEN: &str = "runtime-test-token";

/// Scratch directories live under the target dir, not /tmp (codex refuses helper binaries
/// there); removed on drop.
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/switchboard-test-state");
    std::fs::create_dir_all(&parent).unwrap();
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(parent)
        .unwrap()
}

/// Whether the Runtime will find the pinned codex binary (as `switchboard runtime` resolves it).
/// Outside CI a missing binary skips the test loudly; in CI (`CI` set) it fails the test.
pub fn codex_installed(test: &str) -> bool {
    harness_installed(test, &switchboard_runtime::install::CODEX)
}

/// [`codex_installed`] for any harness.
pub fn harness_installed(test: &str, harness: &switchboard_runtime::HarnessInstall) -> bool {
    let probe = scratch("locate-");
    let located = Locator::from_env(probe.path()).locate(harness);
    if located.exists {
        return true;
    }
    let message = format!(
        "{} binary not found (set {} or run scripts/install-harnesses.sh)",
        harness.name, harness.binary_env
    );
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    if in_ci {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    false
}

/// A child process of the built binary, killed when dropped.
pub struct Process {
    pub child: Child,
    /// Stdout after its first line, kept open so later lines do not hit a closed pipe.
    pub stdout: Option<BufReader<ChildStdout>>,
}

impl Process {
    /// Starts `switchboard ARGS`; stdout is piped, stderr inherited unless `capture_stderr`.
    pub fn spawn(args: &[&str], capture_stderr: bool) -> Process {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        command
            .args(args)
            .env("SWITCHBOARD_API_KEY", API_KEY)
            .env_remove("SWITCHBOARD_RUNTIME_TOKEN")
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("SWITCHBOARD_MODEL_PROVIDER_URL")
            .env_remove("SWITCHBOARD_MODEL_PROVIDER_KEY")
            .env_remove("RUST_BACKTRACE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(if capture_stderr {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .kill_on_drop(true);
        let mut child = command.spawn().expect("spawning the switchboard binary");
        let stdout = child.stdout.take().map(BufReader::new);
        Process { child, stdout }
    }

    /// The next stdout line, bounded.
    pub async fn line(&mut self) -> String {
        let stdout = self.stdout.as_mut().expect("stdout is piped");
        let mut line = String::new();
        let read = tokio::time::timeout(WAIT, stdout.read_line(&mut line))
            .await
            .expect("timed out waiting for a line on stdout")
            .expect("reading stdout");
        assert!(
            read > 0,
            "the process closed stdout without printing a line"
        );
        line.trim_end().to_owned()
    }

    /// Waits for the process to exit (bounded), returning its status and captured stderr.
    pub async fn exit(self) -> (std::process::ExitStatus, String) {
        let output = tokio::time::timeout(WAIT, self.child.wait_with_output())
            .await
            .expect("the process did not exit")
            .expect("waiting for the process");
        (
            output.status,
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

/// The mock model provider with an optional scenario, journaling to `<dir>/journal.jsonl`.
pub struct Mock {
    #[allow(dead_code)] // held: dropping it stops the provider
    pub process: Process,
    /// `http://127.0.0.1:PORT` (no `/v1`).
    pub base_url: String,
    pub journal: PathBuf,
}

impl Mock {
    pub async fn start(dir: &Path, scenario: Option<Value>) -> Mock {
        let journal = dir.join("journal.jsonl");
        let mut args = vec![
            "mock-model".to_owned(),
            "--listen".to_owned(),
            "127.0.0.1:0".to_owned(),
            "--journal".to_owned(),
            journal.display().to_string(),
        ];
        if let Some(scenario) = scenario {
            let script = dir.join("scenario.json");
            std::fs::write(&script, scenario.to_string()).unwrap();
            args.extend(["--script".to_owned(), script.display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut process = Process::spawn(&args, false);
        let base_url = process.line().await;
        assert!(
            base_url.starts_with("http://"),
            "mock-model printed {base_url:?}"
        );
        Mock {
            process,
            base_url,
            journal,
        }
    }

    /// Journal entries so far.
    pub fn entries(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.journal)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }
}

/// `switchboard serve --no-local-runtime --runtime-token TOKEN` against a mock model.
pub struct Core {
    pub process: Process,
    /// `http://HOST:PORT` (no `/v1`).
    pub root: String,
    http: reqwest::Client,
}

impl Core {
    pub async fn start(data_dir: &Path, mock: &Mock) -> Core {
        Core::start_on(data_dir, mock, "127.0.0.1:0").await
    }

    /// [`Core::start`] on a given address (to restart a Core where its Runtimes dial).
    pub async fn start_on(data_dir: &Path, mock: &Mock, listen: &str) -> Core {
        let provider = format!("{}/v1", mock.base_url);
        let data_dir = data_dir.display().to_string();
        let mut process = Process::spawn(
            &[
                "serve",
                "--listen",
                listen,
                "--data-dir",
                &data_dir,
                "--no-local-runtime",
                "--runtime-token",
                TOKEN,
                "--model-provider-url",
                &provider,
                "--model-provider-key",
                "k",
                // The same mock serves the Anthropic Messages API (Claude Code Sessions).
                "--anthropic-provider-url",
                &mock.base_url,
                "--anthropic-provider-key",
                "k",
            ],
            false,
        );
        let line = process.line().await;
        let root = line
            .rsplit(' ')
            .next()
            .and_then(|url| url.strip_suffix("/v1"))
            .unwrap_or_else(|| panic!("unexpected first line from serve: {line:?}"))
            .to_owned();
        Core {
            process,
            root,
            http: reqwest::Client::new(),
        }
    }

    /// A Core already started (with other flags) at `root` (`http://HOST:PORT`). Its client
    /// keeps no idle connection: such Cores may close a kept-alive one after 1 s, and a request
    /// sent on a pooled connection just as the server closes it fails (it is not retried).
    pub fn from_process(process: Process, root: String) -> Core {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("an HTTP client");
        Core {
            process,
            root,
            http,
        }
    }

    /// `HOST:PORT`, for raw TCP clients.
    pub fn addr(&self) -> String {
        self.root.trim_start_matches("http://").to_owned()
    }

    /// `ws://HOST:PORT`: what `switchboard runtime --core` takes.
    pub fn ws_url(&self) -> String {
        self.root.replacen("http://", "ws://", 1)
    }

    /// `switchboard runtime` dialing this Core with `token`, its state under `data_dir`.
    pub fn runtime(&self, token: &str, data_dir: &Path, capture_stderr: bool) -> Process {
        let data_dir = data_dir.display().to_string();
        Process::spawn(
            &[
                "runtime",
                "--core",
                &self.ws_url(),
                "--token",
                token,
                "--data-dir",
                &data_dir,
                "--runtime-id",
                "remote-test",
            ],
            capture_stderr,
        )
    }

    pub async fn readyz(&self) -> u16 {
        self.http
            .get(format!("{}/readyz", self.root))
            .send()
            .await
            .expect("GET /readyz")
            .status()
            .as_u16()
    }

    /// Polls `/readyz` until it answers `status`.
    pub async fn wait_readyz(&self, status: u16) {
        poll(&format!("/readyz to answer {status}"), || async {
            (self.readyz().await == status).then_some(())
        })
        .await;
    }

    /// A Project API request; returns the status and the JSON body (null when empty).
    pub async fn api(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self
            .http
            .request(method, format!("{}/v1{path}", self.root))
            .header("OpenAI-Beta", "agents=v1")
            .bearer_auth(API_KEY);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("API request");
        let status = response.status().as_u16();
        let text = response.text().await.expect("API response body");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, body)
    }

    /// Creates a Session on an inline agent (model `gpt-test`, no tools) with input `hi`.
    pub async fn create_session(&self) -> String {
        let (status, session) = self
            .api(
                "POST",
                "/agents/sessions",
                Some(json!({
                    "environment": {"type": "none"},
                    "agent": {"model": "gpt-test"},
                    "input": "hi",
                })),
            )
            .await;
        assert_eq!(status, 201, "{session}");
        session["id"].as_str().expect("session id").to_owned()
    }

    /// Posts one user message to a Session; the status and body.
    pub async fn post_message(&self, id: &str, text: &str) -> (u16, Value) {
        self.api(
            "POST",
            &format!("/agents/sessions/{id}/events"),
            Some(json!({"events": [{
                "type": "agent.session.input.message",
                "input": [{"role": "user", "content": [{"type": "input_text", "text": text}]}],
            }]})),
        )
        .await
    }

    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = self.api("GET", path, None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    /// Polls the Session until its status is `status`; panics early on another settled one.
    pub async fn wait_session(&self, id: &str, status: &str) -> Value {
        let path = format!("/agents/sessions/{id}");
        poll(&format!("{id} to be {status}"), || async {
            let session = self.get(&path).await;
            if session["status"] == status {
                return Some(session);
            }
            let settled = ["idle", "failed"].contains(&session["status"].as_str().unwrap_or(""));
            assert!(
                !settled,
                "expected {status}, the Session settled as {session}"
            );
            None
        })
        .await
    }

    pub async fn turns(&self, id: &str) -> Vec<Value> {
        let page = self
            .get(&format!("/agents/sessions/{id}/turns?order=asc&limit=100"))
            .await;
        page["data"].as_array().cloned().unwrap_or_default()
    }

    pub async fn items(&self, id: &str) -> Vec<Value> {
        let page = self
            .get(&format!("/agents/sessions/{id}/items?order=asc&limit=100"))
            .await;
        page["data"].as_array().cloned().unwrap_or_default()
    }
}

// Raw HTTP/1.1 over TCP, for what a client library hides (partial requests, kept-alive reuse).

/// [`start_limited`] with 64 connections, the local Runtime on the mock model (no install) and
/// `extra` flags, once `/readyz` answers 200; `Core::addr` gives the raw `HOST:PORT`.
pub async fn start_limited_on(data_dir: &std::path::Path, mock: &Mock, extra: &[&str]) -> Core {
    let provider = format!("{}/v1", mock.base_url);
    let mut args = vec![
        "--no-install",
        "--model-provider-url",
        &provider,
        "--model-provider-key",
        "k",
    ];
    args.extend_from_slice(extra);
    let (process, addr) = start_limited(data_dir, 64, &args).await;
    let core = Core::from_process(process, format!("http://{addr}"));
    core.wait_readyz(200).await;
    core
}

/// `serve` with no Runtime, a 1 s header, keep-alive (unless `extra` sets it) and body
/// timeout and `max` connections.
pub async fn start_limited(
    data_dir: &std::path::Path,
    max: usize,
    extra: &[&str],
) -> (Process, String) {
    let data_dir = data_dir.display().to_string();
    let max = max.to_string();
    let mut args = vec![
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        &data_dir,
        "--header-read-timeout",
        "1",
        "--body-read-timeout",
        "1",
        "--max-connections",
        &max,
    ];
    if !extra.contains(&"--keep-alive-timeout") {
        args.extend_from_slice(&["--keep-alive-timeout", "1"]);
    }
    args.extend_from_slice(extra);
    let mut process = Process::spawn(&args, false);
    let line = process.line().await;
    let addr = line
        .rsplit(' ')
        .next()
        .and_then(|url| url.strip_prefix("http://"))
        .and_then(|url| url.strip_suffix("/v1"))
        .unwrap_or_else(|| panic!("unexpected first line from serve: {line:?}"))
        .to_owned();
    (process, addr)
}

/// Reads until the server closes the connection; returns everything it sent.
pub async fn read_to_close(tcp: &mut TcpStream) -> String {
    let mut out = Vec::new();
    tokio::time::timeout(WAIT, tcp.read_to_end(&mut out))
        .await
        .expect("the server did not close the connection")
        .ok();
    String::from_utf8_lossy(&out).into_owned()
}

/// Sends `GET /v1/agents/sessions/{session}/events` with `key` on a new raw connection to
/// `addr` and leaves the response unread.
pub async fn request_events(addr: &str, session: &str, key: &str) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /v1/agents/sessions/{session}/events HTTP/1.1\r\nHost: x\r\n\
         OpenAI-Beta: agents=v1\r\nAuthorization: Bearer {key}\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    tcp
}

/// [`request_events`], then its response head (which must be 200): the stream is subscribed
/// once the head is out, so events published after this returns reach it.
pub async fn open_events(addr: &str, session: &str, key: &str) -> TcpStream {
    let mut tcp = request_events(addr, session, key).await;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = tokio::time::timeout(WAIT, tcp.read(&mut byte))
            .await
            .expect("no response head")
            .expect("reading the response head");
        assert!(n > 0, "closed before the head");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    tcp
}

/// Reads a kept-open response until `needle` appears (within [`WAIT`]); what was read. A
/// connection that closes first fails the test.
pub async fn read_until(tcp: &mut TcpStream, needle: &str) -> String {
    let mut seen = String::new();
    let read = async {
        let mut buf = [0u8; 4096];
        while !seen.contains(needle) {
            let n = tcp.read(&mut buf).await.expect("reading the stream");
            assert!(n > 0, "the stream was closed before {needle:?}: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    };
    tokio::time::timeout(WAIT, read)
        .await
        .unwrap_or_else(|_| panic!("no {needle:?} within {WAIT:?}"));
    seen
}

/// One complete response head and its `Content-Length` body, leaving the connection open.
pub async fn read_response(tcp: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    let read = async {
        loop {
            if tcp.read(&mut byte).await.expect("reading a response") == 0 {
                break;
            }
            buf.push(byte[0]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap_or(0));
                let mut body = vec![0u8; len];
                tcp.read_exact(&mut body).await.expect("reading a body");
                buf.extend_from_slice(&body);
                break;
            }
        }
    };
    tokio::time::timeout(WAIT, read).await.expect("no response");
    String::from_utf8_lossy(&buf).into_owned()
}

/// Calls `check` every 50 ms until it returns `Some`, failing after [`WAIT`].
pub async fn poll<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Writes an Environment row into a Core data dir before Core starts (for tests of enrollment
/// that do not go through Session create).
pub async fn seed_environment(core_dir: &Path, id: &str, kind: &str) {
    use switchboard_store::{EnvironmentRecord, SqliteStore, Store};
    std::fs::create_dir_all(core_dir).unwrap();
    let store = SqliteStore::open(&core_dir.join("switchboard.sqlite"))
        .await
        .expect("opening Core's store");
    // The first Project, which a fresh data dir starts with (its key is printed at start).
    let project = store.list_projects().await.expect("listing Projects")[0]
        .id
        .clone();
    let record = EnvironmentRecord {
        id: id.to_owned(),
        project_id: project,
        created_at: 1,
        kind: kind.to_owned(),
        enrollment_digest: None,
        credential_digest: None,
        doc: "{}".to_owned(),
    };
    store
        .put_environment(&record)
        .await
        .expect("seeding an Environment");
}

/// Runs `switchboard ARGS` to completion: exit status, stdout, stderr.
pub async fn cli(args: &[&str]) -> (std::process::ExitStatus, String, String) {
    let output = tokio::time::timeout(
        WAIT,
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("SWITCHBOARD_CORE_URL")
            .env_remove("RUST_BACKTRACE")
            .stdin(Stdio::null())
            .output(),
    )
    .await
    .expect("the command did not exit")
    .expect("running the switchboard binary");
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `switchboard environments enroll ENV_ID` against a Core data dir: the printed command line.
pub async fn mint_enrollment(core_dir: &Path, environment_id: &str, core_url: &str) -> String {
    let data_dir = core_dir.display().to_string();
    let (status, stdout, stderr) = cli(&[
        "environments",
        "enroll",
        environment_id,
        "--data-dir",
        &data_dir,
        "--core-url",
        core_url,
    ])
    .await;
    assert!(status.success(), "environments enroll failed: {stderr}");
    stdout.trim_end().to_owned()
}

/// The token at the end of an enroll command line.
pub fn token_of(command: &str) -> String {
    command
        .rsplit(' ')
        .next()
        .filter(|t| t.starts_with("sbenr_"))
        .unwrap_or_else(|| panic!("no enrollment token in {command:?}"))
        .to_owned()
}

impl Core {
    /// `POST /runtime/enroll {token}` as a Runtime would send it: status and JSON body.
    pub async fn exchange(&self, token: &str) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}/runtime/enroll", self.root))
            .json(&json!({ "token": token }))
            .send()
            .await
            .expect("POST /runtime/enroll");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// `switchboard runtime --core http://… [--enroll TOKEN]`: a self-hosted Environment's
    /// Runtime, with no `--token` and no `--runtime-id` (an enrolled Runtime keeps its own).
    pub fn enrolled_runtime(
        &self,
        enroll: Option<&str>,
        data_dir: &Path,
        capture_stderr: bool,
    ) -> Process {
        let data_dir = data_dir.display().to_string();
        let mut args = vec!["runtime", "--core", &self.root, "--data-dir", &data_dir];
        if let Some(token) = enroll {
            args.extend(["--enroll", token]);
        }
        Process::spawn(&args, capture_stderr)
    }
}

impl Core {
    /// `POST /agents/sessions/{id}/events` with one input message: status and body.
    pub async fn send_input(&self, id: &str, text: &str) -> (u16, Value) {
        self.api(
            "POST",
            &format!("/agents/sessions/{id}/events"),
            Some(json!({"events": [{"type": "agent.session.input.message", "input": text}]})),
        )
        .await
    }

    /// Polls the Session's Turns until there are `count` and the last one is `status`.
    pub async fn wait_turns(&self, id: &str, count: usize, status: &str) -> Vec<Value> {
        poll(
            &format!("{id} to have {count} Turns, the last {status}"),
            || async {
                let turns = self.turns(id).await;
                (turns.len() == count && turns[count - 1]["status"] == status).then_some(turns)
            },
        )
        .await
    }

    /// Polls the Session until `check` holds for it.
    pub async fn wait_for(&self, id: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        let path = format!("/agents/sessions/{id}");
        poll(what, || async {
            let session = self.get(&path).await;
            check(&session).then_some(session)
        })
        .await
    }
}

/// Whether a Session's `required_actions` asks for its Environment's connection.
pub fn awaits_connection(session: &Value, environment_id: &str) -> bool {
    session["required_actions"]
        .as_array()
        .is_some_and(|actions| {
            actions.iter().any(|a| {
                a["type"] == "environment_connection" && a["environment_id"] == environment_id
            })
        })
}
