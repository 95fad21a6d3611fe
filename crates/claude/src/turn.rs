//! One running Turn on claude: what claude's output and the caller's controls mean.
//!
//! The driver loop, the deadline and the hand-back are the adapter kit's
//! ([`switchboard_adapter_kit::turn`]).
//!
//! **When a Turn ends.** Every `user` line the Turn writes (its input, then each steer) carries
//! a UUID of ours. claude queues such a line and either folds it into the running native turn
//! (the next model request sees it, beside a tool result) or, when it arrives after the last
//! model request, runs it as a native turn of its own. Each native turn ends with a `result`
//! listing the UUIDs it consumed (`user_message_uuids`). The Turn ends at the first `result`
//! after which none of its UUIDs is outstanding, so a late steer extends the Turn instead of
//! leaking into the next one. A UUID claude cancelled (`command_lifecycle: cancelled`) is no
//! longer outstanding; if that leaves nothing running, the Turn ends without a `result`.
//!
//! **A steer is accepted** when claude reports the line queued (`command_lifecycle`), or
//! consumed, not merely when it was written to stdin; a steer claude cancels is refused.
//!
//! **Cancel** sends `interrupt` with `cancel_queued: true`: without it claude may put an
//! interrupted prompt back in its queue and run it again later on its own. The Turn ends
//! `Cancelled` at the interrupted turn's `result` (`error_during_execution`), or `Completed`
//! when it had already finished. The per-Turn deadline sends the same `interrupt`, and fails
//! the Turn with `request_timeout`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_adapter_kit::receipts::CallChange;
use switchboard_adapter_kit::turn::{self, StopRequests, TurnCommands, TurnDriver, TurnIo};
use switchboard_protocol::messages::{MessagePhase, Usage};
use switchboard_protocol::{
    AdapterError, AdapterEvent, FunctionResultContent, InputPart, Receipt, TurnControl,
};
use tokio::sync::oneshot;

use crate::commands::Commands;
use crate::events::{Messages, add_usage, is_child_live, is_root_live, result_error, result_usage};
use crate::functions::call_result;
use crate::input::user_content;
use crate::inventory::Inventory;
use crate::launch::CONTROL_TIMEOUT;
use crate::mcp::McpCalls;
use crate::native_result::ExpectedRecord;
use crate::receipts::{self, CallTable, McpRoute, observe_cancelled, observe_tool_result};
use crate::stream::{Connection, Inbound, StreamError};
use crate::structured::StructuredOutput;
use crate::subagents::Children;
use crate::web_search::WebSearches;

/// A steer from [`ClaudeTurnControl`]: a further `user` line, accepted once claude reports it.
struct Steer {
    content: Value,
    reply: oneshot::Sender<Result<(), AdapterError>>,
}

/// Why the loop stopped.
enum Ending {
    /// The `result` after which nothing of the Turn is outstanding.
    Result(Value),
    /// claude cancelled the Turn's remaining input before any native turn ran it.
    InputCancelled,
}

/// What the driver starts with.
pub struct TurnSetup {
    pub connection: Arc<Connection>,
    pub io: TurnIo<Inbound>,
    /// The UUID of the Turn's input line (already written).
    pub input_uuid: String,
    /// The Turn must end with a structured answer.
    pub structured: bool,
    /// Native names of the Session's MCP tools ([`crate::mcp::McpPlan::names`]).
    pub mcp_names: Arc<HashMap<String, (String, String)>>,
    pub inventory: Arc<Inventory>,
    pub deadline: Duration,
    /// `CLAUDE_CONFIG_DIR` (the children's transcripts).
    pub config_dir: std::path::PathBuf,
}

