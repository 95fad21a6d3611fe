//! One running Turn on codex: what codex's messages and the caller's controls mean.
//!
//! The driver loop, the deadline and the hand-back are the adapter kit's
//! ([`switchboard_adapter_kit::turn`]). The Turn ends when codex reports `turn/completed` for it.
//! Cancel sends `turn/interrupt` and the Turn ends `Cancelled` once codex settles it. The
//! per-Turn deadline guards against a provider that never answers (codex retries a refused
//! connection forever): it sends `turn/interrupt` too, and fails the Turn with
//! `request_timeout`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_adapter_kit::receipts::CallChange;
use switchboard_adapter_kit::turn::{self, StopRequests, TurnCommands, TurnDriver, TurnIo};
use switchboard_protocol::messages::{Usage, WebSearchStatus};
use switchboard_protocol::{
    AdapterError, AdapterEvent, FunctionResultContent, InputPart, Receipt, TurnControl,
};
use tokio::sync::oneshot;
use tracing::Instrument;

use crate::dynamic_tools::{ToolCallRequest, content_items, tool_call_response};
use crate::events::{
    Messages, UsageTracker, command_execution, completed_observation, item_type, turn_error,
    web_search,
};
use crate::jsonrpc::{Connection, Inbound, RpcError};
use crate::launch::CONTROL_TIMEOUT;
use crate::receipts::{self, CallTable, Expected, observe_completed, observe_resolved};
use crate::subagents::Children;

/// The identity of a running Turn.
#[derive(Clone)]
pub struct TurnIds {
    pub thread_id: String,
    pub turn_id: String,
}

/// Codex `UserInput` for protocol input parts.
pub fn user_input(parts: &[InputPart]) -> Value {
    Value::Array(
        parts
            .iter()
            .map(|part| match part {
                InputPart::InputText { text } => {
                    json!({"type": "text", "text": text, "text_elements": []})
                }
                InputPart::InputImage { image_url } => json!({"type": "image", "url": image_url}),
            })
            .collect(),
    )
}

/// Starts the driver task and returns the Turn's control handle.
pub fn spawn(
    connection: Arc<Connection>,
    ids: TurnIds,
    io: TurnIo<Inbound>,
    deadline: Duration,
) -> Arc<CodexTurnControl> {
    let driver = Driver {
        connection: connection.clone(),
        ids: ids.clone(),
        calls: receipts::new_table(),
        messages: Messages::default(),
        usage: UsageTracker::default(),
        stop: StopRequests::default(),
        last_error: None,
        children: Children::new(&ids.thread_id),
    };
    let commands = turn::spawn(driver, io, deadline);
    Arc::new(CodexTurnControl {
        connection,
        ids,
        commands,
    })
}

struct Driver {
    connection: Arc<Connection>,
    ids: TurnIds,
    calls: CallTable,
    messages: Messages,
    usage: UsageTracker,
    stop: StopRequests,
    /// The last non-retried `error` notification, in case `turn/completed` carries none.
    last_error: Option<Value>,
    /// The Subagents this Turn opened (multi-agent Sessions).
    children: Children,
}

impl TurnDriver for Driver {
    type Inbound = Inbound;
    type Command = Infallible;
    type Ending = Value;
    type Route = Value;
    type Expected = Expected;

    const HARNESS: &'static str = "codex";

    /// Handles one inbound message; returns the Turn when codex completed it. Each one but a
    /// streaming delta is a span (`codex.request` or `codex.notification`) in the Turn's trace.
    async fn handle(&mut self, message: Inbound, out: &mut Vec<AdapterEvent>) -> Option<Value> {
        let span = match &message {
            Inbound::Request { method, id, .. } => {
                tracing::info_span!("codex.request", rpc.method = %method, rpc.jsonrpc.request_id = %id)
            }
            Inbound::Notification { method, .. }
                if !method.to_ascii_lowercase().ends_with("delta") =>
            {
                tracing::info_span!("codex.notification", rpc.method = %method)
            }
            Inbound::Notification { .. } => tracing::Span::none(),
        };
        self.handle_message(message, out).instrument(span).await
    }

    async fn submit(
        &mut self,
        call_id: String,
        result: FunctionResultContent,
        reply: oneshot::Sender<Receipt>,
    ) {
        let request_id = match self.calls.begin_answer(&call_id) {
            Ok((request_id, _)) => request_id,
            Err(refusal) => {
                let _ = reply.send(refusal);
                return;
            }
        };
        match self
            .connection
            .respond(&request_id, tool_call_response(&result))
            .await
        {
            Ok(()) => {
                let expected = Expected {
                    content_items: content_items(&result),
                    success: result.success,
                };
                self.calls.answered(&call_id, expected, reply)
            }
            Err(error) => {
                let _ = reply.send(Receipt::Unconfirmed {
                    reason: format!("writing the result failed: {error}"),
                });
            }
        }
    }

