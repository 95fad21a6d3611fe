//! Replicas (issue 16): Agent create and `tool_result` admissions per second through
//! `switchboard serve` processes, on SQLite, on PostgreSQL with one replica and with three
//! replicas on one database, each against a bare axum handler answering the same bytes in the
//! same run; and Core's memory per idle Session with `REPLICAS_IDLE` (default 10000) idle
//! Sessions in the store.
//!
//! Run with `cargo bench -p switchboard --bench replicas`. Knobs: `REPLICAS_RUN_SECS` (default
//! 3) per rate, `REPLICAS_IDLE` (default 10000) idle Sessions, `REPLICAS_CALLS` (default 4)
//! answered function calls per replica. PostgreSQL is the store's throwaway test cluster (no
//! fsync there); without its binaries the PostgreSQL configurations are skipped loudly (an
//! error under `CI=true`).
//!
//! - **serve**: the `switchboard` binary of this build, one process per replica, each with its
//!   own data dir and local Runtime, one shared `--data-key-file`, the in-process mock model as
//!   the deployment's provider. Requests are spread round-robin over the replicas.
//! - **agent create**: the `front_door` body, 201.
//! - **tool_result**: `REPLICAS_CALLS` Sessions per replica each run a Codex Turn that calls a
//!   function (the mock's default scenario) and get its result (202); the rate is identical
//!   retries of those results, which are admissions too (202, nothing applied twice). Each
//!   Session's results go to the replica that created it, which is where they are admitted with
//!   or without forwarding between replicas.
//! - **idle Sessions**: `REPLICAS_IDLE` Sessions created through the API on the first replica
//!   with a `self_hosted` Environment and no input (the spec allows that: no Turn runs), after
//!   a warm-up of 200; the RSS (`VmRSS`) of that serve process before and after, per Session.

// A bench stops loudly on a failed setup.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderValue, StatusCode};
use axum::response::IntoResponse;
use bytes::Bytes;
use serde_json::json;
use support::{Sse, env_usize};
use switchboard_mock_model::{MockConfig, MockModel};

// This bench starts `switchboard serve` processes, not in-process Cores.
#[allow(dead_code)]
mod support;

const API_KEY: &str = "sk-sb-bench-replicas";
const CONCURRENCY: usize = 16;
/// Bound on any single wait: a start, a Turn, a readiness.
const WAIT: Duration = Duration::from_secs(120);
/// The `front_door` Agent.
const AGENT_BODY: &str = r#"{"model":"gpt-x","name":"bench","instructions":"Be brief.","tools":[{"type":"function","name":"get_weather","description":"Weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},{"type":"web_search","mode":"disabled"}]}"#;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(run());
}