/// Starts the driver task and returns the Turn's control handle.
pub fn spawn(setup: TurnSetup) -> Arc<ClaudeTurnControl> {
    let driver = Driver {
        connection: setup.connection.clone(),
        calls: receipts::new_table(),
        messages: Messages::default(),
        searches: WebSearches::default(),
        commands: Commands::default(),
        children: Children::new(setup.mcp_names.clone(), setup.config_dir),
        mcp_calls: McpCalls::new(setup.mcp_names),
        structured: setup.structured.then(StructuredOutput::default),
        outstanding: HashSet::from([setup.input_uuid]),
        unacknowledged: HashMap::new(),
        native_running: false,
        usage: None,
        stop: StopRequests::default(),
        inventory: setup.inventory,
        inventory_error: None,
    };
    let commands = turn::spawn(driver, setup.io, setup.deadline);
    Arc::new(ClaudeTurnControl {
        connection: setup.connection,
        commands,
    })
}

struct Driver {
    connection: Arc<Connection>,
    calls: CallTable,
    messages: Messages,
    searches: WebSearches,
    commands: Commands,
    mcp_calls: McpCalls,
    /// The native Subagents of a multi-agent Session ([`crate::subagents`]).
    children: Children,
    structured: Option<StructuredOutput>,
    /// UUIDs of the Turn's user lines that no native turn has consumed yet.
    outstanding: HashSet<String>,
    /// Steers written but not yet acknowledged by claude, by UUID.
    unacknowledged: HashMap<String, oneshot::Sender<Result<(), AdapterError>>>,
    /// A native turn is under way (its `result` has not arrived).
    native_running: bool,
    usage: Option<Usage>,
    stop: StopRequests,
    inventory: Arc<Inventory>,
    /// The inventory check failed: the native turn is interrupted and the Turn fails with this.
    inventory_error: Option<String>,
}

impl TurnDriver for Driver {
    type Inbound = Inbound;
    type Command = Steer;
    type Ending = Ending;
    type Route = McpRoute;
    type Expected = ExpectedRecord;

    const HARNESS: &'static str = "claude";

    /// Each stream-json message but a streaming event is a span in the Turn's trace
    /// (`claude.call`, `claude.message` with its `type`).
    async fn handle(&mut self, inbound: Inbound, out: &mut Vec<AdapterEvent>) -> Option<Ending> {
        let span = match &inbound {
            Inbound::Call { call, .. } => tracing::info_span!(
                "claude.call",
                rpc.method = "tools/call",
                rpc.jsonrpc.request_id = %call.mcp_id,
            ),
            Inbound::CallCancelled { mcp_id } => tracing::info_span!(
                "claude.call_cancelled",
                rpc.jsonrpc.request_id = %mcp_id,
            ),
            Inbound::Message(m) => match m.get("type").and_then(Value::as_str) {
                Some("stream_event") => tracing::Span::none(),
                kind => tracing::info_span!("claude.message", claude.type = kind.unwrap_or("")),
            },
        };
        span.in_scope(|| self.handle_inbound(inbound, out))
    }

    async fn submit(
        &mut self,
        call_id: String,
        result: FunctionResultContent,
        reply: oneshot::Sender<Receipt>,
    ) {
        let (route, name) = match self.calls.begin_answer(&call_id) {
            Ok(found) => found,
            Err(refusal) => {
                let _ = reply.send(refusal);
                return;
            }
        };
        // Content claude cannot take is refused before anything is written: the call stays
        // pending for a result it can take.
        let mcp_result = match call_result(&result) {
            Ok(mcp_result) => mcp_result,
            Err(error) => {
                let _ = reply.send(Receipt::refused("unsupported_content", error.to_string()));
                return;
            }
        };
        let response =
            json!({"mcp_response": {"jsonrpc": "2.0", "id": route.mcp_id, "result": mcp_result}});
        match self
            .connection
            .respond(&route.control_request_id, response)
            .await
        {
            Ok(()) => self
                .calls
                .answered(&call_id, ExpectedRecord::new(&name, &result), reply),
            Err(error) => {
                self.calls.undelivered(&call_id);
                let _ = reply.send(Receipt::Unconfirmed {
                    reason: format!("writing the result failed: {error}"),
                });
            }
        }
    }

