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
//! [`RpcError::Closed`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};

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

type Pending = Arc<Mutex<Option<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>>>;

/// The client side of one app-server connection.
pub struct Connection {
    stdin: tokio::sync::Mutex<ChildStdin>,
    next_id: AtomicI64,
    /// `None` once the reader saw EOF: later requests fail at once instead of hanging.
    pending: Pending,
}

impl Connection {
    /// Starts the reader task and returns the connection with its inbound channel.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
    ) -> (Arc<Connection>, mpsc::UnboundedReceiver<Inbound>) {
        let pending: Pending = Arc::new(Mutex::new(Some(HashMap::new())));
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(read_loop(stdout, pending.clone(), tx));
        let connection = Connection {
            stdin: tokio::sync::Mutex::new(stdin),
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
        let (tx, rx) = oneshot::channel();
        {
            let mut guard = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            let Some(map) = guard.as_mut() else {
                return Err(RpcError::Closed);
            };
            map.insert(id, tx);
        }
        self.write(&json!({"id": id, "method": method, "params": params}))
            .await?;
        let outcome = tokio::time::timeout(timeout, rx).await;
        match outcome {
            Ok(Ok(result)) => result.map_err(|e| match e {
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
            Ok(Err(_)) => Err(RpcError::Closed),
            Err(_) => {
                self.forget(id);
                Err(RpcError::Timeout(method.to_owned()))
            }
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

    fn forget(&self, id: i64) {
        if let Some(map) = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            map.remove(&id);
        }
    }

    async fn write(&self, message: &Value) -> Result<(), RpcError> {
        let mut line = serde_json::to_vec(message).map_err(|e| RpcError::Write(e.to_string()))?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        stdin
            .write_all(&line)
            .await
            .map_err(|e| RpcError::Write(e.to_string()))?;
        stdin
            .flush()
            .await
            .map_err(|e| RpcError::Write(e.to_string()))
    }
}

async fn read_loop(stdout: ChildStdout, pending: Pending, inbound: mpsc::UnboundedSender<Inbound>) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "codex wrote a line that is not JSON");
                continue;
            }
        };
        dispatch(message, &pending, &inbound);
    }
    // EOF: fail everything still waiting, and refuse later requests.
    if let Some(map) = pending.lock().unwrap_or_else(|e| e.into_inner()).take() {
        for (_, waiter) in map {
            let _ = waiter.send(Err(RpcError::Closed));
        }
    }
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
            let waiter = pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_mut()
                .and_then(|map| map.remove(&id));
            let Some(waiter) = waiter else { return };
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