    async fn command(&mut self, command: Infallible) {
        match command {}
    }

    fn calls(&mut self) -> &mut CallTable {
        &mut self.calls
    }

    fn stop_requests(&mut self) -> &mut StopRequests {
        &mut self.stop
    }

    /// Sends `turn/interrupt` without waiting in the loop: codex answers it while it keeps
    /// sending the Turn's messages, which this loop must go on draining.
    fn interrupt(&self) {
        let connection = self.connection.clone();
        let params = json!({"threadId": self.ids.thread_id, "turnId": self.ids.turn_id});
        tokio::spawn(async move {
            let _ = connection
                .request("turn/interrupt", params, CONTROL_TIMEOUT)
                .await;
        });
    }

    /// The Turn's closing events; the last one is terminal.
    fn settle(&mut self, turn: Value) -> Vec<AdapterEvent> {
        let status = turn
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("failed");
        let mut out = self.calls.finish_events();
        self.messages.finish(status == "completed", &mut out);
        let usage = self.usage.current();
        let failed = |usage| {
            let error = turn
                .get("error")
                .filter(|e| !e.is_null())
                .or(self.last_error.as_ref());
            let (code, message, http_status) = turn_error(error);
            AdapterEvent::Failed {
                code,
                message,
                http_status,
                usage,
            }
        };
        out.push(match status {
            "completed" => AdapterEvent::Completed { usage },
            "interrupted" => self.stop.stopped(usage, failed),
            _ => failed(usage),
        });
        out
    }

    fn close_messages(&mut self, out: &mut Vec<AdapterEvent>) {
        self.messages.finish(false, out);
    }

    fn usage(&self) -> Option<Usage> {
        self.usage.current()
    }
}