    async fn command(&mut self, Steer { content, reply }: Steer) {
        if self.stop.stopping() {
            let _ = reply.send(Err(AdapterError::Rejected {
                code: "turn_cancelling".into(),
                message: "The Turn is being cancelled.".into(),
            }));
            return;
        }
        let uuid = uuid::Uuid::new_v4().to_string();
        self.outstanding.insert(uuid.clone());
        match self.connection.send_user(&uuid, content).await {
            Ok(()) => {
                self.unacknowledged.insert(uuid, reply);
            }
            Err(error) => {
                self.outstanding.remove(&uuid);
                let _ = reply.send(Err(stream_error(error)));
            }
        }
    }

    fn calls(&mut self) -> &mut CallTable {
        &mut self.calls
    }

    fn stop_requests(&mut self) -> &mut StopRequests {
        &mut self.stop
    }

    /// Sends `interrupt` without waiting in the loop, which must go on draining claude's output.
    fn interrupt(&self) {
        let connection = self.connection.clone();
        tokio::spawn(async move {
            let _ = connection
                .request(interrupt_request(), CONTROL_TIMEOUT)
                .await;
        });
    }

    /// The Turn's closing events; the last one is terminal.
    fn settle(&mut self, ending: Ending) -> Vec<AdapterEvent> {
        let mut out = self.calls.finish_events();
        let usage = self.usage;
        if let Some(message) = self.inventory_error.take() {
            self.messages.abandon(&mut out);
            out.push(AdapterEvent::Failed {
                code: "server_error".into(),
                message,
                http_status: None,
                usage,
            });
            return out;
        }
        let result = match ending {
            Ending::Result(result) => result,
            Ending::InputCancelled => {
                self.messages.abandon(&mut out);
                out.push(self.stop.stopped(usage, |usage| AdapterEvent::Failed {
                    code: "server_error".into(),
                    message: "claude cancelled the Turn's input.".into(),
                    http_status: None,
                    usage,
                }));
                return out;
            }
        };
        let succeeded = result.get("is_error").and_then(Value::as_bool) != Some(true)
            && result.get("subtype").and_then(Value::as_str) == Some("success");
        if succeeded && !self.stop.timed_out {
            match &mut self.structured {
                None => {
                    self.messages.finish(true, &mut out);
                    out.push(AdapterEvent::Completed { usage });
                }
                Some(structured) => {
                    // Assistant prose stays commentary under its own id; the answer is claude's
                    // `result.result`, as one message with the StructuredOutput call's id.
                    self.messages.finish(false, &mut out);
                    match structured.take_answer(&result) {
                        Ok(answer) => {
                            out.push(AdapterEvent::MessageStarted {
                                item_id: answer.item_id.clone(),
                                phase: Some(MessagePhase::FinalAnswer),
                            });
                            out.push(AdapterEvent::MessageDelta {
                                item_id: answer.item_id.clone(),
                                delta: answer.text.clone(),
                            });
                            out.push(AdapterEvent::MessageCompleted {
                                item_id: answer.item_id,
                                phase: MessagePhase::FinalAnswer,
                                text: answer.text,
                            });
                            out.push(AdapterEvent::Completed { usage });
                        }
                        Err(message) => out.push(AdapterEvent::Failed {
                            code: "server_error".into(),
                            message: message.into(),
                            http_status: None,
                            usage,
                        }),
                    }
                }
            }
            return out;
        }
        self.messages.abandon(&mut out);
        out.push(self.stop.stopped(usage, |usage| {
            let (code, message, http_status) = result_error(&result);
            AdapterEvent::Failed {
                code,
                message,
                http_status,
                usage,
            }
        }));
        out
    }

    fn close_messages(&mut self, out: &mut Vec<AdapterEvent>) {
        self.messages.abandon(out);
    }

    fn usage(&self) -> Option<Usage> {
        self.usage
    }
}

