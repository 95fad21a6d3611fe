//! One function-call Turn through Switchboard against the same scenario driven directly on the
//! Codex adapter, in the same process and the same run (issue #4's proof item).
//!
//! Run with `cargo bench -p switchboard --bench session_turn` (`SESSION_TURN_ITERS`, default 30;
//! `SESSION_TURN_WARMUP`, default 2). It needs the pinned codex binary (`SWITCHBOARD_CODEX_BIN`
//! or `scripts/install-harnesses.sh`) and exits non-zero without it.
//!
//! Both sides run the real `codex app-server` against the in-process mock model with its
//! built-in default (call the offered function once, then answer `FINAL: <output>`):
//!
//! - **direct**: `CodexAdapter::prepare`, then `start_turn`, wait for the function call,
//!   `submit_function_result`, wait for the terminal event.
//! - **switchboard**: Core in-process as `switchboard serve` builds it (SQLite store, the mock as
//!   the default model provider, the local Runtime attached), driven over HTTP like an SDK client:
//!   `POST /v1/agents/sessions` with `stream: true`, read the SSE until
//!   `agent.session.requires_action`, `POST …/events` with the `tool_result`, read until
//!   `agent.session.idle`.
//!
//! One iteration is a new Session and two Turns on it. Core prepares a Session on its first Turn,
//! so the first Turn is timed with preparation on both sides (adapter `prepare` + Turn vs. the
//! create request + Turn); the second Turn, on the prepared Session, is the Turn without
//! preparation (`start_turn` vs. `POST …/events` with a message, read on `GET …/events`).
//!
//! "Delivery" is the time from handing over the function result (`submit_function_result` /
//! sending the `tool_result` POST) to the mock model recording codex's follow-up request that
//! carries that output; Core's added latency is the switchboard p50 minus the direct p50.
//! Direct and switchboard iterations alternate (ABBA) so drift hits both alike; only ratios and
//! differences within this run mean anything.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use serde_json::{Value, json};
use switchboard_codex::CodexAdapter;
use switchboard_core::{AppState, CoreConfig, auth, router};
use switchboard_execution::{HarnessId, ModelProvider, ProviderProtocol};
use switchboard_mock_model::{MockConfig, MockModel};
use switchboard_protocol::configuration::{HarnessId as NativeHarness, ProviderProtocol as Wire};
use switchboard_protocol::{
    Adapter, AdapterEvent, ExecutionControls, FunctionOutput, FunctionResultContent,
    FunctionToolSpec, InputPart, ModelProviderConfig, PrepareRequest, Receipt,
    SessionConfiguration, SessionExecutor, TurnRequest,
};
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions};
use switchboard_store::SqliteStore;

const API_KEY: &str = "sk-sb-bench-session-turn";
const MODEL: &str = "gpt-bench";
const INSTRUCTIONS: &str = "Answer briefly.";
const FIRST_PROMPT: &str = "What is the weather in Paris?";
const SECOND_PROMPT: &str = "And in Lyon?";
/// Bound on any single wait; a Turn against the mock takes well under a second.
const WAIT: Duration = Duration::from_secs(60);
/// The Runtime must never evict a Session between its two Turns; Sessions are deleted instead.
const IDLE_TIMEOUT: Duration = Duration::from_secs(3600);

const TARGET_RATIO: f64 = 1.15;
const TARGET_ADDED_MS: f64 = 5.0;

