//! Scale (issue #13): many idle Sessions on a bounded number of harness processes, and many
//! concurrent active ones, on Codex against the in-process mock model.
//!
//! Run with `cargo bench -p switchboard --bench scale`. Counts scale down for a quick run:
//! `SCALE_IDLE` (default 10000) Sessions created (each with its first input, which
//! `environment: none` requires, so each runs one Turn) and left idle; `SCALE_IDLE_MAX_LIVE`
//! (default 16) the first Core's `--max-live-harnesses`, also how many are created at once;
//! `SCALE_ACTIVE` (default 200) concurrent active Sessions; `SCALE_ACTIVE_MAX_LIVE` (default
//! 256) the second Core's bound; `SCALE_ALONE` (default 10) Turns of one Session alone, the
//! baseline. `SCALE_IDLE_BUDGET_S` (default: none) bounds the idle part's creation in seconds:
//! Sessions not started by then are skipped and the figures are for those created, so a run
//! that cannot reach `SCALE_IDLE` on a slow machine still reports every figure. A progress line
//! (count, rate, RSS) goes out every `SCALE_PROGRESS` (default 500) Sessions.
//!
//! Both parts run Core as `switchboard serve` builds it (SQLite store, the local Runtime, the
//! mock as the Responses provider) in this process, driven over HTTP like an SDK client.
//!
//! - **idle**: memory is this process's RSS (`VmRSS`), so "Core memory per idle Session" is
//!   Core and the Runtime together: (RSS after − RSS before) / N, once every Session's Turn
//!   ended (the processes of all but the last `SCALE_IDLE_MAX_LIVE` evicted). Then the harness
//!   processes left (children of this process), and the time to resume the first (least
//!   recently used) Session: a message Turn on it, from the POST to `agent.session.idle`, with
//!   its first Turn's prompt checked in the model request (history kept).
//! - **active**: `SCALE_ALONE` Turns of one Session alone, then `SCALE_ACTIVE` Sessions created
//!   at once, each with a Turn streamed (`stream: true`) to its end. Each reply is 8 text deltas;
//!   a lost event is a stream whose deltas do not add up to the reply, or that lacks
//!   `turn.completed` or `idle`. p50/p99 Turn time (create POST → `idle`) against the alone p50.

// A bench stops loudly on a failed setup.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Sse, env_usize, ms, percentile};
use switchboard_execution::{ModelProvider, ProviderProtocol};
use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario};
use switchboard_runtime::RuntimeOptions;

mod support;

const API_KEY: &str = "sk-sb-bench-scale";
const REPLY: &str = "one two three four five six seven eight";
const DELTAS: u32 = 8;
/// Bound on any single wait (200 concurrent Turns on two cores take a while).
const WAIT: Duration = Duration::from_secs(600);

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    support::log_from_env();
    rt.block_on(run());
}

