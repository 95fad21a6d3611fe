//! Streamed replies per second: a 200-token text answer in 50 deltas over OpenAI Responses SSE.
//!
//! The mock serves from a tokio current-thread runtime on its own OS thread, so it gets one
//! core; the client runs on another thread. As a baseline, a bare axum handler on an identical
//! runtime returns the very same SSE bytes (same frames, same chunked transfer) without
//! parsing, matching, rendering or journaling; the ratio says what the mock's own work costs.
//! The target is ≥ 2,000 replies/s: the mock must never be what limits an end-to-end run.
//!
//! `cargo bench -p switchboard-mock-model` (set `BENCH_REQUESTS` to change the request count).

// A bench stops loudly on a failed setup.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;
use axum::body::{Body, Bytes};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::Response;
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};
use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario, count_tokens};
use tokio::sync::oneshot;

const TOKENS: u64 = 200;
const DELTAS: u32 = 50;
/// Concurrent in-flight requests in the concurrent phase.
const CONCURRENCY: usize = 8;
/// Measurement rounds per mode, alternating mock and baseline.
const ROUNDS: usize = 8;
/// A bound on each phase, whatever the request count: the bench always stops by itself.
const PHASE_DEADLINE: Duration = Duration::from_secs(60);

fn main() -> anyhow::Result<()> {
    let requests: usize = std::env::var("BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let text: String = (0..TOKENS)
        .map(|i| format!("tok{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(count_tokens(&text), TOKENS);
    let request = json!({"model": "gpt-bench", "stream": true, "input": "Say 200 tokens."});

    let scenario = Scenario::new(vec![Rule::from(Reply::text(text.clone()).deltas(DELTAS))]);
    let mock = ServerThread::spawn(move || async move {
        let model = MockModel::start(MockConfig::loopback().with_scenario(scenario)).await?;
        Ok((model.local_addr(), model))
    })?;

    let client_runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let client = reqwest::Client::new();
    let mock_url = format!("http://{}/v1/responses", mock.addr);

    // The bytes the mock sends are the baseline's canned reply.
    let reference = client_runtime.block_on(fetch(&client, &mock_url, &request))?;
    let events = frames(&reference);
    let deltas = count_occurrences(&reference, b"event: response.output_text.delta\n");
    assert_eq!(deltas, DELTAS as usize);
    let baseline = {
        let canned = reference.clone();
        ServerThread::spawn(move || async move { bare_axum(canned).await })?
    };
    let baseline_url = format!("http://{}/v1/responses", baseline.addr);

    println!(
        "streamed replies: {TOKENS}-token text in {DELTAS} deltas, {events} SSE events, {} bytes per reply",
        reference.len()
    );
    println!("server: tokio current-thread runtime on one thread; client on another thread");
    println!(
        "{:<11} {:>11} {:>9} {:>12} {:>14} {:>7}",
        "mode", "concurrency", "requests", "mock/s", "bare axum/s", "ratio"
    );
    for (mode, concurrency) in [("sequential", 1), ("concurrent", CONCURRENCY)] {
        let run = |url: &str, n: usize| {
            client_runtime.block_on(measure(&client, url, &request, &reference, n, concurrency))
        };
        // Warm both servers (connections, allocator) before measuring.
        run(&mock_url, 200)?;
        run(&baseline_url, 200)?;
        // Alternate short rounds, so load from anything else on the machine hits both alike.
        let (mut mock_time, mut bare_time) = (Duration::ZERO, Duration::ZERO);
        let per_round = requests.div_ceil(ROUNDS);
        for _ in 0..ROUNDS {
            mock_time += run(&mock_url, per_round)?;
            bare_time += run(&baseline_url, per_round)?;
        }
        let total = (per_round * ROUNDS) as f64;
        let (mock_rate, bare_rate) = (
            total / mock_time.as_secs_f64(),
            total / bare_time.as_secs_f64(),
        );
        println!(
            "{mode:<11} {concurrency:>11} {:>9} {mock_rate:>12.0} {bare_rate:>14.0} {:>7.2}",
            per_round * ROUNDS,
            mock_rate / bare_rate
        );
    }
    drop(mock);
    drop(baseline);
    Ok(())
}

/// The time taken by `requests` streamed requests, `concurrency` at a time. Every reply is
/// read to the end and checked against the reference's frame count.
async fn measure(
    client: &reqwest::Client,
    url: &str,
    request: &Value,
    reference: &Bytes,
    requests: usize,
    concurrency: usize,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let results: Vec<anyhow::Result<()>> = futures::stream::iter(0..requests)
        .map(|_| async {
            let body = fetch(client, url, request).await?;
            // Ids carry the request number, so compare the frame count, not the bytes.
            anyhow::ensure!(frames(&body) == frames(reference), "unexpected reply");
            anyhow::ensure!(body.ends_with(b"\n\n"), "unterminated stream");
            Ok(())
        })
        .buffer_unordered(concurrency)
        .take_until(tokio::time::sleep(PHASE_DEADLINE))
        .collect()
        .await;
    let elapsed = started.elapsed();
    anyhow::ensure!(results.len() == requests, "phase deadline reached");
    results.into_iter().collect::<anyhow::Result<()>>()?;
    Ok(elapsed)
}

async fn fetch(client: &reqwest::Client, url: &str, request: &Value) -> anyhow::Result<Bytes> {
    let response = client.post(url).json(request).send().await?;
    anyhow::ensure!(
        response.status().is_success(),
        "status {}",
        response.status()
    );
    Ok(response.bytes().await?)
}

/// The baseline: an axum handler that reads the request and streams back canned frames.
async fn bare_axum(canned: Bytes) -> anyhow::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    use axum::serve::ListenerExt;
    let frames: Vec<Bytes> = split_frames(&canned);
    let app = axum::Router::new().route(
        "/v1/responses",
        post(move |_body: Bytes| {
            let frames = frames.clone();
            async move {
                let stream = futures::stream::iter(frames.into_iter().map(Ok::<_, std::io::Error>));
                Response::builder()
                    .header(CONTENT_TYPE, "text/event-stream")
                    .header(CACHE_CONTROL, "no-cache")
                    .body(Body::from_stream(stream))
                    .expect("static response")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    // Same socket option as the mock, so only the handlers differ.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((addr, server))
}

fn split_frames(body: &Bytes) -> Vec<Bytes> {
    let mut frames = Vec::new();
    let mut start = 0;
    for end in 1..body.len() {
        if &body[end - 1..=end] == b"\n\n" {
            frames.push(body.slice(start..=end));
            start = end + 1;
        }
    }
    frames
}

/// SSE frames in a body: each ends with a blank line.
fn frames(body: &[u8]) -> usize {
    count_occurrences(body, b"\n\n")
}

fn count_occurrences(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// A server on its own OS thread with a current-thread runtime: one core, no work stealing.
struct ServerThread {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ServerThread {
    fn spawn<F, Fut, G>(start: F) -> anyhow::Result<Self>
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = anyhow::Result<(SocketAddr, G)>>,
        G: 'static,
    {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                match start().await {
                    Ok((addr, guard)) => {
                        let _ = ready_tx.send(Ok(addr));
                        let _ = stop_rx.await;
                        drop(guard);
                    }
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                    }
                }
            });
        });
        let addr = ready_rx.recv().context("server thread died")??;
        Ok(ServerThread {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

impl Drop for ServerThread {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
