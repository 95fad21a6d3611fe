//! JSON-RPC 2.0 over newline-delimited stdio, as ACP agents speak it.
//!
//! Three kinds of traffic share the pipe, split here so the rest of the adapter never parses
//! framing: responses to our requests (routed to the waiting caller by id), agent → client
//! requests (`session/request_permission`, which we must answer), and notifications
//! (`session/update`). Requests and notifications go, in arrival order, to one unbounded
//! [`Inbound`] channel, owned by the reader task: when the agent's output ends the channel
//! closes and every waiting request fails with [`RpcError::Closed`]. A Turn's `session/prompt`
//! is answered only when the Turn ends, so its answer joins the same channel
//! ([`Inbound::PromptDone`], [`Connection::prompt`]), after every update the agent sent before.
//! The line framing and the table of waiting requests are the adapter kit's.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_adapter_kit::jsonl::{self, Answer, JsonLines, LineWriter};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;

/// What the agent sent us that is not the answer to a control request.
#[derive(Debug)]
pub enum Inbound {
    /// An agent → client request; answer it with [`Connection::respond`].
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The answer to the running Turn's `session/prompt`.
    PromptDone(Result<Value, RpcError>),
    /// A call of the Session's `functions` MCP server (it is not the agent's stdio, but it must be
    /// ordered with the agent's updates: [`crate::functions`]).
    FunctionCall(crate::functions::McpCall),
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum RpcError {
    #[error("the agent closed the connection")]
    Closed,
    #[error("the agent did not answer `{0}` in time")]
    Timeout(String),
    #[error("the agent rejected `{method}`: {message}")]
    Rejected {
        method: String,
        code: i64,
        message: String,
    },
    #[error("could not write to the agent: {0}")]
    Write(String),
}

type Pending = jsonl::Pending<i64, RpcError>;

/// The client side of one ACP connection.
pub struct Connection {
    stdin: LineWriter,
    next_id: AtomicI64,
    pending: Pending,
    /// Where a prompt's answer and a function call join the agent's messages; weak, so that the
    /// channel closes when the reader ends.
    inbound: mpsc::WeakUnboundedSender<Inbound>,
}

impl Connection {
    /// Starts the reader task; returns the connection with its inbound channel.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
    ) -> (Arc<Connection>, mpsc::UnboundedReceiver<Inbound>) {
        let pending = Pending::default();
        let (tx, rx) = mpsc::unbounded_channel();
        let connection = Connection {
            stdin: LineWriter::new(stdin),
            next_id: AtomicI64::new(1),
            pending: pending.clone(),
            inbound: tx.downgrade(),
        };
        tokio::spawn(read_loop(stdout, pending, tx));
        (Arc::new(connection), rx)
    }

    /// Sends a request and waits at most `timeout` for its answer.
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
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        match self.pending.wait(&id, answer, timeout).await {
            Answer::Answered(result) => result.map_err(|e| match e {
                RpcError::Rejected { code, message, .. } => RpcError::Rejected {
                    method: method.to_owned(),
                    code,
                    message,
                },
                other => other,
            }),
            Answer::Closed => Err(RpcError::Closed),
            Answer::TimedOut => Err(RpcError::Timeout(method.to_owned())),
        }
    }

    /// Sends `session/prompt` and returns at once: its answer arrives on the inbound channel as
    /// [`Inbound::PromptDone`] (a Turn has no deadline here; the Turn loop keeps it).
    pub fn prompt(self: &Arc<Self>, params: Value, timeout: Duration) {
        let connection = self.clone();
        tokio::spawn(async move {
            let done = connection.request("session/prompt", params, timeout).await;
            connection.push(Inbound::PromptDone(done));
        });
    }

    /// Adds a message to the inbound channel (dropped once the agent's output ended).
    pub fn push(&self, message: Inbound) {
        if let Some(inbound) = self.inbound.upgrade() {
            let _ = inbound.send(message);
        }
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), RpcError> {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Answers an agent request.
    pub async fn respond(&self, id: &Value, result: Value) -> Result<(), RpcError> {
        self.write(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await
    }

    /// Declines an agent request we do not handle.
    pub async fn respond_error(
        &self,
        id: &Value,
        code: i64,
        message: &str,
    ) -> Result<(), RpcError> {
        self.write(
            &json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
        )
        .await
    }

    async fn write(&self, message: &Value) -> Result<(), RpcError> {
        self.stdin.write(message).await.map_err(RpcError::Write)
    }
}

async fn read_loop(stdout: ChildStdout, pending: Pending, inbound: mpsc::UnboundedSender<Inbound>) {
    let mut lines = JsonLines::new(stdout, "acp agent");
    while let Some(message) = lines.next().await {
        dispatch(message, &pending, &inbound);
    }
    pending.close(|| RpcError::Closed);
}

fn dispatch(mut message: Value, pending: &Pending, inbound: &mpsc::UnboundedSender<Inbound>) {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = message.get("id").cloned();
    let params = message
        .get_mut("params")
        .map(Value::take)
        .unwrap_or(Value::Null);
    match (method, id) {
        (Some(method), Some(id)) => {
            let _ = inbound.send(Inbound::Request { id, method, params });
        }
        (Some(method), None) => {
            let _ = inbound.send(Inbound::Notification { method, params });
        }
        (None, Some(id)) => {
            let Some(waiter) = id.as_i64().and_then(|id| pending.take(&id)) else {
                return;
            };
            let outcome = match message.get("error") {
                Some(error) => Err(RpcError::Rejected {
                    method: String::new(),
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                }),
                None => Ok(message
                    .get_mut("result")
                    .map(Value::take)
                    .unwrap_or(Value::Null)),
            };
            let _ = waiter.send(outcome);
        }
        (None, None) => tracing::warn!("the acp agent wrote a message with neither method nor id"),
    }
}