async fn run() {
    let run = Duration::from_secs(env_usize("REPLICAS_RUN_SECS", 3) as u64);
    let idle = env_usize("REPLICAS_IDLE", 10_000);
    let calls = env_usize("REPLICAS_CALLS", 4).max(1);
    let model = MockModel::start(MockConfig::loopback())
        .await
        .expect("the mock model");
    let scratch = tempfile::Builder::new()
        .prefix("replicas-bench")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("scratch dir");
    let key_file = scratch.path().join("data.key");
    let http = reqwest::Client::new();
    println!(
        "replicas: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );

    let pg = switchboard_store::test_support::database_or_skip("replicas: PostgreSQL, 1").await;
    let pg3 = switchboard_store::test_support::database_or_skip("replicas: PostgreSQL, 3").await;
    let mut configs: Vec<(&str, usize, Option<String>)> = vec![("sqlite", 1, None)];
    if let (Some(one), Some(three)) = (&pg, &pg3) {
        configs.push(("postgres", 1, Some(one.url.clone())));
        configs.push(("postgres", 3, Some(three.url.clone())));
    }
    let mut rates = Vec::new();
    let mut memory = Vec::new();
    for (engine, n, url) in &configs {
        let label = format!("{engine}, {n} replica{}", if *n == 1 { "" } else { "s" });
        let dir = scratch.path().join(format!("{engine}-{n}"));
        let replicas: Vec<Replica> = (0..*n)
            .map(|i| {
                Replica::start(
                    &dir.join(format!("r{i}")),
                    url.as_deref(),
                    &key_file,
                    &model,
                )
            })
            .collect();
        for r in &replicas {
            r.wait_ready(&http).await;
        }

        memory.push((
            label.clone(),
            idle_sessions(&http, &replicas[0], idle).await,
        ));

        let created = post_once(&http, &replicas[0].url("/v1/agents"), AGENT_BODY.into()).await;
        assert_eq!(created.0, 201, "agent create: {:?}", created.1);
        let bare_create = bare(StatusCode::CREATED, created.1).await;
        let core: Vec<Target> = replicas
            .iter()
            .map(|r| Target::new(r.url("/v1/agents"), AGENT_BODY))
            .collect();
        let base = [Target::new(
            format!("http://{bare_create}/v1/agents"),
            AGENT_BODY,
        )];
        rates.push((
            label.clone(),
            "agent create",
            rate(&http, &core, 201, run).await,
            rate(&http, &base, 201, run).await,
        ));

        let mut answered = Vec::new();
        for r in &replicas {
            for _ in 0..calls {
                answered.push(answered_call(&http, r).await);
            }
        }
        let bare_accept = bare(StatusCode::ACCEPTED, Bytes::new()).await;
        let base: Vec<Target> = answered
            .iter()
            .map(|t| Target {
                url: t.url.replacen(
                    t.url.split('/').nth(2).unwrap_or_default(),
                    &bare_accept.to_string(),
                    1,
                ),
                body: t.body.clone(),
            })
            .collect();
        rates.push((
            label,
            "tool_result retry",
            rate(&http, &answered, 202, run).await,
            rate(&http, &base, 202, run).await,
        ));
        for r in replicas {
            r.stop();
        }
    }

    println!(
        "{:<21} {:<18} {:>11} {:>11} {:>6}",
        "configuration", "case", "core req/s", "bare req/s", "ratio"
    );
    for (label, case, core, bare) in rates {
        println!(
            "{label:<21} {case:<18} {core:>11.0} {bare:>11.0} {:>6.2}",
            core / bare
        );
    }
    println!(
        "{:<21} {:>14} {:>14} {:>16}",
        "configuration", "RSS before KiB", "RSS after KiB", "per idle Session"
    );
    for (label, (before, after)) in memory {
        println!(
            "{label:<21} {before:>14} {after:>14} {:>12.2} KiB",
            (after - before) as f64 / idle.max(1) as f64
        );
    }
    println!("replicas: load average at the end {}", load_average());
}

/// One `switchboard serve` process.
struct Replica {
    child: Child,
    root: String,
}

impl Replica {
    /// Starts serve with its data dir at `dir` and waits for its announced address.
    fn start(
        dir: &Path,
        database_url: Option<&str>,
        key_file: &Path,
        model: &MockModel,
    ) -> Replica {
        std::fs::create_dir_all(dir).expect("the replica's dir");
        let log = std::fs::File::create(dir.join("serve.log")).expect("the replica's log");
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        command
            .arg("serve")
            .args(["--listen", "127.0.0.1:0", "--no-install"])
            .arg("--data-dir")
            .arg(dir.join("data"))
            .arg("--data-key-file")
            .arg(key_file)
            .arg("--model-provider-url")
            .arg(format!("{}/v1", model.base_url()))
            .args(["--model-provider-key", "sk-bench"])
            .env("SWITCHBOARD_API_KEY", API_KEY)
            .env_remove("SWITCHBOARD_DATABASE_URL")
            .stdout(Stdio::piped())
            .stderr(log);
        if let Some(url) = database_url {
            command.arg("--database-url").arg(url);
        }
        let mut child = command.spawn().expect("starting switchboard serve");
        let stdout = child.stdout.take().expect("serve's stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads stdout to its end, so serve never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("Switchboard is listening at ") {
                    let _ = tx.send(url.trim_end_matches("/v1").to_owned());
                }
            }
        });
        let root = rx
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("serve did not start; see {}", dir.display()));
        Replica { child, root }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.root)
    }

    /// `/readyz` is 200 once the local Runtime has a usable Codex.
    async fn wait_ready(&self, http: &reqwest::Client) {
        let deadline = Instant::now() + WAIT;
        loop {
            let ready = http
                .get(self.url("/readyz"))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200);
            if ready {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{} never became ready",
                self.root
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The process's resident set, KiB.
    fn rss_kib(&self) -> i64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the replica's /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    /// SIGTERM (serve ends its harness processes), then waits for the exit.
    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request the rate loop sends again and again.
#[derive(Clone)]
struct Target {
    url: String,
    body: Bytes,
}

impl Target {
    fn new(url: String, body: &'static str) -> Target {
        Target {
            url,
            body: Bytes::from_static(body.as_bytes()),
        }
    }
}

fn api(http: &reqwest::Client, url: &str, body: Bytes) -> reqwest::RequestBuilder {
    http.post(url)
        .header("content-type", "application/json")
        .header("openai-beta", "agents=v1")
        .bearer_auth(API_KEY)
        .body(body)
}

async fn post_once(http: &reqwest::Client, url: &str, body: Bytes) -> (u16, Bytes) {
    let resp = api(http, url, body).send().await.expect("a request");
    let status = resp.status().as_u16();
    (status, resp.bytes().await.expect("a response body"))
}

/// Requests/second with `CONCURRENCY` keep-alive clients for `run`, client `i` sending
/// `targets[i % len]`; every answer must have `expect` status.
async fn rate(http: &reqwest::Client, targets: &[Target], expect: u16, run: Duration) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let tasks: Vec<_> = (0..CONCURRENCY)
        .map(|i| {
            let (http, done, target) = (
                http.clone(),
                done.clone(),
                targets[i % targets.len()].clone(),
            );
            tokio::spawn(async move {
                while start.elapsed() < run {
                    let (status, body) = post_once(&http, &target.url, target.body.clone()).await;
                    assert_eq!(status, expect, "{}: {body:?}", target.url);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("a client task");
    }
    done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

/// A handler answering every request with `status` and `bytes`, as Core would.
async fn bare(status: StatusCode, bytes: Bytes) -> SocketAddr {
    let app = Router::new().fallback(move || {
        let bytes = bytes.clone();
        async move {
            let mut r = (status, bytes).into_response();
            if status != StatusCode::ACCEPTED {
                r.headers_mut()
                    .insert("content-type", HeaderValue::from_static("application/json"));
            }
            r
        }
    });
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    addr
}

/// A Session on `replica` whose Turn called a function and got its result (202), run to
/// idle; the result's POST, to be sent again.
async fn answered_call(http: &reqwest::Client, replica: &Replica) -> Target {
    let body = json!({
        "environment": {"type": "none"},
        "agent": {
            "model": "gpt-bench",
            "instructions": "Answer briefly.",
            "tools": [{
                "type": "function",
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": false,
                },
            }],
        },
        "input": "What is the weather in Paris?",
        "stream": true,
    });
    let resp = api(
        http,
        &replica.url("/v1/agents/sessions"),
        body.to_string().into(),
    )
    .send()
    .await
    .expect("a streamed Session create");
    assert!(
        resp.status().is_success(),
        "streamed Session create: {}",
        resp.status()
    );
    let mut stream = Sse::new(resp, WAIT);
    let mut session = None;
    let action = loop {
        let (event, _) = stream.next().await;
        session = session.or_else(|| {
            event["session_id"]
                .as_str()
                .or(event["session"]["id"].as_str())
                .map(str::to_owned)
        });
        assert_ne!(event["type"], "agent.session.turn.failed", "{event}");
        if event["type"] == "agent.session.requires_action" {
            break event["session"]["required_actions"][0].clone();
        }
    };
    let session = session.expect("the stream named its Session");
    let result = json!({"events": [{
        "type": "agent.session.input.tool_result",
        "turn_id": action["turn_id"],
        "call_id": action["call_id"],
        "success": true,
        "output": "sunny",
    }]});
    let target = Target {
        url: replica.url(&format!("/v1/agents/sessions/{session}/events")),
        body: result.to_string().into(),
    };
    let (status, answer) = post_once(http, &target.url, target.body.clone()).await;
    assert_eq!(status, 202, "the first tool_result: {answer:?}");
    let mut completed = false;
    loop {
        let (event, _) = stream.next().await;
        assert_ne!(event["type"], "agent.session.turn.failed", "{event}");
        match event["type"].as_str().unwrap_or_default() {
            "agent.session.turn.completed" => completed = true,
            "agent.session.idle" if completed => return target,
            _ => {}
        }
    }
}

/// RSS of `replica` (KiB) before and after `n` Sessions without input are created on it.
async fn idle_sessions(http: &reqwest::Client, replica: &Replica, n: usize) -> (i64, i64) {
    let body: Bytes = json!({
        "environment": {"type": "self_hosted", "workspace_directory": "/srv/idle"},
        "agent": {"model": "gpt-bench", "instructions": "Answer briefly."},
    })
    .to_string()
    .into();
    let url = replica.url("/v1/agents/sessions");
    let create = |count: usize| {
        let (http, url, body) = (http.clone(), url.clone(), body.clone());
        async move {
            let next = Arc::new(AtomicU64::new(0));
            let tasks: Vec<_> = (0..CONCURRENCY)
                .map(|_| {
                    let (http, url, body, next) =
                        (http.clone(), url.clone(), body.clone(), next.clone());
                    tokio::spawn(async move {
                        while next.fetch_add(1, Ordering::Relaxed) < count as u64 {
                            let (status, answer) = post_once(&http, &url, body.clone()).await;
                            assert!(
                                status == 200 || status == 201,
                                "an idle Session create: {status} {answer:?}"
                            );
                        }
                    })
                })
                .collect();
            for t in tasks {
                t.await.expect("a create task");
            }
        }
    };
    create(200).await;
    let before = replica.rss_kib();
    create(n).await;
    (before, replica.rss_kib())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