impl Driver {
    async fn handle_message(
        &mut self,
        message: Inbound,
        out: &mut Vec<AdapterEvent>,
    ) -> Option<Value> {
        match message {
            Inbound::Request { id, method, params } => {
                self.request(id, &method, &params, out).await;
                None
            }
            Inbound::Notification { method, mut params } => {
                let thread = params.get("threadId").and_then(Value::as_str);
                if thread.is_some_and(|t| self.children.is_child(t)) {
                    self.child_notification(&method, &params, out);
                    return None;
                }
                if method == "thread/started" {
                    self.children.thread_started(&params, out);
                    return None;
                }
                if method == "turn/completed" {
                    let turn = params.get_mut("turn").map(Value::take)?;
                    let ours = turn.get("id").and_then(Value::as_str) == Some(&self.ids.turn_id);
                    return ours.then_some(turn);
                }
                if method == "serverRequest/resolved" {
                    if let Some(r) = params.get("requestId") {
                        self.children.forget_call(r);
                    }
                    out.extend(
                        params
                            .get("requestId")
                            .and_then(|r| observe_resolved(&mut self.calls, r))
                            .map(CallChange::into_event),
                    );
                    return None;
                }
                // Everything else we use is scoped to a Turn.
                if params.get("turnId").and_then(Value::as_str) != Some(&self.ids.turn_id) {
                    return None;
                }
                match method.as_str() {
                    "item/started" => {
                        if let Some(item) = params.get("item") {
                            self.messages.started(item, out);
                            match item_type(item) {
                                Some("webSearch") => {
                                    out.push(web_search(item, WebSearchStatus::InProgress))
                                }
                                // A native command opens its Item when it starts running.
                                Some("commandExecution") => out.extend(command_execution(item)),
                                Some("collabAgentToolCall") => {
                                    self.children.collab(item, out);
                                }
                                _ => {}
                            }
                            out.extend(crate::mcp::observation(item));
                        }
                    }
                    "item/agentMessage/delta" => self.messages.delta(&params, out),
                    "item/completed" => {
                        if let Some(item) = params.get("item") {
                            match item_type(item) {
                                Some("agentMessage") => self.messages.completed(item, out),
                                Some("dynamicToolCall") => {
                                    if let Some(change) = observe_completed(&mut self.calls, item) {
                                        out.push(change.into_event());
                                    }
                                }
                                Some("collabAgentToolCall") => {
                                    for request in self.children.collab(item, out) {
                                        out.extend(
                                            self.calls
                                                .abandon_pending(|r| r == &request)
                                                .map(CallChange::into_event),
                                        );
                                    }
                                    for thread in Children::spawned(item) {
                                        self.name_child(&thread, out).await;
                                    }
                                }
                                _ => out.extend(completed_observation(item)),
                            }
                        }
                    }
                    "thread/tokenUsage/updated" => {
                        out.extend(self.usage.update(&params).map(AdapterEvent::Usage))
                    }
                    "error" if params.get("willRetry").and_then(Value::as_bool) == Some(false) => {
                        self.last_error = params.get("error").cloned();
                    }
                    _ => {}
                }
                None
            }
        }
    }
    /// A spawned child's nickname is on its thread only (the app-server sends no
    /// `thread/started` for it): read once, when the spawn completes.
    async fn name_child(&mut self, thread: &str, out: &mut Vec<AdapterEvent>) {
        let read = self
            .connection
            .request("thread/read", json!({"threadId": thread}), CONTROL_TIMEOUT)
            .await;
        let name = read.ok().and_then(|r| {
            r.pointer("/thread/agentNickname")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        if let Some(name) = name {
            self.children.named(thread, name, out);
        }
    }

    /// A notification of a child's thread: its receipts (the child's answered function calls)
    /// are this Turn's; everything else is a Subagent observation.
    fn child_notification(&mut self, method: &str, params: &Value, out: &mut Vec<AdapterEvent>) {
        if method == "item/completed"
            && let Some(item) = params.get("item")
            && item_type(item) == Some("dynamicToolCall")
        {
            if let Some(change) = observe_completed(&mut self.calls, item) {
                out.push(change.into_event());
            }
            return;
        }
        self.children.notification(method, params, out);
    }

    async fn request(
        &mut self,
        id: Value,
        method: &str,
        params: &Value,
        out: &mut Vec<AdapterEvent>,
    ) {
        let ours = |call: &ToolCallRequest| {
            call.thread_id == self.ids.thread_id && call.turn_id == self.ids.turn_id
        };
        if let Some(call) = (method == "item/tool/call")
            .then(|| ToolCallRequest::parse(params))
            .flatten()
            .filter(ours)
        {
            // Register first: the call must be answerable the moment it is published.
            self.calls.register(&call.call_id, &call.tool, id);
            out.push(AdapterEvent::FunctionCall {
                call_id: call.call_id,
                name: call.tool,
                arguments: call.arguments,
            });
            return;
        }
        // A child's call is answered through this Turn's table too (the root Turn's action).
        if let Some(call) = (method == "item/tool/call")
            .then(|| ToolCallRequest::parse(params))
            .flatten()
            .filter(|c| self.children.is_child(&c.thread_id))
        {
            self.calls.register(&call.call_id, &call.tool, id.clone());
            self.children.function_call(call, id, out);
            return;
        }
        // Approvals cannot occur under approvalPolicy "never"; anything else is not ours to
        // answer. A JSON-RPC error lets codex carry on.
        let _ = self
            .connection
            .respond_error(
                &id,
                -32601,
                &format!("switchboard does not handle {method}"),
            )
            .await;
    }
}

/// The caller's handle on a running Turn.
pub struct CodexTurnControl {
    connection: Arc<Connection>,
    ids: TurnIds,
    commands: TurnCommands<Infallible>,
}

#[async_trait]
impl TurnControl for CodexTurnControl {
    async fn submit_function_result(
        &self,
        call_id: &str,
        result: FunctionResultContent,
    ) -> Receipt {
        self.commands.submit_function_result(call_id, result).await
    }

    async fn steer(&self, input: Vec<InputPart>) -> Result<(), AdapterError> {
        let params = json!({
            "threadId": self.ids.thread_id,
            "expectedTurnId": self.ids.turn_id,
            "input": user_input(&input),
        });
        self.connection
            .request("turn/steer", params, CONTROL_TIMEOUT)
            .await
            .map(|_| ())
            .map_err(rpc_error)
    }

    async fn cancel(&self) -> Result<(), AdapterError> {
        // Tell the driver first, so an interrupted completion is read as our cancel.
        self.commands.request_cancel().await?;
        let params = json!({"threadId": self.ids.thread_id, "turnId": self.ids.turn_id});
        self.connection
            .request("turn/interrupt", params, CONTROL_TIMEOUT)
            .await
            .map(|_| ())
            .map_err(rpc_error)
    }
}

/// Maps a JSON-RPC failure onto the adapter's error.
pub fn rpc_error(error: RpcError) -> AdapterError {
    match error {
        RpcError::Closed | RpcError::Write(_) => AdapterError::Exited,
        RpcError::Timeout(method) => AdapterError::Timeout(method),
        RpcError::Rejected {
            method, message, ..
        } => AdapterError::Rejected {
            code: "harness_rejected".into(),
            message: format!("{method}: {message}"),
        },
    }
}
