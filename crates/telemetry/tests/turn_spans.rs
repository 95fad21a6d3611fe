//! Each Turn's spans reach the sink as one batch when the Turn span ends, with everything under
//! it (and nothing around it); a span of that Turn ending later comes alone; propagation round
//! trips a `traceparent`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use switchboard_telemetry::{Telemetry, TurnSpanSink, adopt, traceparent};
use tracing_subscriber::layer::SubscriberExt;

type Kept = Arc<Mutex<Vec<(String, String, Value)>>>;

struct Collect(Kept);

impl TurnSpanSink for Collect {
    fn keep(&self, session_id: String, turn_id: String, otlp: String) -> BoxFuture<'static, ()> {
        let otlp = serde_json::from_str(&otlp).expect("the sink is given JSON text");
        self.0.lock().unwrap().push((session_id, turn_id, otlp));
        Box::pin(async {})
    }
}

fn names(otlp: &Value) -> Vec<String> {
    let mut out: Vec<String> = otlp["resourceSpans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["scopeSpans"].as_array().unwrap().iter())
        .flat_map(|s| s["spans"].as_array().unwrap().iter())
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

async fn batches(kept: &Kept, count: usize) -> Vec<(String, String, Value)> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let got = kept.lock().unwrap().clone();
        if got.len() >= count {
            return got;
        }
        assert!(tokio::time::Instant::now() < deadline, "only {got:?}");
        tokio::task::yield_now().await;
    }
}

/// A pipeline whose Turns' spans land in the returned list, installed as this thread's
/// subscriber until the guard drops (call it inside the runtime: the sink's task runs there).
fn collecting() -> (Telemetry, Kept, tracing::subscriber::DefaultGuard) {
    let telemetry = Telemetry::new(None).unwrap();
    let kept = Kept::default();
    telemetry.turns().attach(Arc::new(Collect(kept.clone())));
    let default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(telemetry.layer()));
    (telemetry, kept, default)
}

#[tokio::test]
async fn a_turns_spans_are_one_batch_and_a_late_one_comes_alone() {
    let (_telemetry, kept, _default) = collecting();

    let request = tracing::info_span!(target: "switchboard_test", "http.request");
    let turn = request.in_scope(
        || tracing::info_span!(target: "switchboard_test", "turn", session.id = "s", turn.id = "t"),
    );
    let dispatch = tracing::info_span!(target: "switchboard_test", parent: &turn, "turn.dispatch");
    let exchange =
        tracing::info_span!(target: "switchboard_test", parent: &dispatch, "jsonrpc.request");
    drop(exchange);
    drop(dispatch);
    // Not the Turn's: never handed over.
    drop(request.in_scope(|| tracing::info_span!(target: "switchboard_test", "other")));
    // Outside the filter (`switchboard*` targets): not traced at all.
    drop(tracing::info_span!(target: "sqlx", "query", session.id = "s", turn.id = "t"));
    drop(turn);
    let late = tracing::info_span!(target: "switchboard_test", "runtime.turn", session.id = "s", turn.id = "t");
    drop(late);
    drop(request);

    let got = batches(&kept, 2).await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[0].0.as_str(), got[0].1.as_str()), ("s", "t"));
    assert_eq!(
        names(&got[0].2),
        ["jsonrpc.request", "turn", "turn.dispatch"]
    );
    assert_eq!(names(&got[1].2), ["runtime.turn"]);
}

/// The nice values of this process's threads named `name` (Linux `/proc`).
fn nice_of_threads(name: &str) -> Vec<i64> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .unwrap_or_default()
                .trim()
                == name
        })
        .map(|t| {
            let stat = std::fs::read_to_string(t.path().join("stat")).unwrap();
            // After the parenthesised name: state is field 3 of the line, nice field 19.
            let rest = stat.rsplit_once(')').unwrap().1;
            rest.split_whitespace().nth(16).unwrap().parse().unwrap()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turns_spans_are_encoded_off_the_workers_at_the_lowest_priority() {
    let (_telemetry, kept, _default) = collecting();
    drop(tracing::info_span!(target: "switchboard_test", "turn", session.id = "s", turn.id = "t"));
    let got = batches(&kept, 1).await;
    assert_eq!(names(&got[0].2), ["turn"]);
    // The encoding thread is niced to 19; the runtime's own threads stay at 0. (Under `cargo
    // test` the other tests of this binary run beside this one, with keepers of their own.)
    let keepers = nice_of_threads("trace-keeper");
    assert!(
        !keepers.is_empty() && keepers.iter().all(|n| *n == 19),
        "{keepers:?}"
    );
    // Every worker that has named itself yet (one may still be starting: this flaked in CI
    // with one of the two listed).
    let workers = nice_of_threads("tokio-rt-worker");
    assert!(
        !workers.is_empty() && workers.iter().all(|n| *n == 0),
        "{workers:?}"
    );
}

#[tokio::test]
async fn a_span_adopts_a_traceparent_and_names_itself_by_one() {
    let telemetry = Telemetry::new(None).unwrap();
    let _default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(telemetry.layer()));
    let sent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let span = tracing::info_span!(target: "switchboard_test", "http.request");
    adopt(&span, sent, None);
    let own = traceparent(&span).unwrap();
    assert!(
        own.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-"),
        "{own}"
    );
    assert!(own.ends_with("-01") && own != sent, "{own}");

    // A malformed value is ignored: a trace of its own.
    let fresh = tracing::info_span!(target: "switchboard_test", "http.request");
    adopt(&fresh, "00-zz-zz-01", None);
    assert!(
        !traceparent(&fresh)
            .unwrap()
            .contains("4bf92f3577b34da6a3ce929d0e0e4736")
    );
    // Without the layer there is nothing to name.
    drop(_default);
    assert_eq!(traceparent(&tracing::info_span!("untraced")), None);
}