impl Driver {
    fn handle_inbound(&mut self, inbound: Inbound, out: &mut Vec<AdapterEvent>) -> Option<Ending> {
        match inbound {
            Inbound::Call {
                control_request_id,
                call,
            } => {
                // The model's tool-use id when claude sends it (it always did in 2.1.332), so the
                // call, its native record and the provider's history share one id.
                let call_id = call
                    .tool_use_id
                    .clone()
                    .unwrap_or_else(|| format!("mcp_call_{}", call.mcp_id));
                // Register first: the call must be answerable the moment it is published.
                let route = McpRoute {
                    control_request_id,
                    mcp_id: call.mcp_id,
                };
                self.calls.register(&call_id, &call.name, route);
                match self.children.caller(&call_id).map(str::to_owned) {
                    // A Subagent's call: a required action of this (the root) Turn.
                    Some(agent) => {
                        self.children
                            .function_call(&agent, call_id, call.name, call.arguments, out)
                    }
                    None => out.push(AdapterEvent::FunctionCall {
                        call_id,
                        name: call.name,
                        arguments: call.arguments,
                    }),
                }
                None
            }
            Inbound::CallCancelled { mcp_id } => {
                out.extend(observe_cancelled(&mut self.calls, &mcp_id).map(CallChange::into_event));
                None
            }
            Inbound::Message(message) => self.message(message, out),
        }
    }

    fn message(&mut self, message: Value, out: &mut Vec<AdapterEvent>) -> Option<Ending> {
        match message.get("type").and_then(Value::as_str) {
            Some("stream_event") => {
                self.native_running = true;
                if is_root_live(&message)
                    && let Some(event) = message.get("event")
                {
                    self.messages.stream_event(event, out);
                }
            }
            Some("assistant") => {
                self.native_running = true;
                if is_root_live(&message)
                    && let Some(body) = message.get("message")
                {
                    for tool_use in self.messages.assistant(body, out) {
                        if let Some(structured) = &mut self.structured {
                            structured.tool_use(&tool_use);
                        }
                    }
                    self.searches.assistant(body, out);
                    self.commands.assistant(body, out);
                    self.mcp_calls.assistant(body, out);
                    self.children.root_assistant(body, out);
                } else if is_child_live(&message) {
                    self.children.child_message(&message, out);
                }
            }
            Some("user") if is_child_live(&message) => {
                for block in self.children.child_message(&message, out) {
                    out.extend(
                        observe_tool_result(&mut self.calls, &block).map(CallChange::into_event),
                    );
                }
            }
            Some("user") if is_root_live(&message) => {
                let blocks = message
                    .pointer("/message/content")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                self.searches.user(&blocks, out);
                self.commands.user(&blocks, out);
                self.mcp_calls.user(&blocks, out);
                self.children.root_user(&blocks, out);
                for block in blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                {
                    out.extend(
                        observe_tool_result(&mut self.calls, block).map(CallChange::into_event),
                    );
                    if let Some(structured) = &mut self.structured {
                        structured.tool_result(block);
                    }
                }
            }
            // A native turn announces itself (`init`, then `status: requesting` per request);
            // other system notices may come between turns and say nothing about one running.
            Some("system")
                if matches!(
                    message.get("subtype").and_then(Value::as_str),
                    Some("init" | "status")
                ) =>
            {
                self.native_running = true;
                if message.get("subtype").and_then(Value::as_str) == Some("init")
                    && self.inventory_error.is_none()
                    && let Err(error) = self.inventory.check(&message)
                {
                    tracing::warn!(%error, "claude's tool inventory differs; the Turn fails");
                    self.inventory_error = Some(error);
                    self.interrupt();
                }
            }
            Some("system")
                if matches!(
                    message.get("subtype").and_then(Value::as_str),
                    Some("task_started" | "task_notification")
                ) =>
            {
                self.children.system(&message, out);
            }
            Some("command_lifecycle") => {
                let uuid = message.get("command_uuid").and_then(Value::as_str)?;
                let state = message.get("state").and_then(Value::as_str);
                self.acknowledge(uuid, state != Some("cancelled"));
                match state {
                    Some("started") if self.outstanding.contains(uuid) => {
                        self.native_running = true
                    }
                    Some("cancelled") => {
                        let ours = self.outstanding.remove(uuid);
                        if ours && self.outstanding.is_empty() && !self.native_running {
                            return Some(Ending::InputCancelled);
                        }
                    }
                    _ => {}
                }
            }
            Some("result") => return self.result(message, out),
            _ => {}
        }
        None
    }

