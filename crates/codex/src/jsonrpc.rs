//! JSON-RPC over JSONL stdio, as `codex app-server` speaks it.
//!
//! One JSON object per line in each direction; codex omits `"jsonrpc"`. Three kinds of traffic
//! share the pipe, and they are split here so the rest of the adapter never parses framing:
//! - responses to our requests, routed to the waiting caller by id;
//! - server → client requests (`item/tool/call`, approvals), which we must answer;
//! - notifications (`item/started`, `turn/completed`, …).
//!
//! Server requests and notifications go, in arrival order, to one unbounded [`Inbound`]
//! channel: codex must never block on us, and their relative order is what the Turn logic
//! relies on (a tool call request precedes its `item/completed`). A reader task owns stdout; when
//! the process exits the channel closes and every waiting request fails with
//! [`RpcError::Closed`]. The line framing and the table of waiting requests are the adapter
//! kit's ([`switchboard_adapter_kit::jsonl`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_adapter_kit::jsonl::{self, Answer, JsonLines, LineWriter};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;

/// A message codex sent us that is not a response.
#[derive(Debug, Clone)]
pub enum Inbound {
    /// A server → client request; answer it with [`Connection::respond`].
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum RpcError {
    #[error("codex closed the connection")]
    Closed,
    #[error("codex did not answer `{0}` in time")]
    Timeout(String),
    #[error("codex rejected `{method}`: {message}")]
    Rejected {
        method: String,
        code: i64,
        message: String,
        data: Value,
    },
    #[error("could not write to codex: {0}")]
    Write(String),
}

/// Our requests waiting for codex's responses, by JSON-RPC id.
type Pending = jsonl::Pending<i64, RpcError>;

/// The client side of one app-server connection.
pub struct Connection {
    stdin: LineWriter,
    next_id: AtomicI64,
    pending: Pending,
}

impl Connection {
    /// Starts the reader task and returns the connection with its inbound channel.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
    ) -> (Arc<Connection>, mpsc::UnboundedReceiver<Inbound>) {
        let pending = Pending::default();
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(read_loop(stdout, pending.clone(), tx));
        let connection = Connection {
            stdin: LineWriter::new(stdin),
            next_id: AtomicI64::new(1),
            pending,
        };
        (Arc::new(connection), rx)
    }

    /// Sends a request and waits for its response.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let Some(answer) = self.pending.register(id) else {
            return Err(RpcError::Closed);
        };
        self.write(&json!({"id": id, "method": method, "params": params}))
            .await?;
        match self.pending.wait(&id, answer, timeout).await {
            Answer::Answered(result) => result.map_err(|e| match e {
                RpcError::Rejected {
                    code,
                    message,
                    data,
                    ..
                } => RpcError::Rejected {
                    method: method.to_owned(),
                    code,
                    message,
                    data,
                },
                other => other,
            }),
            Answer::Closed => Err(RpcError::Closed),
            Answer::TimedOut => Err(RpcError::Timeout(method.to_owned())),
        }
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), RpcError> {
        let message = match params {
            Some(params) => json!({"method": method, "params": params}),
            None => json!({"method": method}),
        };
        self.write(&message).await
    }

    /// Answers a server request.
    pub async fn respond(&self, id: &Value, result: Value) -> Result<(), RpcError> {
        self.write(&json!({"id": id, "result": result})).await
    }

    /// Declines a server request we do not handle; codex carries on without it.
    pub async fn respond_error(
        &self,
        id: &Value,
        code: i64,
        message: &str,
    ) -> Result<(), RpcError> {
        self.write(&json!({"id": id, "error": {"code": code, "message": message}}))
            .await
    }

    async fn write(&self, message: &Value) -> Result<(), RpcError> {
        self.stdin.write(message).await.map_err(RpcError::Write)
    }
}

async fn read_loop(stdout: ChildStdout, pending: Pending, inbound: mpsc::UnboundedSender<Inbound>) {
    let mut lines = JsonLines::new(stdout, "codex");
    while let Some(message) = lines.next().await {
        dispatch(message, &pending, &inbound);
    }
    // EOF: fail everything still waiting, and refuse later requests.
    pending.close(|| RpcError::Closed);
}

fn dispatch(mut message: Value, pending: &Pending, inbound: &mpsc::UnboundedSender<Inbound>) {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = message.get("id").cloned();
    match (method, id) {
        (Some(method), Some(id)) => {
            let params = message
                .get_mut("params")
                .map(Value::take)
                .unwrap_or(Value::Null);
            let _ = inbound.send(Inbound::Request { id, method, params });
        }
        (Some(method), None) => {
            let params = message
                .get_mut("params")
                .map(Value::take)
                .unwrap_or(Value::Null);
            let _ = inbound.send(Inbound::Notification { method, params });
        }
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else { return };
            let Some(waiter) = pending.take(&id) else {
                return;
            };
            let outcome = match message.get_mut("error") {
                Some(error) => Err(RpcError::Rejected {
                    method: String::new(),
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    data: error
                        .get_mut("data")
                        .map(Value::take)
                        .unwrap_or(Value::Null),
                }),
                None => Ok(message
                    .get_mut("result")
                    .map(Value::take)
                    .unwrap_or(Value::Null)),
            };
            let _ = waiter.send(outcome);
        }
        (None, None) => tracing::warn!("codex wrote a message with neither method nor id"),
    }
}
