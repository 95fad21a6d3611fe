//! stream-json over stdio: claude's messages in, user lines and control traffic out.
//!
//! One JSON object per line each way. Three kinds of traffic share stdout, and they are split
//! here so the Turn logic never parses framing:
//!
//! - `control_response`: answers to our control requests (`initialize`, `interrupt`), routed to
//!   the waiting caller by `request_id`;
//! - `control_request`: claude asks us something and waits. MCP traffic for the `functions`
//!   server (`mcp_message`) and permission asks (`can_use_tool`) are answered right here, even
//!   between Turns (claude lists tools at start-up, before any input). Only `tools/call` and its
//!   cancellation need the Turn, so they go to the inbound channel; any other request is
//!   declined with an error response, which claude treats as "not supported";
//! - everything else (`system`, `assistant`, `user`, `stream_event`, `result`,
//!   `command_lifecycle`, …) goes to the inbound channel in arrival order.
//!
//! The inbound channel is unbounded because claude must never block on us, and arrival order is
//! what the Turn relies on (a tool result follows the call's answer). A reader task owns stdout;
//! at EOF the channel closes and every waiting control request fails with [`StreamError::Closed`].
//! The line framing and the table of waiting requests are the adapter kit's
//! ([`switchboard_adapter_kit::jsonl`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_adapter_kit::jsonl::{self, Answer, JsonLines, LineWriter};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;

use crate::functions::{FunctionServer, McpCall, McpDispatch};

/// claude's output the Turn needs.
#[derive(Debug, Clone)]
pub enum Inbound {
    /// A `tools/call` for the functions server, from the `mcp_message` request `control_request_id`.
    Call {
        control_request_id: String,
        call: McpCall,
    },
    /// claude cancelled the functions request with this JSON-RPC id.
    CallCancelled { mcp_id: Value },
    /// Any other stream-json message.
    Message(Value),
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum StreamError {
    #[error("claude closed its output")]
    Closed,
    #[error("claude did not answer the `{0}` control request in time")]
    Timeout(String),
    #[error("claude refused the `{subtype}` control request: {message}")]
    Refused { subtype: String, message: String },
    #[error("could not write to claude: {0}")]
    Write(String),
}

/// Which tools a permission ask may allow (everything else is denied). With the Session's
/// tools pre-approved by `--allowedTools` claude should not ask at all; this is the backstop.
#[derive(Debug, Clone, Default)]
pub struct PermissionPolicy {
    /// Exact tool names, or `mcp__<server>` prefixes, that are allowed.
    pub allowed: Vec<String>,
    /// On a workspace: every tool is allowed except these (the withheld ones, which claude
    /// should not offer at all). `None`: only `allowed`.
    pub all_except: Option<Vec<String>>,
}

impl PermissionPolicy {
    fn allows(&self, tool: &str) -> bool {
        if let Some(withheld) = &self.all_except {
            return !withheld.iter().any(|w| w == tool);
        }
        self.allowed.iter().any(|a| {
            tool == a
                || (a.starts_with("mcp__")
                    && tool
                        .strip_prefix(a.as_str())
                        .is_some_and(|rest| rest.starts_with("__")))
        })
    }
}

/// Our control requests waiting for claude's responses, by `request_id`.
type Pending = jsonl::Pending<String, StreamError>;

/// The client side of one claude process.
pub struct Connection {
    stdin: LineWriter,
    next_id: AtomicU64,
    pending: Pending,
}

impl Connection {
    /// Starts the reader and returns the connection with its inbound channel.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
        server: Arc<FunctionServer>,
        policy: PermissionPolicy,
    ) -> (Arc<Connection>, mpsc::UnboundedReceiver<Inbound>) {
        let pending = Pending::default();
        let (tx, rx) = mpsc::unbounded_channel();
        let connection = Arc::new(Connection {
            stdin: LineWriter::new(stdin),
            next_id: AtomicU64::new(1),
            pending: pending.clone(),
        });
        let reader = Reader {
            // Weak: the reader must not keep stdin open after the executor let go of it.
            connection: Arc::downgrade(&connection),
            pending,
            inbound: tx,
            server,
            policy,
        };
        tokio::spawn(reader.run(stdout));
        (connection, rx)
    }

    /// Sends a control request (`{"subtype": …, …}`) and waits for its response.
    pub async fn request(&self, request: Value, timeout: Duration) -> Result<Value, StreamError> {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let request_id = format!(
            "switchboard_{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        );
        let Some(answer) = self.pending.register(request_id.clone()) else {
            return Err(StreamError::Closed);
        };
        self.write(
            &json!({"type": "control_request", "request_id": request_id, "request": request}),
        )
        .await?;
        match self.pending.wait(&request_id, answer, timeout).await {
            Answer::Answered(outcome) => outcome.map_err(|e| match e {
                StreamError::Refused { message, .. } => StreamError::Refused { subtype, message },
                other => other,
            }),
            Answer::Closed => Err(StreamError::Closed),
            Answer::TimedOut => Err(StreamError::Timeout(subtype)),
        }
    }

    /// Answers one of claude's control requests.
    pub async fn respond(&self, request_id: &str, response: Value) -> Result<(), StreamError> {
        self.write(&json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": request_id, "response": response,
        }}))
        .await
    }

    async fn respond_error(&self, request_id: &str, error: &str) -> Result<(), StreamError> {
        self.write(&json!({"type": "control_response", "response": {
            "subtype": "error", "request_id": request_id, "error": error,
        }}))
        .await
    }

    /// Sends a `user` line. `uuid` is ours: claude reports it back in `command_lifecycle` and in
    /// the `user_message_uuids` of the result whose turn consumed the message.
    pub async fn send_user(&self, uuid: &str, content: Value) -> Result<(), StreamError> {
        self.write(&json!({
            "type": "user",
            "session_id": "",
            "parent_tool_use_id": null,
            "uuid": uuid,
            "message": {"role": "user", "content": content},
        }))
        .await
    }

    async fn write(&self, message: &Value) -> Result<(), StreamError> {
        self.stdin.write(message).await.map_err(StreamError::Write)
    }
}