fn weather_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": false,
    })
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn main() -> ExitCode {
    let iters = env_usize("SESSION_TURN_ITERS", 30).max(1);
    let warmup = env_usize("SESSION_TURN_WARMUP", 2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(run(iters, warmup))
}

/// Scratch space under the target dir, not /tmp: codex refuses helper binaries there.
fn scratch() -> tempfile::TempDir {
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/session-turn-bench");
    std::fs::create_dir_all(&parent).expect("creating the scratch parent");
    tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(parent)
        .expect("creating the scratch dir")
}

/// The codex binary exactly as the local Runtime resolves it, checked against the pin.
async fn codex_binary(data_dir: &Path) -> Result<PathBuf, String> {
    let row = &switchboard_runtime::install::CODEX;
    let located = Locator::from_env(data_dir).locate(row);
    if !located.exists {
        return Err(format!(
            "codex binary not found at {} ({}); set {} or run scripts/install-harnesses.sh",
            located.path.display(),
            located.source.describe(),
            row.binary_env
        ));
    }
    let version = switchboard_codex::binary::probe_version(&located.path).await;
    if version.as_deref() != Some(row.pinned_version) {
        return Err(format!(
            "{} is codex {} but {} is pinned; run scripts/install-harnesses.sh",
            located.path.display(),
            version.as_deref().unwrap_or("(unknown)"),
            row.pinned_version
        ));
    }
    Ok(located.path)
}

async fn run(iters: usize, warmup: usize) -> ExitCode {
    let dir = scratch();
    let binary = match codex_binary(dir.path()).await {
        Ok(path) => path,
        Err(message) => {
            eprintln!("session_turn: cannot run: {message}");
            return ExitCode::FAILURE;
        }
    };
    let model = MockModel::start(MockConfig::loopback())
        .await
        .expect("starting the mock model");
    let core_root = start_core(dir.path(), &model).await;
    let bench = Bench {
        model,
        http: reqwest::Client::new(),
        core_root,
        adapter: CodexAdapter::new(binary.clone()),
        direct_dir: dir.path().join("direct"),
        next: std::sync::atomic::AtomicUsize::new(0),
    };
    wait_ready(&bench).await;

    println!(
        "session_turn: {iters} iterations per side after {warmup} warm-up, interleaved; \
         codex {} at {}; {} CPUs",
        switchboard_codex::PINNED_VERSION,
        binary.display(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    for i in 0..warmup {
        bench.direct().await;
        bench.switchboard().await;
        if i == 0 {
            bench.check_same_scenario();
        }
    }
    let (mut direct, mut switchboard) = (Vec::new(), Vec::new());
    for i in 0..iters {
        // ABBA: neither side always goes first.
        if i % 2 == 0 {
            direct.push(bench.direct().await);
            switchboard.push(bench.switchboard().await);
        } else {
            switchboard.push(bench.switchboard().await);
            direct.push(bench.direct().await);
        }
    }
    report(&direct, &switchboard);
    bench.model.shutdown().await;
    ExitCode::SUCCESS
}

/// Core and its local Runtime in-process, built as `switchboard serve` builds them.
async fn start_core(data_dir: &Path, model: &MockModel) -> String {
    let data_dir = data_dir.join("core");
    std::fs::create_dir_all(&data_dir).expect("creating Core's data dir");
    let store = SqliteStore::open(&data_dir.join("switchboard.sqlite"))
        .await
        .expect("opening the store");
    let secrets = switchboard_core::secrets::SecretBox::load_or_create(&data_dir)
        .expect("creating the data key");
    auth::bootstrap(&store, Some(API_KEY), switchboard_core::unix_now())
        .await
        .expect("creating the API key");
    let provider = ModelProvider {
        protocol: ProviderProtocol::Responses,
        base_url: format!("{}/v1", model.base_url()),
        api_key: "sk-bench".into(),
        context_window: None,
        max_output_tokens: None,
    };
    let state = Arc::new(AppState::new(
        Arc::new(store),
        secrets,
        CoreConfig {
            data_dir: data_dir.clone(),
            default_harness: HarnessId::Codex,
            runtime_token: None,
        },
        Some(provider),
    ));
    let registry = Arc::new(Registry::standard(Locator::from_env(&data_dir)));
    let options = RuntimeOptions {
        idle_timeout: IDLE_TIMEOUT,
        ..RuntimeOptions::for_data_dir(&data_dir)
    };
    let (to_runtime, from_runtime) = LocalRuntime::start(registry, options).into_channels();
    state
        .engine
        .attach("local".to_owned(), true, to_runtime, from_runtime);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binding Core");
    let addr = listener.local_addr().expect("Core's address");
    tokio::spawn(async move {
        axum::serve(listener, router(state))
            .await
            .expect("serving Core")
    });
    format!("http://{addr}")
}

async fn wait_ready(bench: &Bench) {
    let deadline = Instant::now() + WAIT;
    loop {
        let status = bench
            .http
            .get(format!("{}/readyz", bench.core_root))
            .send()
            .await
            .map(|r| r.status().as_u16());
        if status.as_ref().is_ok_and(|s| *s == 200) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "Core never became ready (/readyz: {status:?})"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One iteration's figures.
#[derive(Debug, Clone, Copy)]
struct Sample {
    /// Preparation and the first Turn: adapter `prepare` → terminal event, or the create POST →
    /// `agent.session.idle`.
    cold: Duration,
    /// The second Turn on the prepared Session, start → terminal event / idle.
    warm: Duration,
    /// Function result handed over → the follow-up model request recorded, first Turn.
    deliver_cold: Duration,
    /// The same in the second Turn.
    deliver_warm: Duration,
}

struct Bench {
    model: MockModel,
    http: reqwest::Client,
    core_root: String,
    adapter: CodexAdapter,
    direct_dir: PathBuf,
    next: std::sync::atomic::AtomicUsize,
}

impl Bench {
    /// A number unique in this run, for state directories and output markers.
    fn next_id(&self) -> usize {
        self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// The journal length now: entries after it belong to what follows.
    fn journal_mark(&self) -> usize {
        self.model.journal_recorded_at().len()
    }

    /// When the mock recorded the first request after `mark` whose body carries `marker` (the
    /// function output of one Turn, unique per Turn).
    fn delivered_at(&self, mark: usize, marker: &str) -> Instant {
        let entries = self.model.journal();
        let times = self.model.journal_recorded_at();
        let index = (mark..entries.len())
            .find(|&i| {
                entries[i]["path"] == "/v1/responses"
                    && entries[i]["body"]["input"].to_string().contains(marker)
            })
            .unwrap_or_else(|| panic!("no model request carried {marker}"));
        times[index]
    }

    fn direct_configuration(&self) -> SessionConfiguration {
        SessionConfiguration {
            harness: NativeHarness::Codex,
            model: MODEL.into(),
            instructions: Some(INSTRUCTIONS.into()),
            model_provider: ModelProviderConfig {
                protocol: Wire::Responses,
                base_url: format!("{}/v1", self.model.base_url()),
                api_key: "sk-bench".into(),
                context_window: None,
                max_output_tokens: None,
            },
            function_tools: vec![FunctionToolSpec {
                name: "get_weather".into(),
                description: "Current weather for a city.".into(),
                parameters: weather_parameters(),
                defer_loading: false,
            }],
            tool_search: false,
            execution_controls: ExecutionControls::default(),
            mcp_servers: vec![],
            harness_config: None,
        }
    }

    /// One direct iteration: prepare, two Turns, then end the process.
    async fn direct(&self) -> Sample {
        let n = self.next_id();
        let state = self.direct_dir.join(format!("sess_{n}"));
        let request = PrepareRequest {
            session_id: format!("sess_direct_{n}"),
            configuration: self.direct_configuration(),
            state_dir: state.clone(),
        };
        let mark = self.journal_mark();
        let start = Instant::now();
        let executor = bounded("prepare", self.adapter.prepare(request))
            .await
            .expect("prepare");
        let first = format!("<<direct:{n}:1>>");
        let (end, submitted) = direct_turn(&*executor, 1, FIRST_PROMPT, &first).await;
        let cold = end - start;
        let deliver_cold = self.delivered_at(mark, &first) - submitted;

        let mark = self.journal_mark();
        let second = format!("<<direct:{n}:2>>");
        let start = Instant::now();
        let (end, submitted) = direct_turn(&*executor, 2, SECOND_PROMPT, &second).await;
        let warm = end - start;
        let deliver_warm = self.delivered_at(mark, &second) - submitted;

        executor.evict().await.expect("evicting an idle executor");
        drop(executor);
        let _ = std::fs::remove_dir_all(&state);
        settle().await;
        Sample {
            cold,
            warm,
            deliver_cold,
            deliver_warm,
        }
    }

    fn api(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}/v1{path}", self.core_root))
            .header("OpenAI-Beta", "agents=v1")
            .bearer_auth(API_KEY)
    }

    async fn post_events(&self, session_id: &str, events: Value) {
        let response = bounded(
            "POST …/events",
            self.api(
                reqwest::Method::POST,
                &format!("/agents/sessions/{session_id}/events"),
            )
            .json(&json!({ "events": events }))
            .send(),
        )
        .await
        .expect("POST …/events");
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        assert_eq!(status, 202, "POST …/events: {body}");
    }

    /// Reads `stream` until the Session requires action, answers the call with `marker` as its
    /// output, and reads on until the Session is idle after the Turn ended. Returns when the
    /// idle event arrived and when the result was sent.
    async fn answer_and_finish(
        &self,
        stream: &mut Sse,
        session_id: &mut Option<String>,
        marker: &str,
    ) -> (Instant, Instant) {
        let action = loop {
            let (event, _) = stream.next().await;
            if session_id.is_none() {
                *session_id = event["session_id"]
                    .as_str()
                    .or(event["session"]["id"].as_str())
                    .map(str::to_owned);
            }
            check_not_failed(&event);
            if event["type"] == "agent.session.requires_action" {
                break event["session"]["required_actions"][0].clone();
            }
        };
        let id = session_id.clone().expect("the stream named its Session");
        let result = json!([{
            "type": "agent.session.input.tool_result",
            "turn_id": action["turn_id"],
            "call_id": action["call_id"],
            "success": true,
            "output": marker,
        }]);
        let submitted = Instant::now();
        self.post_events(&id, result).await;
        let mut ended = false;
        loop {
            let (event, at) = stream.next().await;
            check_not_failed(&event);
            match event["type"].as_str().unwrap_or_default() {
                "agent.session.turn.completed" => ended = true,
                "agent.session.idle" if ended => return (at, submitted),
                _ => {}
            }
        }
    }

    /// One Switchboard iteration: create with input (streamed), two Turns, then delete.
    async fn switchboard(&self) -> Sample {
        let n = self.next_id();
        let body = json!({
            "environment": {"type": "none"},
            "agent": {
                "model": MODEL,
                "instructions": INSTRUCTIONS,
                "tools": [{
                    "type": "function",
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parameters": weather_parameters(),
                }],
            },
            "input": FIRST_PROMPT,
            "stream": true,
        });
        let mark = self.journal_mark();
        let first = format!("<<switchboard:{n}:1>>");
        let start = Instant::now();
        let response = bounded(
            "POST /agents/sessions",
            self.api(reqwest::Method::POST, "/agents/sessions")
                .json(&body)
                .send(),
        )
        .await
        .expect("POST /agents/sessions");
        assert_eq!(response.status().as_u16(), 201, "create");
        let mut stream = Sse::new(response);
        let mut session_id = None;
        let (end, submitted) = self
            .answer_and_finish(&mut stream, &mut session_id, &first)
            .await;
        let cold = end - start;
        let deliver_cold = self.delivered_at(mark, &first) - submitted;
        drop(stream);
        let id = session_id.expect("session id");

        // The second Turn, read on the Session's event stream (open before the input is sent).
        let response = bounded(
            "GET …/events",
            self.api(
                reqwest::Method::GET,
                &format!("/agents/sessions/{id}/events"),
            )
            .send(),
        )
        .await
        .expect("GET …/events");
        assert_eq!(response.status().as_u16(), 200, "GET …/events");
        let mut stream = Sse::new(response);
        let mark = self.journal_mark();
        let second = format!("<<switchboard:{n}:2>>");
        let message = json!([{"type": "agent.session.input.message", "input": SECOND_PROMPT}]);
        let start = Instant::now();
        self.post_events(&id, message).await;
        let mut known = Some(id.clone());
        let (end, submitted) = self
            .answer_and_finish(&mut stream, &mut known, &second)
            .await;
        let warm = end - start;
        let deliver_warm = self.delivered_at(mark, &second) - submitted;
        drop(stream);

        // Deleting releases the Session: the Runtime ends its codex process.
        let response = self
            .api(reqwest::Method::DELETE, &format!("/agents/sessions/{id}"))
            .send()
            .await
            .expect("DELETE");
        assert_eq!(response.status().as_u16(), 200, "DELETE");
        settle().await;
        Sample {
            cold,
            warm,
            deliver_cold,
            deliver_warm,
        }
    }

    /// Both sides must ask the model the same thing: same instructions and tools in the first
    /// request of their first Turn (read from the warm-up).
    fn check_same_scenario(&self) {
        let entries = self.model.journal();
        let first_of = |side: &str| {
            let marker = format!("<<{side}:");
            // The follow-up request is the first to carry the side's output; the request
            // before it opened that Turn.
            let i = entries
                .iter()
                .position(|e| e["body"]["input"].to_string().contains(&marker))
                .expect("a follow-up request");
            entries[i - 1]["body"].clone()
        };
        let (direct, switchboard) = (first_of("direct"), first_of("switchboard"));
        let keys = |b: &Value| b.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        let same = direct["tools"] == switchboard["tools"]
            && direct["instructions"] == switchboard["instructions"]
            && keys(&direct) == keys(&switchboard);
        if !same {
            println!(
                "warning: the two sides' first model requests differ (tools, instructions or \
                 members); the comparison is not like for like"
            );
        }
    }
}

/// Runs one direct Turn; returns when its terminal event arrived and when the result was
/// submitted.
async fn direct_turn(
    executor: &dyn SessionExecutor,
    n: u32,
    prompt: &str,
    marker: &str,
) -> (Instant, Instant) {
    let request = TurnRequest {
        run_id: format!("run_{n}"),
        turn_id: format!("turn_{n}"),
        input: vec![InputPart::InputText {
            text: prompt.into(),
        }],
    };
    let mut turn = bounded("start_turn", executor.start_turn(request))
        .await
        .expect("start_turn");
    let mut submitted = None;
    loop {
        let event = bounded("an adapter event", turn.events.recv())
            .await
            .expect("the Turn's events ended before its terminal event");
        match event {
            AdapterEvent::FunctionCall { call_id, .. } => {
                assert!(submitted.is_none(), "the default scenario calls once");
                let result = FunctionResultContent {
                    success: true,
                    output: Some(FunctionOutput::Text(marker.into())),
                    error: None,
                };
                submitted = Some(Instant::now());
                let receipt = turn.control.submit_function_result(&call_id, result).await;
                assert_eq!(receipt, Receipt::Confirmed);
            }
            AdapterEvent::Completed { .. } => {
                let at = Instant::now();
                return (at, submitted.expect("the Turn called the function"));
            }
            event if event.is_terminal() => panic!("the direct Turn did not complete: {event:?}"),
            _ => {}
        }
    }
}

fn check_not_failed(event: &Value) {
    let kind = event["type"].as_str().unwrap_or_default();
    assert!(
        !matches!(
            kind,
            "agent.session.failed" | "agent.session.turn.failed" | "error"
        ),
        "the Switchboard Turn failed: {event}"
    );
}

async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// Waits until this process has no child processes left (the codex processes of the iteration
/// just finished, which the Runtime ends in the background after a delete), so one iteration's
/// teardown does not run into the next one's timing.
async fn settle() {
    let deadline = Instant::now() + Duration::from_secs(10);
    while children() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Live child processes of this process (Linux `/proc`; 0 where it cannot be read).
fn children() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .map(|c| c.split_whitespace().count())
        .sum()
}

/// A minimal SSE reader: `data:` frames as JSON, each with the time its last bytes arrived.
struct Sse {
    body: Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: Vec<u8>,
    arrived: Instant,
}

impl Sse {
    fn new(response: reqwest::Response) -> Sse {
        Sse {
            body: Box::pin(response.bytes_stream()),
            buffer: Vec::new(),
            arrived: Instant::now(),
        }
    }

    async fn next(&mut self) -> (Value, Instant) {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let frame: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&frame);
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                let event: Value = serde_json::from_str(&data.join("\n"))
                    .unwrap_or_else(|e| panic!("an SSE frame is not JSON ({e}): {text}"));
                return (event, self.arrived);
            }
            let chunk = bounded("an SSE event", self.body.next())
                .await
                .expect("the event stream ended early")
                .expect("reading the event stream");
            self.arrived = Instant::now();
            self.buffer.extend_from_slice(&chunk);
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Which figure of a [`Sample`] a row reports.
type Pick = fn(&Sample) -> Duration;

fn stats(samples: &[Sample], pick: Pick) -> (f64, f64) {
    let mut values: Vec<Duration> = samples.iter().map(pick).collect();
    values.sort();
    (ms(percentile(&values, 0.5)), ms(percentile(&values, 0.9)))
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

fn report(direct: &[Sample], switchboard: &[Sample]) {
    println!();
    println!(
        "{:<44} {:>22} {:>22} {:>9}",
        "Turn (start → terminal)", "direct p50 / p90", "switchboard p50 / p90", "p50 ratio"
    );
    let rows: [(&str, Pick, bool); 2] = [
        ("function-call Turn, prepared Session", |s| s.warm, true),
        ("new Session + function-call Turn", |s| s.cold, false),
    ];
    for (name, pick, headline) in rows {
        let (d50, d90) = stats(direct, pick);
        let (s50, s90) = stats(switchboard, pick);
        let ratio = s50 / d50;
        let met = verdict(ratio <= TARGET_RATIO);
        let target = if headline {
            format!("target ≤ {TARGET_RATIO:.2}: {met}")
        } else {
            format!("(≤ {TARGET_RATIO:.2}: {met})")
        };
        let d = format!("{d50:.1} / {d90:.1} ms");
        let s = format!("{s50:.1} / {s90:.1} ms");
        println!("{name:<44} {d:>22} {s:>22} {ratio:>9.3}  {target}");
    }
    println!();
    println!(
        "{:<44} {:>22} {:>22} {:>9}",
        "function result → follow-up model request",
        "direct p50 / p90",
        "switchboard p50 / p90",
        "Core adds"
    );
    let rows: [(&str, Pick, bool); 2] = [
        ("prepared Session (second Turn)", |s| s.deliver_warm, true),
        ("first Turn", |s| s.deliver_cold, false),
    ];
    for (name, pick, headline) in rows {
        let (d50, d90) = stats(direct, pick);
        let (s50, s90) = stats(switchboard, pick);
        let added = s50 - d50;
        let met = verdict(added <= TARGET_ADDED_MS);
        let target = if headline {
            format!("target ≤ {TARGET_ADDED_MS:.0} ms: {met}")
        } else {
            format!("(≤ {TARGET_ADDED_MS:.0} ms: {met})")
        };
        let d = format!("{d50:.2} / {d90:.2} ms");
        let s = format!("{s50:.2} / {s90:.2} ms");
        let a = format!("{added:.2} ms");
        println!("{name:<44} {d:>22} {s:>22} {a:>9}  {target}");
    }
}
