//! One running Turn: the loop between codex's messages, the caller's controls and the clock.
//!
//! A driver task owns the process's inbound channel for the Turn's duration and is the only
//! place that mutates the Turn's state (calls, messages, usage), so submissions and codex's
//! observations are handled strictly in arrival order without locks. It ends when codex reports
//! `turn/completed` for this Turn, when the process dies, or when the deadline passes and codex
//! does not settle the interrupt within a grace period; it then returns the inbound channel (or
//! says the process must go) to the executor.
//!
//! Cancel sends `turn/interrupt` and the Turn ends `Cancelled` once codex settles it. The
//! per-Turn deadline guards against a provider that never answers (codex retries a refused
//! connection forever): it interrupts and fails the Turn with `request_timeout`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_protocol::{
    AdapterError, AdapterEvent, FunctionResultContent, InputPart, Receipt, TurnControl,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::dynamic_tools::{ToolCallRequest, content_items, tool_call_response};
use crate::events::{Messages, UsageTracker, completed_observation, item_type, turn_error};
use crate::jsonrpc::{Connection, Inbound, RpcError};
use crate::launch::CONTROL_TIMEOUT;
use crate::receipts::{self, CallTable, Expected, observe_completed, observe_resolved};
use switchboard_adapter_kit::receipts::CallChange;

/// How long codex gets to settle an interrupt sent at the deadline before its process is killed.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

/// The identity of a running Turn.
#[derive(Clone)]
pub struct TurnIds {
    pub thread_id: String,
    pub turn_id: String,
}

/// Requests from [`CodexTurnControl`] that need the driver's state.
enum Command {
    Submit {
        call_id: String,
        result: FunctionResultContent,
        reply: oneshot::Sender<Receipt>,
    },
    CancelRequested,
}

/// Handed to the executor before the terminal event is published, so that a caller who sees
/// the Turn end can start the next one (or evict) at once. `done` acknowledges the hand-back.
pub struct Release {
    pub exit: TurnExit,
    pub done: oneshot::Sender<()>,
}

/// How the driver left the process.
pub enum TurnExit {
    /// The Turn settled; the process can run the next one.
    Idle(mpsc::UnboundedReceiver<Inbound>),
    /// The process died or stopped answering; it must be discarded.
    Discard,
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

/// Starts the driver task and returns the Turn's control handle. The driver sends the process
/// back on `release` when the Turn ends.
pub fn spawn(
    connection: Arc<Connection>,
    ids: TurnIds,
    inbound: mpsc::UnboundedReceiver<Inbound>,
    events: mpsc::Sender<AdapterEvent>,
    deadline: Duration,
    release: oneshot::Sender<Release>,
) -> Arc<CodexTurnControl> {
    let (commands_tx, commands_rx) = mpsc::channel(16);
    let control = Arc::new(CodexTurnControl {
        connection: connection.clone(),
        ids: ids.clone(),
        commands: commands_tx,
    });
    let driver = Driver {
        connection,
        ids,
        events,
        calls: receipts::new_table(),
        messages: Messages::default(),
        usage: UsageTracker::default(),
        cancel_requested: false,
        timed_out: false,
        last_error: None,
    };
    tokio::spawn(driver.run(inbound, commands_rx, Instant::now() + deadline, release));
    control
}

struct Driver {
    connection: Arc<Connection>,
    ids: TurnIds,
    events: mpsc::Sender<AdapterEvent>,
    calls: CallTable,
    messages: Messages,
    usage: UsageTracker,
    cancel_requested: bool,
    timed_out: bool,
    /// The last non-retried `error` notification, in case `turn/completed` carries none.
    last_error: Option<Value>,
}

impl Driver {
    async fn run(
        mut self,
        mut inbound: mpsc::UnboundedReceiver<Inbound>,
        mut commands: mpsc::Receiver<Command>,
        deadline: Instant,
        release: oneshot::Sender<Release>,
    ) {
        let mut deadline = deadline;
        let (events, exit) = loop {
            let receipt_deadline = self.calls.next_deadline();
            tokio::select! {
                message = inbound.recv() => {
                    let Some(message) = message else {
                        break (self.fail("harness_exited", "The codex process exited during the Turn."), TurnExit::Discard);
                    };
                    if let Some(turn) = self.handle(message).await {
                        break (self.settle(&turn), TurnExit::Idle(inbound));
                    }
                }
                Some(command) = commands.recv() => self.command(command).await,
                _ = sleep_until_opt(receipt_deadline) => self.calls.expire(Instant::now()),
                _ = tokio::time::sleep_until(deadline) => {
                    if self.timed_out {
                        // codex did not settle the interrupt: give up on the process.
                        break (self.fail("request_timeout", "The Turn exceeded its deadline and codex did not stop."), TurnExit::Discard);
                    }
                    self.timed_out = true;
                    self.interrupt();
                    deadline = Instant::now() + INTERRUPT_GRACE;
                }
            }
        };
        // Everything but the terminal event, then the hand-back, then the terminal event.
        let mut events = events;
        let terminal = events.pop();
        self.emit_all(events).await;
        let (done, acknowledged) = oneshot::channel();
        if release.send(Release { exit, done }).is_ok() {
            let _ = acknowledged.await;
        }
        if let Some(terminal) = terminal {
            self.emit(terminal).await;
        }
    }

