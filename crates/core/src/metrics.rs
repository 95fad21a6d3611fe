//! Prometheus metrics: the names of the series Core records, the HTTP layer that counts
//! requests, and the `/metrics` endpoint.
//!
//! Every crate records through the `metrics` facade, so none depends on Core for it (the Runtime
//! records its own process figures); the binary installs the Prometheus recorder and hands Core
//! its render function ([`Exposition`]). Without a recorder every record is a no-op.
//!
//! `/metrics` is never authorised by a Project key: on the main listener it answers only the
//! deployment's metrics token (`serve --metrics-token`), and with `--metrics-listen` it is served
//! on that listener alone ([`listener`]). With neither it is an unknown path.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use switchboard_wire::error::{ApiError, ErrorCode};

use crate::edge::Failure;
use crate::state::AppState;

/// HTTP requests by route template, method and status.
pub const HTTP_REQUESTS: &str = "switchboard_http_requests_total";
/// Time to the response's head, by route template, method and status.
pub const HTTP_DURATION: &str = "switchboard_http_request_duration_seconds";
/// Sessions by status (read from the store at each scrape).
pub const SESSIONS: &str = "switchboard_sessions";
/// Pending required actions over every Session (read from the store at each scrape).
pub const REQUIRED_ACTIONS: &str = "switchboard_required_actions_pending";
/// Root Turns bound to a Runtime (`in_progress`), by harness.
pub const TURNS_STARTED: &str = "switchboard_turns_started_total";
pub const TURNS_COMPLETED: &str = "switchboard_turns_completed_total";
pub const TURNS_FAILED: &str = "switchboard_turns_failed_total";
pub const TURNS_CANCELLED: &str = "switchboard_turns_cancelled_total";
/// From a Turn's creation (`queued`) to its start on a Runtime, by harness.
pub const QUEUE_WAIT: &str = "switchboard_turn_queue_wait_seconds";
/// From a `tool_result` batch's arrival to its admission being durable and sent on.
pub const TOOL_RESULT_ADMISSION: &str = "switchboard_tool_result_admission_seconds";
/// Runtime links attached to this Core, by kind (`local`, `deployment`, `environment`).
pub const RUNTIME_LINKS: &str = "switchboard_runtime_links";
/// Store operations as Core calls them, by operation.
pub const STORE_DURATION: &str = "switchboard_store_operation_duration_seconds";
/// Open Session event streams.
pub const SSE_SUBSCRIBERS: &str = "switchboard_sse_subscribers";
/// Event streams ended because their reader fell too far behind (`stream_interrupted`).
pub const SSE_INTERRUPTED: &str = "switchboard_sse_interrupted_total";

/// The 401 of `/metrics` without the metrics token.
pub const METRICS_TOKEN_REQUIRED: &str = "A valid metrics token is required.";

/// The label of a request no route matched: raw paths (with IDs) never become labels.
const UNMATCHED: &str = "unmatched";

/// How `/metrics` is served: the render function of the installed recorder, and the token the
/// main listener asks for (`None`: only the separate listener serves it).
#[derive(Clone)]
pub struct Exposition {
    pub render: Arc<dyn Fn() -> String + Send + Sync>,
    pub token: Option<String>,
}

impl std::fmt::Debug for Exposition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exposition")
            .field("token", &self.token.as_ref().map(|_| "…"))
            .finish_non_exhaustive()
    }
}

/// Counts every request by its route template (axum's [`MatchedPath`]) and status, with its
/// latency to the response head (an event stream's body is not waited for).
pub async fn track_http(req: Request, next: Next) -> Response {
    let started = Instant::now();
    // A nested router's fallback matches a private catch-all template: that is no route.
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(MatchedPath::as_str)
        .filter(|p| !p.contains("__private__"))
        .unwrap_or(UNMATCHED)
        .to_owned();
    let method = req.method().as_str().to_owned();
    let resp = next.run(req).await;
    let labels = [
        ("route", route),
        ("method", method),
        ("status", resp.status().as_u16().to_string()),
    ];
    metrics::counter!(HTTP_REQUESTS, &labels).increment(1);
    metrics::histogram!(HTTP_DURATION, &labels).record(started.elapsed().as_secs_f64());
    resp
}

/// Awaits one store operation, recording its latency under `operation`.
pub async fn timed<T>(operation: &'static str, op: impl Future<Output = T>) -> T {
    let started = Instant::now();
    let out = op.await;
    metrics::histogram!(STORE_DURATION, "operation" => operation)
        .record(started.elapsed().as_secs_f64());
    out
}

/// The `/metrics` route of the main listener: the metrics token only, never a Project key.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new().route("/metrics", get(guarded))
}

/// The router of `--metrics-listen`: `/metrics` to anyone who can reach that address.
pub fn listener(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/metrics", get(open))
        .fallback(crate::edge::not_found)
        .with_state(state)
}

