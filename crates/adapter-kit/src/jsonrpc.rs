//! A JSON-RPC client over a harness's newline-delimited stdio, shared by the adapters whose
//! harness speaks JSON-RPC (`codex app-server`, ACP agents).
//!
//! Three kinds of traffic share the pipe, split here so an adapter never parses framing:
//! responses to our requests (routed to the waiting caller by id), harness → client requests
//! (which the adapter must answer) and notifications. Requests and notifications go, in arrival
//! order, to one unbounded channel of the adapter's own inbound type (`From<Message>`): the
//! harness must never block on us, and their relative order is what the Turn logic relies on.
//! A reader task owns stdout; when the output ends every waiting request fails with
//! [`RpcError::Closed`] and later ones are refused. What differs between harnesses is a
//! [`Dialect`]: whether messages carry `"jsonrpc": "2.0"` (codex omits it) and the name in logs.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::jsonl::{self, Answer, JsonLines, LineWriter};

/// How one harness writes JSON-RPC.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    /// The harness's name in logs.
    pub peer: &'static str,
    /// Whether every message carries `"jsonrpc": "2.0"`.
    pub version_member: bool,
}

/// A message the harness sent that is not a response.
#[derive(Debug, Clone)]
pub enum Message {
    /// A harness → client request; answer it with [`Client::respond`].
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
    #[error("the harness closed the connection")]
    Closed,
    #[error("the harness did not answer `{0}` in time")]
    Timeout(String),
    #[error("the harness rejected `{method}`: {message}")]
    Rejected {
        method: String,
        code: i64,
        message: String,
        data: Value,
    },
    #[error("could not write to the harness: {0}")]
    Write(String),
}

/// Our requests waiting for the harness's responses, by JSON-RPC id.
type Pending = jsonl::Pending<i64, RpcError>;

/// The client side of one JSON-RPC connection.
pub struct Client {
    stdin: LineWriter,
    next_id: AtomicI64,
    pending: Pending,
    dialect: Dialect,
    /// Set once a request went unanswered (or unwritten) for its whole timeout.
    unanswered: watch::Sender<bool>,
}

impl Client {
    /// Starts the reader task, which sends the harness's requests and notifications to
    /// `inbound` until its output ends.
    pub fn start<I>(
        stdin: ChildStdin,
        stdout: ChildStdout,
        dialect: Dialect,
        inbound: mpsc::UnboundedSender<I>,
    ) -> Client
    where
        I: From<Message> + Send + 'static,
    {
        let pending = Pending::default();
        tokio::spawn(read_loop(stdout, dialect, pending.clone(), inbound));
        Client {
            stdin: LineWriter::new(stdin),
            next_id: AtomicI64::new(1),
            pending,
            dialect,
            unanswered: watch::Sender::new(false),
        }
    }

    /// Becomes `true` once a request went unanswered for its whole timeout: the harness has
    /// stopped answering, and whoever owns the process decides what that means for it.
    pub fn unanswered(&self) -> watch::Receiver<bool> {
        self.unanswered.subscribe()
    }

    /// Sends a request and waits at most `timeout` for its response.
    #[tracing::instrument(name = "jsonrpc.request", skip_all, fields(peer = self.dialect.peer, rpc.method = method))]
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
        // The timeout covers the write too: a harness that stops reading its input fills the
        // pipe, and the write would otherwise wait forever.
        let deadline = Instant::now() + timeout;
        let request = json!({"id": id, "method": method, "params": params});
        match tokio::time::timeout_at(deadline, self.write(request)).await {
            Ok(written) => written?,
            Err(_) => {
                self.pending.take(&id);
                self.unanswered.send_replace(true);
                return Err(RpcError::Timeout(method.to_owned()));
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match self.pending.wait(&id, answer, left).await {
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
            Answer::TimedOut => {
                self.unanswered.send_replace(true);
                Err(RpcError::Timeout(method.to_owned()))
            }
        }
    }

    /// Sends a notification (`params` omitted when `None`).
    #[tracing::instrument(name = "jsonrpc.notify", skip_all, fields(peer = self.dialect.peer, rpc.method = method))]
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), RpcError> {
        let message = match params {
            Some(params) => json!({"method": method, "params": params}),
            None => json!({"method": method}),
        };
        self.write(message).await
    }

    /// Answers a harness request.
    #[tracing::instrument(name = "jsonrpc.respond", skip_all, fields(peer = self.dialect.peer, rpc.jsonrpc.request_id = %id))]
    pub async fn respond(&self, id: &Value, result: Value) -> Result<(), RpcError> {
        self.write(json!({"id": id, "result": result})).await
    }

    /// Declines a harness request we do not handle.
    #[tracing::instrument(name = "jsonrpc.respond", skip_all, fields(peer = self.dialect.peer, rpc.jsonrpc.request_id = %id, rpc.jsonrpc.error_code = code))]
    pub async fn respond_error(
        &self,
        id: &Value,
        code: i64,
        message: &str,
    ) -> Result<(), RpcError> {
        self.write(json!({"id": id, "error": {"code": code, "message": message}}))
            .await
    }

    async fn write(&self, mut message: Value) -> Result<(), RpcError> {
        if self.dialect.version_member
            && let Some(object) = message.as_object_mut()
        {
            object.insert("jsonrpc".into(), "2.0".into());
        }
        self.stdin.write(&message).await.map_err(RpcError::Write)
    }
}

async fn read_loop<I: From<Message>>(
    stdout: ChildStdout,
    dialect: Dialect,
    pending: Pending,
    inbound: mpsc::UnboundedSender<I>,
) {
    let mut lines = JsonLines::new(stdout, dialect.peer);
    while let Some(message) = lines.next().await {
        dispatch(message, dialect, &pending, &inbound);
    }
    // EOF: fail everything still waiting, and refuse later requests.
    pending.close(|| RpcError::Closed);
}

fn dispatch<I: From<Message>>(
    mut message: Value,
    dialect: Dialect,
    pending: &Pending,
    inbound: &mpsc::UnboundedSender<I>,
) {
    let mut take = |member: &str| {
        message
            .get_mut(member)
            .map(Value::take)
            .unwrap_or(Value::Null)
    };
    let method = take("method").as_str().map(str::to_owned);
    let id = Some(take("id")).filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => {
            let params = take("params");
            let _ = inbound.send(Message::Request { id, method, params }.into());
        }
        (Some(method), None) => {
            let params = take("params");
            let _ = inbound.send(Message::Notification { method, params }.into());
        }
        (None, Some(id)) => {
            let Some(waiter) = id.as_i64().and_then(|id| pending.take(&id)) else {
                return;
            };
            let outcome = match take("error") {
                Value::Null => Ok(take("result")),
                mut error => Err(RpcError::Rejected {
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
            };
            let _ = waiter.send(outcome);
        }
        (None, None) => tracing::warn!(
            peer = dialect.peer,
            "a JSON-RPC message with neither method nor id"
        ),
    }
}