async fn run() {
    let idle = env_usize("SCALE_IDLE", 10_000);
    let idle_max_live = env_usize("SCALE_IDLE_MAX_LIVE", 16).max(1);
    let active = env_usize("SCALE_ACTIVE", 200);
    let active_max_live = env_usize("SCALE_ACTIVE_MAX_LIVE", 256).max(1);
    let alone = env_usize("SCALE_ALONE", 10).max(1);
    let budget = std::env::var("SCALE_IDLE_BUDGET_S")
        .ok()
        .map(|v| Duration::from_secs(v.parse().expect("SCALE_IDLE_BUDGET_S is a number")));
    let progress = env_usize("SCALE_PROGRESS", 500).max(1);
    let scenario = Scenario::new(vec![Rule::from(Reply::text(REPLY).deltas(DELTAS))]);
    let model = MockModel::start(MockConfig::loopback().with_scenario(scenario))
        .await
        .expect("the mock model");
    let scratch = scratch();
    println!(
        "scale: {} cores",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    // Idle. A Session with `environment: none` is created with its first input, so each one
    // runs a Turn (its history) before it is left idle.
    let core = Arc::new(Core::start(&scratch.path().join("idle"), &model, idle_max_live).await);
    let before = rss_kib();
    let started = Instant::now();
    let gate = Arc::new(tokio::sync::Semaphore::new(idle_max_live));
    let tasks: Vec<_> = (0..idle)
        .map(|i| {
            let (core, gate) = (core.clone(), gate.clone());
            tokio::spawn(async move {
                let _slot = gate.acquire_owned().await.expect("the gate");
                if budget.is_some_and(|b| started.elapsed() >= b) {
                    return None;
                }
                Some(core.streamed_turn(&format!("first prompt <<h{i}>>")).await)
            })
        })
        .collect();
    let mut ids = Vec::with_capacity(idle);
    let mut lost_idle = 0;
    // In creation order (each task's index), so `ids[0]` is the least recently used.
    for task in tasks {
        let Some((_, lost, id)) = task.await.expect("a Turn task") else {
            continue;
        };
        lost_idle += lost;
        ids.push(id);
        if ids.len() % progress == 0 {
            let secs = started.elapsed().as_secs_f64();
            println!(
                "idle: {} Sessions in {secs:.0} s ({:.2}/s), RSS {} MiB, load {}",
                ids.len(),
                ids.len() as f64 / secs,
                rss_kib() / 1024,
                load_average()
            );
        }
    }
    let created_in = started.elapsed();
    if ids.len() < idle {
        println!(
            "idle: the {} s budget ended creation at {} of {idle} Sessions",
            budget.map_or(0, |b| b.as_secs()),
            ids.len()
        );
    }
    let idle = ids.len();
    let after = rss_kib();
    let left = harness_children();
    println!(
        "idle: {idle} Sessions created, one Turn each ({idle_max_live} at a time), in {:.1} s, \
         left idle: {:.2} KiB RSS per idle Session (Core and Runtime); {left} harness processes \
         left (--max-live-harnesses {idle_max_live}); lost events: {lost_idle}",
        created_in.as_secs_f64(),
        per(after - before, idle)
    );
    // The mock's in-memory journal (every request and reply) lives in this process too.
    let journal: usize = model.journal().iter().map(|e| e.to_string().len()).sum();
    println!(
        "idle: of which the mock model's in-memory journal: about {:.2} KiB per Session",
        journal as f64 / 1024.0 / idle.max(1) as f64
    );
    println!(
        "idle: load average at the end of creation: {}",
        load_average()
    );
    assert!(left <= idle_max_live, "{left} processes over the bound");
    if let Some(oldest) = ids.first() {
        let mark = model.journal().len();
        let start = Instant::now();
        core.turn(oldest, "resumed prompt").await;
        let resumed = start.elapsed();
        let carried = model.journal()[mark..]
            .iter()
            .any(|r| r["body"].to_string().contains("<<h0>>"));
        assert!(carried, "the resumed Turn lost its history");
        let warm_start = Instant::now();
        core.turn(oldest, "resident prompt").await;
        println!(
            "idle: resume of the first Session (relaunch + thread/resume + Turn): {:.0} ms; \
             its next Turn, resident: {:.0} ms",
            ms(resumed),
            ms(warm_start.elapsed())
        );
    }
    if let Ok(core) = Arc::try_unwrap(core) {
        core.stop().await;
    }

    // Active.
    let core = Arc::new(Core::start(&scratch.path().join("active"), &model, active_max_live).await);
    let mut alone_times = Vec::new();
    for _ in 0..alone {
        alone_times.push(core.streamed_turn("count to eight").await.0);
    }
    let tasks: Vec<_> = (0..active)
        .map(|_| {
            let core = core.clone();
            tokio::spawn(async move { core.streamed_turn("count to eight").await })
        })
        .collect();
    let mut times = Vec::new();
    let mut lost = 0;
    for task in tasks {
        let (time, lost_here, _) = task.await.expect("a Turn task");
        times.push(time);
        lost += lost_here;
    }
    alone_times.sort();
    times.sort();
    let base = percentile(&alone_times, 0.5);
    println!(
        "active: one Session alone: p50 {:.0} ms over {alone} Turns",
        ms(base)
    );
    println!(
        "active: {active} concurrent Sessions (--max-live-harnesses {active_max_live}): \
         p50 {:.0} ms ({:.1}x alone), p99 {:.0} ms ({:.1}x alone); lost events: {lost}",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.5)) / ms(base),
        ms(percentile(&times, 0.99)),
        ms(percentile(&times, 0.99)) / ms(base),
    );
    println!("active: load average at the end: {}", load_average());
    assert_eq!(lost, 0, "events were lost");
    if let Ok(core) = Arc::try_unwrap(core) {
        core.stop().await;
    }
    model.shutdown().await;
}

/// Core and its local Runtime in-process, as `switchboard serve` builds them.
struct Core {
    http: reqwest::Client,
    root: String,
    server: tokio::task::JoinHandle<()>,
}

impl Core {
    async fn start(data_dir: &Path, model: &MockModel, max_live: usize) -> Core {
        let provider = ModelProvider {
            protocol: ProviderProtocol::Responses,
            base_url: format!("{}/v1", model.base_url()),
            api_key: "sk-bench".into(),
            context_window: None,
            max_output_tokens: None,
        };
        let options = RuntimeOptions {
            max_live_harnesses: max_live,
            ..RuntimeOptions::for_data_dir(data_dir)
        };
        let (root, server) = support::start_core(data_dir, API_KEY, [provider], options).await;
        let core = Core {
            http: reqwest::Client::new(),
            root,
            server,
        };
        core.wait_ready().await;
        core
    }