async fn guarded(State(state): State<Arc<AppState>>, req: Request) -> Response {
    let Some(exposition) = &state.metrics else {
        return Failure(ApiError::not_found()).into_response();
    };
    // Served on its own listener only: unknown here.
    let Some(expected) = exposition.token.as_deref() else {
        return Failure(ApiError::not_found()).into_response();
    };
    let presented = crate::auth::bearer(
        req.headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok()),
    );
    if !crate::runtime_link::token_matches(Some(expected), presented) {
        let refused = ApiError::new(ErrorCode::Unauthorized, None, METRICS_TOKEN_REQUIRED);
        let mut resp = Failure(refused).into_response();
        resp.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return resp;
    }
    render(&state, exposition).await
}

async fn open(State(state): State<Arc<AppState>>) -> Response {
    match &state.metrics {
        Some(exposition) => render(&state, exposition).await,
        None => Failure(ApiError::not_found()).into_response(),
    }
}

/// Refreshes the figures read at scrape time, then renders every series.
async fn render(state: &AppState, exposition: &Exposition) -> Response {
    refresh_sessions(state).await;
    let body = (exposition.render)();
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        body,
    )
        .into_response()
}

/// Sessions by status and pending required actions, counted by the store (so they hold across
/// restarts and replicas: every replica reports the same totals). A failed count leaves the
/// last figures and is logged.
async fn refresh_sessions(state: &AppState) {
    match timed("session_gauges", state.store.session_gauges()).await {
        Ok(gauges) => {
            for status in ["idle", "in_progress", "requires_action", "failed"] {
                let n = gauges
                    .by_status
                    .iter()
                    .find(|(s, _)| s == status)
                    .map_or(0, |(_, n)| *n);
                metrics::gauge!(SESSIONS, "status" => status).set(n as f64);
            }
            metrics::gauge!(REQUIRED_ACTIONS).set(gauges.required_actions as f64);
        }
        Err(e) => tracing::warn!(error = %e, "could not count Sessions for /metrics"),
    }
}

/// Records a durable Session change's Turn figures from the events it publishes: a Turn
/// bound to a Runtime (`in_progress`, with its wait since it was queued) and a Turn's end.
/// Called after the store write, so a rejected change counts nothing.
pub(crate) fn committed(
    doc: &crate::session::state::SessionDoc,
    published: &[crate::session::hub::Published],
) {
    let harness = doc.harness.as_str();
    for event in published {
        let name = match &*event.kind {
            "agent.session.turn.in_progress" => {
                if let Some(turn) = &doc.active {
                    let waited = match turn.queued_at {
                        Some(at) => at.elapsed().as_secs_f64(),
                        // Queued by an earlier run of this process: whole seconds are known.
                        None => turn
                            .turn
                            .started_at
                            .map_or(0, |s| s.saturating_sub(turn.turn.created_at))
                            as f64,
                    };
                    metrics::histogram!(QUEUE_WAIT, "harness" => harness).record(waited);
                }
                TURNS_STARTED
            }
            "agent.session.turn.completed" => TURNS_COMPLETED,
            "agent.session.turn.failed" => TURNS_FAILED,
            "agent.session.turn.cancelled" => TURNS_CANCELLED,
            _ => continue,
        };
        metrics::counter!(name, "harness" => harness).increment(1);
    }
}

/// The `# HELP` lines of Core's series.
pub fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        HTTP_REQUESTS,
        "HTTP requests by route template, method and status."
    );
    describe_histogram!(
        HTTP_DURATION,
        "Seconds to the response head, by route, method and status."
    );
    describe_gauge!(
        SESSIONS,
        "Sessions by status (a store count at scrape time)."
    );
    describe_gauge!(
        REQUIRED_ACTIONS,
        "Required actions pending over every Session."
    );
    describe_counter!(TURNS_STARTED, "Turns started on a Runtime, by harness.");
    describe_counter!(TURNS_COMPLETED, "Turns completed, by harness.");
    describe_counter!(TURNS_FAILED, "Turns failed, by harness.");
    describe_counter!(TURNS_CANCELLED, "Turns cancelled, by harness.");
    describe_histogram!(
        QUEUE_WAIT,
        "Seconds a Turn waited queued before it started, by harness."
    );
    describe_histogram!(
        TOOL_RESULT_ADMISSION,
        "Seconds from a tool_result batch's arrival to its durable admission."
    );
    describe_gauge!(RUNTIME_LINKS, "Runtime links attached, by kind.");
    describe_histogram!(STORE_DURATION, "Seconds per store operation, by operation.");
    describe_gauge!(SSE_SUBSCRIBERS, "Open Session event streams.");
    describe_counter!(
        SSE_INTERRUPTED,
        "Event streams ended because their reader fell too far behind."
    );
    // Every harness's Turn counters exist from the start, so a rate over them has a first
    // sample before the first Turn.
    for harness in switchboard_execution::HarnessId::ALL {
        for name in [
            TURNS_STARTED,
            TURNS_COMPLETED,
            TURNS_FAILED,
            TURNS_CANCELLED,
        ] {
            metrics::counter!(name, "harness" => harness.as_str()).increment(0);
        }
    }
}
