//! Front-door throughput: requests/second for Agent create and for a rejected bad body, each
//! against a bare axum handler that returns the same bytes, measured in the same run, on the
//! embedded SQLite store and on PostgreSQL (the store's throwaway test cluster).
//!
//! Run with `cargo bench -p switchboard-core --bench front_door`. Both servers and the load
//! generator share this machine, so only the ratios are meaningful; they are what the
//! foundation issue and issue 16 target (≥ 0.5 of the bare handler for both, on SQLite).
//! Without PostgreSQL binaries the PostgreSQL rows are skipped loudly (an error under `CI`).
//!
//! The bench installs the subscriber `switchboard serve` installs (log lines at `warn`, and the
//! trace pipeline that turns every request's `http.request` span into an OpenTelemetry span),
//! so Core's per-request tracing is in its figures; `FRONT_DOOR_SUBSCRIBER=none` leaves it out,
//! to measure what the tracing costs. `FRONT_DOOR_CONCURRENCY` (16) and `FRONT_DOOR_SECS` (3)
//! set the clients and the time per rate; `FRONT_DOOR_STORES=sqlite` skips PostgreSQL.

// A bench stops loudly on a failed setup.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use switchboard_core::secrets::SecretBox;
use switchboard_core::{AppState, CoreConfig, auth, router};
use switchboard_execution::HarnessId;
use switchboard_store::{PgStore, SqliteStore, Store};

/// The allocator `switchboard serve` runs with, so Core here allocates as it does there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const KEY: &str = "sk-sb-bench";
/// Keep-alive clients at once (`FRONT_DOOR_CONCURRENCY`).
fn concurrency() -> usize {
    env_or("FRONT_DOOR_CONCURRENCY", 16)
}

/// How long each rate is measured (`FRONT_DOOR_SECS`).
fn run_for() -> Duration {
    Duration::from_secs(env_or("FRONT_DOOR_SECS", 3) as u64)
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const CREATE_BODY: &str = r#"{"model":"gpt-x","name":"bench","instructions":"Be brief.","tools":[{"type":"function","name":"get_weather","description":"Weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},{"type":"web_search","mode":"disabled"}]}"#;
const BAD_BODY: &str = r#"{"model":"gpt-x","tools":[{"type":"tool_search","type":"tool_search"}]}"#;

type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

async fn serve(app: Router) -> SocketAddr {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    addr
}

fn request(addr: SocketAddr, body: &'static str) -> hyper::Request<Full<Bytes>> {
    hyper::Request::post(format!("http://{addr}/v1/agents"))
        .header("content-type", "application/json")
        .header("openai-beta", "agents=v1")
        .header("authorization", format!("Bearer {KEY}"))
        .body(Full::new(Bytes::from_static(body.as_bytes())))
        .unwrap()
}

async fn once(client: &HttpClient, addr: SocketAddr, body: &'static str) -> (u16, Bytes) {
    let resp = client.request(request(addr, body)).await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.into_body().collect().await.unwrap().to_bytes())
}

/// One measured window: its rate and its requests' latencies.
struct Window {
    per_sec: f64,
    p50: Duration,
    p99: Duration,
}

/// Requests/second with [`concurrency`] keep-alive clients for [`run_for`], and the latency
/// percentiles of those requests; every answer must have `expect` status.
async fn rate(client: &HttpClient, addr: SocketAddr, body: &'static str, expect: u16) -> Window {
    let start = Instant::now();
    let mut tasks = Vec::new();
    let run = run_for();
    for _ in 0..concurrency() {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let mut took = Vec::new();
            while start.elapsed() < run {
                let sent = Instant::now();
                let (status, _) = once(&client, addr, body).await;
                assert_eq!(status, expect);
                took.push(sent.elapsed());
            }
            took
        }));
    }
    let mut took = Vec::new();
    for t in tasks {
        took.extend(t.await.unwrap());
    }
    let per_sec = took.len() as f64 / start.elapsed().as_secs_f64();
    took.sort_unstable();
    let at = |q: f64| took[((took.len() - 1) as f64 * q) as usize];
    Window {
        per_sec,
        p50: at(0.50),
        p99: at(0.99),
    }
}

