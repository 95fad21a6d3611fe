//! Priming a warm process: one throwaway Turn, against a loopback sink, before any Session.
//!
//! A fresh app-server pays, on the first Turn of its first persisted thread, for setting up its
//! home's persistence (the rollout writer, the state databases): measured on codex 0.171.0, the
//! first Turn of a process reached its model request 15–25 ms later than later Turns of the same
//! process, and its first `thread/start` took 20–25 ms against 10–15 ms (`docs/benchmarks.md`,
//! issue 18). An ephemeral thread, or a persisted one with no Turn, does not pay it; a
//! persisted thread with one Turn does. So a warm process runs exactly that once, while it
//! belongs to no Session:
//!
//! - the thread is persisted, and its provider is a [`Sink`] of the adapter's own on loopback
//!   (a per-thread `config` override), never the Session's provider: no provider key is set for
//!   it and nothing leaves the machine;
//! - the Turn's one model request gets an empty completed response, so the Turn ends at once;
//! - the thread is then deleted (`thread/delete` removes its rollout), and every notification it
//!   left in the inbound channel is drained, so the Session bound later sees no trace of it.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use switchboard_protocol::InputPart;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::launch::{CONTROL_TIMEOUT, CodexProcess, StateLayout};
use crate::resume::thread_id_of;
use crate::turn::user_input;
use crate::workspace::place_params;

/// The primer thread's provider id (`model_providers.<id>` in its `config`).
const PROVIDER_ID: &str = "switchboard_primer";