    /// A native turn ended. Returns the ending when nothing of the Turn is outstanding.
    fn result(&mut self, result: Value, out: &mut Vec<AdapterEvent>) -> Option<Ending> {
        self.native_running = false;
        match result.get("user_message_uuids").and_then(Value::as_array) {
            Some(consumed) => {
                for uuid in consumed.iter().filter_map(Value::as_str) {
                    self.outstanding.remove(uuid);
                    self.acknowledge(uuid, true);
                }
            }
            // No accounting reported: nothing can be known to be outstanding.
            None => self.outstanding.clear(),
        }
        if let Some(usage) = result_usage(&result) {
            self.usage = add_usage(self.usage, Some(usage));
            out.extend(self.usage.map(AdapterEvent::Usage));
        }
        // An interrupt (cancel or deadline) dropped whatever was still queued: this result is
        // the last.
        if self.outstanding.is_empty() || self.stop.stopping() {
            return Some(Ending::Result(result));
        }
        // A steer arrived after the last model request: claude runs it as a native turn of its
        // own, which belongs to this Turn. Its answer must be its own.
        if let Some(structured) = &mut self.structured {
            let _ = structured.take_answer(&result);
        }
        None
    }

    /// Answers a steer's caller once claude reported its line: taken (queued, started,
    /// consumed) or dropped.
    fn acknowledge(&mut self, uuid: &str, taken: bool) {
        if let Some(reply) = self.unacknowledged.remove(uuid) {
            let _ = reply.send(if taken {
                Ok(())
            } else {
                Err(AdapterError::Rejected {
                    code: "steer_cancelled".into(),
                    message: "claude dropped the steered input.".into(),
                })
            });
        }
    }
}

/// `interrupt` that also drops the Turn's queued input (see the module docs).
fn interrupt_request() -> Value {
    json!({"subtype": "interrupt", "cancel_queued": true})
}

/// Maps a stream failure onto the adapter's error.
pub fn stream_error(error: StreamError) -> AdapterError {
    match error {
        StreamError::Closed | StreamError::Write(_) => AdapterError::Exited,
        StreamError::Timeout(subtype) => AdapterError::Timeout(subtype),
        StreamError::Refused { subtype, message } => AdapterError::Rejected {
            code: "harness_rejected".into(),
            message: format!("{subtype}: {message}"),
        },
    }
}

/// The caller's handle on a running Turn.
pub struct ClaudeTurnControl {
    connection: Arc<Connection>,
    commands: TurnCommands<Steer>,
}

#[async_trait]
impl TurnControl for ClaudeTurnControl {
    async fn submit_function_result(
        &self,
        call_id: &str,
        result: FunctionResultContent,
    ) -> Receipt {
        self.commands.submit_function_result(call_id, result).await
    }

    async fn steer(&self, input: Vec<InputPart>) -> Result<(), AdapterError> {
        let content = user_content(&input)?;
        let (reply, accepted) = oneshot::channel();
        self.commands.send(Steer { content, reply }).await?;
        // A Turn that ends before claude reported the line drops the reply.
        match tokio::time::timeout(CONTROL_TIMEOUT, accepted).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(AdapterError::NoActiveTurn),
            Err(_) => Err(AdapterError::Timeout("steer".into())),
        }
    }

    async fn cancel(&self) -> Result<(), AdapterError> {
        // Tell the driver first, so the interrupted turn's result is read as our cancel.
        self.commands.request_cancel().await?;
        self.connection
            .request(interrupt_request(), CONTROL_TIMEOUT)
            .await
            .map(|_| ())
            .map_err(stream_error)
    }
}