/// A handler that answers every POST with fixed bytes, the way Core would.
fn bare(status: StatusCode, bytes: Bytes) -> Router {
    Router::new().route(
        "/v1/agents",
        post(move || {
            let bytes = bytes.clone();
            async move {
                let mut r = (status, bytes).into_response();
                r.headers_mut()
                    .insert("content-type", HeaderValue::from_static("application/json"));
                r
            }
        }),
    )
}

/// Core on `store`, with the bench's key.
async fn core_on(store: Arc<dyn Store>, data_dir: &std::path::Path) -> SocketAddr {
    auth::bootstrap(store.as_ref(), Some(KEY), 0).await.unwrap();
    let state = Arc::new(AppState::new(
        store,
        SecretBox::from_key(&[1u8; 32]).unwrap(),
        CoreConfig {
            data_dir: data_dir.to_owned(),
            default_harness: HarnessId::Codex,
            runtime_token: None,
            public_url: "http://127.0.0.1:9".into(),
            reservation_deadline: switchboard_core::state::RESERVATION_DEADLINE,
            preparation_timeout: switchboard_core::state::PREPARATION_TIMEOUT,
        },
        None,
    ));
    serve(router(state)).await
}

/// Both rows for the Core at `core`: (case, core req/s, bare req/s), the bare handlers
/// answering the bytes this Core answered.
async fn rows(client: &HttpClient, core: SocketAddr) -> Vec<(&'static str, Window, Window)> {
    let (s, created) = once(client, core, CREATE_BODY).await;
    assert_eq!(s, 201);
    let (s, rejected) = once(client, core, BAD_BODY).await;
    assert_eq!(s, 400);
    let bare_create = serve(bare(StatusCode::CREATED, created)).await;
    let bare_reject = serve(bare(StatusCode::BAD_REQUEST, rejected)).await;
    vec![
        (
            "agent create",
            rate(client, core, CREATE_BODY, 201).await,
            rate(client, bare_create, CREATE_BODY, 201).await,
        ),
        (
            "rejected bad body",
            rate(client, core, BAD_BODY, 400).await,
            rate(client, bare_reject, BAD_BODY, 400).await,
        ),
    ]
}

fn main() {
    let telemetry = (std::env::var("FRONT_DOOR_SUBSCRIBER").as_deref() != Ok("none"))
        .then(|| switchboard_telemetry::Telemetry::new(None).unwrap());
    if let Some(t) = &telemetry {
        switchboard_telemetry::Telemetry::install(Some(t), "warn");
    }
    println!(
        "subscriber: {}",
        if telemetry.is_some() {
            "serve's"
        } else {
            "none"
        }
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
        let dir = tempfile::tempdir().unwrap();
        let sqlite = SqliteStore::open(&dir.path().join("bench.sqlite"))
            .await
            .unwrap();
        let core = core_on(Arc::new(sqlite), dir.path()).await;
        let mut table: Vec<(&str, &str, Window, Window)> = rows(&client, core)
            .await
            .into_iter()
            .map(|(case, c, b)| ("sqlite", case, c, b))
            .collect();

        // `FRONT_DOOR_STORES=sqlite`: the SQLite rows only (a quicker look while tuning).
        let pg = if std::env::var("FRONT_DOOR_STORES").as_deref() == Ok("sqlite") {
            None
        } else {
            switchboard_store::test_support::database_or_skip("front_door postgres").await
        };
        if let Some(db) = &pg {
            let store = PgStore::open(&db.url).await.unwrap();
            let pg_dir = tempfile::tempdir().unwrap();
            let core = core_on(Arc::new(store), pg_dir.path()).await;
            table.extend(
                rows(&client, core)
                    .await
                    .into_iter()
                    .map(|(case, c, b)| ("postgres", case, c, b)),
            );
        }
        println!(
            "{:<9} {:<20} {:>12} {:>12} {:>7} {:>22} {:>22}",
            "store",
            "case",
            "core req/s",
            "bare req/s",
            "ratio",
            "core p50 / p99 ms",
            "bare p50 / p99 ms"
        );
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        for (store, name, core, bare) in table {
            println!(
                "{store:<9} {name:<20} {:>12.0} {:>12.0} {:>7.2} {:>22} {:>22}",
                core.per_sec,
                bare.per_sec,
                core.per_sec / bare.per_sec,
                format!("{:.2} / {:.2}", ms(core.p50), ms(core.p99)),
                format!("{:.2} / {:.2}", ms(bare.p50), ms(bare.p99)),
            );
        }
    });
}