    /// Handles one inbound message; returns the Turn when codex completed it.
    async fn handle(&mut self, message: Inbound) -> Option<Value> {
        match message {
            Inbound::Request { id, method, params } => {
                self.request(id, &method, &params).await;
                None
            }
            Inbound::Notification { method, mut params } => {
                if method == "turn/completed" {
                    let turn = params.get_mut("turn").map(Value::take)?;
                    let ours = turn.get("id").and_then(Value::as_str) == Some(&self.ids.turn_id);
                    return ours.then_some(turn);
                }
                if method == "serverRequest/resolved" {
                    if let Some(change) = params
                        .get("requestId")
                        .and_then(|r| observe_resolved(&mut self.calls, r))
                    {
                        self.call_change(change).await;
                    }
                    return None;
                }
                // Everything else we use is scoped to a Turn.
                if params.get("turnId").and_then(Value::as_str) != Some(&self.ids.turn_id) {
                    return None;
                }
                let mut out = Vec::new();
                match method.as_str() {
                    "item/started" => {
                        if let Some(item) = params.get("item") {
                            self.messages.started(item, &mut out);
                        }
                    }
                    "item/agentMessage/delta" => self.messages.delta(&params, &mut out),
                    "item/completed" => {
                        if let Some(item) = params.get("item") {
                            match item_type(item) {
                                Some("agentMessage") => self.messages.completed(item, &mut out),
                                Some("dynamicToolCall") => {
                                    if let Some(change) = observe_completed(&mut self.calls, item) {
                                        out.push(change.into_event());
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
                self.emit_all(out).await;
                None
            }
        }
    }

    async fn request(&mut self, id: Value, method: &str, params: &Value) {
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
            self.emit(AdapterEvent::FunctionCall {
                call_id: call.call_id,
                name: call.tool,
                arguments: call.arguments,
            })
            .await;
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

    async fn command(&mut self, command: Command) {
        match command {
            Command::Submit {
                call_id,
                result,
                reply,
            } => {
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
            Command::CancelRequested => self.cancel_requested = true,
        }
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
    fn settle(&mut self, turn: &Value) -> Vec<AdapterEvent> {
        let status = turn
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("failed");
        let mut out = Vec::new();
        for call_id in self.calls.finish() {
            out.push(AdapterEvent::CallAbandoned { call_id });
        }
        self.messages.finish(status == "completed", &mut out);
        let usage = self.usage.current();
        out.push(match status {
            "completed" => AdapterEvent::Completed { usage },
            "interrupted" if self.timed_out => AdapterEvent::Failed {
                code: "request_timeout".into(),
                message: "The Turn exceeded its deadline.".into(),
                http_status: None,
                usage,
            },
            "interrupted" if self.cancel_requested => AdapterEvent::Cancelled { usage },
            _ => {
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
            }
        });
        out
    }

    /// Closing events for a Turn that ends without codex settling it; the last is terminal.
    fn fail(&mut self, code: &str, message: &str) -> Vec<AdapterEvent> {
        let mut out: Vec<AdapterEvent> = self
            .calls
            .finish()
            .into_iter()
            .map(|call_id| AdapterEvent::CallAbandoned { call_id })
            .collect();
        self.messages.finish(false, &mut out);
        out.push(AdapterEvent::Failed {
            code: code.into(),
            message: message.into(),
            http_status: None,
            usage: self.usage.current(),
        });
        out
    }

    async fn call_change(&mut self, change: CallChange) {
        self.emit(change.into_event()).await;
    }

    async fn emit(&self, event: AdapterEvent) {
        // A caller that dropped the stream no longer listens; the Turn still runs to its end.
        let _ = self.events.send(event).await;
    }

    async fn emit_all(&self, events: Vec<AdapterEvent>) {
        for event in events {
            self.emit(event).await;
        }
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The caller's handle on a running Turn.
pub struct CodexTurnControl {
    connection: Arc<Connection>,
    ids: TurnIds,
    commands: mpsc::Sender<Command>,
}

#[async_trait]
impl TurnControl for CodexTurnControl {
    async fn submit_function_result(
        &self,
        call_id: &str,
        result: FunctionResultContent,
    ) -> Receipt {
        let (reply, receipt) = oneshot::channel();
        let command = Command::Submit {
            call_id: call_id.to_owned(),
            result,
            reply,
        };
        if self.commands.send(command).await.is_err() {
            return Receipt::refused("turn_ended", "The Turn has ended.");
        }
        // The driver answers every command it takes (a delivered result's waiter is settled when
        // the Turn ends); a dropped reply means the Turn ended before the result was written.
        receipt
            .await
            .unwrap_or_else(|_| Receipt::refused("turn_ended", "The Turn has ended."))
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
        self.commands
            .send(Command::CancelRequested)
            .await
            .map_err(|_| AdapterError::NoActiveTurn)?;
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