struct Reader {
    connection: Weak<Connection>,
    pending: Pending,
    inbound: mpsc::UnboundedSender<Inbound>,
    server: Arc<FunctionServer>,
    policy: PermissionPolicy,
}

impl Reader {
    async fn run(self, stdout: ChildStdout) {
        let mut lines = JsonLines::new(stdout, "claude");
        while let Some(message) = lines.next().await {
            self.dispatch(message).await;
        }
        self.pending.close(|| StreamError::Closed);
    }

    async fn dispatch(&self, mut message: Value) {
        match message.get("type").and_then(Value::as_str) {
            Some("control_response") => self.response(message.get_mut("response").map(Value::take)),
            Some("control_request") => {
                let request_id = message
                    .get("request_id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let request = message
                    .get_mut("request")
                    .map(Value::take)
                    .unwrap_or(Value::Null);
                self.request(&request_id, request).await;
            }
            _ => {
                let _ = self.inbound.send(Inbound::Message(message));
            }
        }
    }

    fn response(&self, response: Option<Value>) {
        let Some(mut response) = response else { return };
        let Some(request_id) = response.get("request_id").and_then(Value::as_str) else {
            return;
        };
        let Some(waiter) = self.pending.take(request_id) else {
            return;
        };
        let outcome = if response.get("subtype").and_then(Value::as_str) == Some("success") {
            Ok(response
                .get_mut("response")
                .map(Value::take)
                .unwrap_or(Value::Null))
        } else {
            Err(StreamError::Refused {
                subtype: String::new(),
                message: response
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown error")
                    .to_owned(),
            })
        };
        let _ = waiter.send(outcome);
    }

    async fn request(&self, request_id: &str, request: Value) {
        let Some(connection) = self.connection.upgrade() else {
            return;
        };
        let subtype = request.get("subtype").and_then(Value::as_str).unwrap_or("");
        let written = match subtype {
            "mcp_message" => {
                let server = request.get("server_name").and_then(Value::as_str);
                let message = request.get("message").cloned().unwrap_or(Value::Null);
                if server != Some(crate::flags::FUNCTIONS_SERVER) {
                    connection
                        .respond_error(request_id, "unknown MCP server")
                        .await
                } else {
                    match self.server.dispatch(&message) {
                        McpDispatch::Reply(reply) => {
                            connection
                                .respond(request_id, json!({"mcp_response": reply}))
                                .await
                        }
                        McpDispatch::Call(call) => {
                            let _ = self.inbound.send(Inbound::Call {
                                control_request_id: request_id.to_owned(),
                                call,
                            });
                            Ok(())
                        }
                        McpDispatch::Cancelled { mcp_id, reply } => {
                            let _ = self.inbound.send(Inbound::CallCancelled { mcp_id });
                            connection
                                .respond(request_id, json!({"mcp_response": reply}))
                                .await
                        }
                    }
                }
            }
            "can_use_tool" => {
                let tool = request
                    .get("tool_name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let response = if self.policy.allows(tool) {
                    json!({
                        "behavior": "allow",
                        "updatedInput": request.get("input").cloned().unwrap_or_else(|| json!({})),
                        "toolUseID": request.get("tool_use_id"),
                    })
                } else {
                    json!({
                        "behavior": "deny",
                        "message": format!("{tool} is not available in this Session."),
                        "toolUseID": request.get("tool_use_id"),
                    })
                };
                connection.respond(request_id, response).await
            }
            other => {
                connection
                    .respond_error(request_id, &format!("switchboard does not handle {other}"))
                    .await
            }
        };
        if let Err(error) = written {
            tracing::warn!(%error, "could not answer a claude control request");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_allows_servers_by_prefix_and_tools_by_name() {
        let policy = PermissionPolicy {
            allowed: vec!["mcp__functions".into(), "WebSearch".into()],
            all_except: None,
        };
        assert!(policy.allows("mcp__functions__get_weather"));
        assert!(policy.allows("WebSearch"));
        assert!(!policy.allows("mcp__functionsx__a"));
        assert!(!policy.allows("Bash"));
        let workspace = PermissionPolicy {
            allowed: vec![],
            all_except: Some(vec!["Workflow".into()]),
        };
        assert!(workspace.allows("Bash") && workspace.allows("mcp__functions__f"));
        assert!(!workspace.allows("Workflow"));
    }
}