    async fn wait_ready(&self) {
        let deadline = Instant::now() + WAIT;
        loop {
            let ready = self
                .http
                .get(format!("{}/readyz", self.root))
                .send()
                .await
                .is_ok_and(|r| r.status().as_u16() == 200);
            if ready {
                return;
            }
            assert!(Instant::now() < deadline, "Core never became ready");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn stop(self) {
        self.server.abort();
        // The Runtime ends its processes once Core's channels close; wait for that, bounded.
        let deadline = Instant::now() + Duration::from_secs(30);
        while harness_children() > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn api(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}/v1{path}", self.root))
            .header("OpenAI-Beta", "agents=v1")
            .bearer_auth(API_KEY)
    }

    fn body(extra: Value) -> Value {
        let mut body = json!({
            "environment": {"type": "none"},
            "agent": {"model": "gpt-bench", "instructions": "Answer briefly."},
            "x_agents_core": {"harness": "codex"},
        });
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        body
    }

    /// A message Turn on `id`, read on the Session's stream until it is idle again.
    async fn turn(&self, id: &str, text: &str) {
        let response = self
            .api(
                reqwest::Method::GET,
                &format!("/agents/sessions/{id}/events"),
            )
            .send()
            .await
            .expect("GET …/events");
        assert_eq!(response.status().as_u16(), 200);
        let mut stream = Sse::new(response, WAIT);
        let events = json!({"events": [{"type": "agent.session.input.message", "input": text}]});
        let response = self
            .api(
                reqwest::Method::POST,
                &format!("/agents/sessions/{id}/events"),
            )
            .json(&events)
            .send()
            .await
            .expect("POST …/events");
        assert_eq!(response.status().as_u16(), 202);
        let mut ended = false;
        loop {
            let (event, _) = stream.next().await;
            match event["type"].as_str().unwrap_or_default() {
                "agent.session.turn.completed" => ended = true,
                "agent.session.idle" if ended => return,
                "agent.session.failed" | "agent.session.turn.failed" | "error" => {
                    panic!("the Turn failed: {event}")
                }
                _ => {}
            }
        }
    }

    /// A new Session with a streamed Turn on `input`: its time (create POST → idle), its lost
    /// events and its id.
    async fn streamed_turn(&self, input: &str) -> (Duration, usize, String) {
        let start = Instant::now();
        let response = self
            .api(reqwest::Method::POST, "/agents/sessions")
            .json(&Self::body(json!({"input": input, "stream": true})))
            .send()
            .await
            .expect("POST /agents/sessions");
        assert_eq!(response.status().as_u16(), 201);
        let mut stream = Sse::new(response, WAIT);
        let (mut text, mut completed, mut id) = (String::new(), false, None);
        loop {
            let (event, _) = stream.next().await;
            if id.is_none() {
                id = event["session_id"]
                    .as_str()
                    .or(event["session"]["id"].as_str())
                    .map(str::to_owned);
            }
            match event["type"].as_str().unwrap_or_default() {
                "agent.session.turn.output_text.delta" => {
                    text.push_str(event["delta"].as_str().unwrap_or_default())
                }
                "agent.session.turn.completed" => completed = true,
                "agent.session.idle" if completed => break,
                "agent.session.failed" | "agent.session.turn.failed" | "error" => {
                    panic!("the Turn failed: {event}")
                }
                _ => {}
            }
        }
        let lost = usize::from(text != REPLY);
        let id = id.expect("the stream named its Session");
        (start.elapsed(), lost, id)
    }
}

/// Scratch space under the target dir, not /tmp: codex refuses helper binaries there.
fn scratch() -> tempfile::TempDir {
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/scale-bench");
    std::fs::create_dir_all(&parent).expect("creating the scratch parent");
    tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(parent)
        .expect("creating the scratch dir")
}

/// The machine's 1, 5 and 15 minute load averages (other work shares the machine).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// This process's resident set, in KiB.
fn rss_kib() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn per(kib: i64, n: usize) -> f64 {
    if n == 0 { 0.0 } else { kib as f64 / n as f64 }
}

/// Live `codex app-server` children of this process.
fn harness_children() -> usize {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next();
            fields.next() == Some(me.as_str())
                && !matches!(state, Some("Z" | "X"))
                && std::fs::read(e.path().join("cmdline"))
                    .unwrap_or_default()
                    .split(|b| *b == 0)
                    .any(|arg| arg == b"app-server")
        })
        .count()
}