/// How long the primer Turn may take: it makes one loopback request.
const PRIMER_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum PrimeError {
    #[error("cannot serve the primer's model on loopback: {0}")]
    Sink(#[from] std::io::Error),
    #[error("{0}")]
    Rpc(#[from] crate::jsonrpc::RpcError),
    #[error("{method} returned no {what}")]
    Answer {
        method: &'static str,
        what: &'static str,
    },
    #[error("the primer Turn did not end within {0:?}")]
    Timeout(Duration),
    #[error("codex exited during the primer Turn")]
    Exited,
    #[error("the primer Turn ended {0}, not completed")]
    NotCompleted(String),
    #[error("the primer Turn made no model request")]
    NoRequest,
}

/// Runs the primer Turn on `process`, whose home is `layout`'s; on success the process is as
/// initialized as one that has run a Turn, with no thread of the primer's left and nothing of it
/// in its inbound channel.
pub async fn prime(process: &mut CodexProcess, layout: &StateLayout) -> Result<(), PrimeError> {
    let sink = Sink::start().await?;
    let connection = &process.connection;
    let started = connection
        .request(
            "thread/start",
            primer_thread_params(layout, sink.addr),
            CONTROL_TIMEOUT,
        )
        .await?;
    let thread_id = thread_id_of(&started).ok_or(PrimeError::Answer {
        method: "thread/start",
        what: "thread id",
    })?;
    let input = user_input(&[InputPart::InputText { text: ".".into() }]);
    connection
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": input}),
            CONTROL_TIMEOUT,
        )
        .await?;
    let ended = tokio::time::timeout(PRIMER_TIMEOUT, turn_completed(process, &thread_id))
        .await
        .map_err(|_| PrimeError::Timeout(PRIMER_TIMEOUT))??;
    if ended != "completed" {
        return Err(PrimeError::NotCompleted(ended));
    }
    // A Turn that never asked the model would have set up nothing a Session's first Turn uses.
    if sink.requests() == 0 {
        return Err(PrimeError::NoRequest);
    }
    process
        .connection
        .request(
            "thread/delete",
            json!({"threadId": thread_id}),
            CONTROL_TIMEOUT,
        )
        .await?;
    // The reader routes lines in order, so everything codex wrote before the delete's answer is
    // in the channel by now.
    while process.inbound.try_recv().is_ok() {}
    Ok(())
}

/// The primer thread: the same place as an `environment: none` Session's, persisted, on the
/// sink's provider (no `env_key`: codex sends no key to it).
fn primer_thread_params(layout: &StateLayout, sink: SocketAddr) -> Value {
    let mut params = place_params(layout, None);
    params["ephemeral"] = json!(false);
    params["modelProvider"] = json!(PROVIDER_ID);
    params["config"] = json!({
        format!("model_providers.{PROVIDER_ID}"): {
            "name": "Switchboard primer",
            "base_url": format!("http://{sink}/v1"),
            "wire_api": "responses",
            "request_max_retries": 0,
            "stream_max_retries": 0,
        }
    });
    params
}

/// Reads the inbound channel until the primer thread's Turn ends, and returns its status.
/// Nothing in the primer asks the client anything; a request is refused.
async fn turn_completed(process: &mut CodexProcess, thread_id: &str) -> Result<String, PrimeError> {
    use crate::jsonrpc::Inbound;
    loop {
        match process.inbound.recv().await.ok_or(PrimeError::Exited)? {
            Inbound::Request { id, method, .. } => {
                let message = format!("{method} is not served during priming");
                process
                    .connection
                    .respond_error(&id, -32601, &message)
                    .await?;
            }
            Inbound::Notification { method, params } => {
                let ours = params.get("threadId").and_then(Value::as_str) == Some(thread_id);
                if ours && method == "turn/completed" {
                    let status = params.pointer("/turn/status").and_then(Value::as_str);
                    return Ok(status.unwrap_or("without a status").to_owned());
                }
            }
        }
    }
}

/// The primer's model provider: a loopback HTTP server that answers every Responses request
/// with an empty completed response (and a model list with an empty one). Every answer closes
/// its connection, so no connection of codex's pool outlives the sink, which ends when dropped.
struct Sink {
    addr: SocketAddr,
    requests: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl Sink {
    async fn start() -> std::io::Result<Sink> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        let app = Router::new().fallback(move |method: Method| {
            counted.fetch_add(1, Ordering::Relaxed);
            async move { answer(&method) }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Sink {
            addr,
            requests,
            task,
        })
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn answer(method: &Method) -> Response {
    if method == Method::GET {
        return (
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::CONNECTION, "close"),
            ],
            r#"{"object":"list","data":[]}"#,
        )
            .into_response();
    }
    let usage = json!({
        "input_tokens": 0, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 0, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 0,
    });
    let events = [
        json!({"type": "response.created", "response": {"id": "resp_primer"}}),
        json!({"type": "response.completed", "response": {"id": "resp_primer", "usage": usage}}),
    ];
    let body: String = events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap_or("")
            )
        })
        .collect();
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CONNECTION, "close"),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The primer thread is persisted (an ephemeral one sets up nothing), on the sink's
    /// provider, with no key for codex to send there.
    #[test]
    fn the_primer_thread_is_persisted_on_the_sink_without_a_key() {
        let layout = StateLayout::new("/tmp/warm-1".into());
        let sink: SocketAddr = "127.0.0.1:4242".parse().unwrap();
        let params = primer_thread_params(&layout, sink);
        assert_eq!(params["ephemeral"], json!(false));
        assert_eq!(params["modelProvider"], json!(PROVIDER_ID));
        let provider = &params["config"][format!("model_providers.{PROVIDER_ID}")];
        assert_eq!(provider["base_url"], json!("http://127.0.0.1:4242/v1"));
        assert!(provider.get("env_key").is_none(), "{provider}");
        assert_eq!(params["cwd"], json!(layout.work_dir()));
    }

    /// The sink answers a Responses request with a completed, empty response, and closes.
    #[tokio::test]
    async fn the_sink_answers_an_empty_completed_response() {
        let sink = Sink::start().await.unwrap();
        let mut stream = tokio::net::TcpStream::connect(sink.addr).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let request = "POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}";
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("text/event-stream"), "{answer}");
        let created = answer.find("event: response.created").unwrap();
        let completed = answer.find("event: response.completed").unwrap();
        assert!(created < completed, "{answer}");
        assert_eq!(sink.requests(), 1);
    }
}
