//! The per-Turn driver: `session/update` notifications as adapter events, the `functions`
//! calls, permission requests, cancel and the Turn's end (`session/prompt`'s answer).
//!
//! - Message chunks stream into one message Item until something else happens (a tool call);
//!   then it closes as commentary, and the message still open when the prompt ends with
//!   `end_turn` is the final answer. Thought chunks gather into one reasoning Item.
//! - A `functions` call arrives twice: as the agent's `tool_call` notification (with its tool
//!   call id) and as the MCP request ([`crate::functions`]), in either order. The MCP request is
//!   the call, published at once under the agent's tool call id when that is already known (else
//!   an id of ours, and the agent's id becomes an alias); the agent's later `tool_call_update`
//!   that completes it is the receipt ([`crate::receipts`]).
//! - The agent asks before each MCP call (`session/request_permission`): a call of the
//!   Session's own servers is allowed once; a native tool is allowed on a workspace placement
//!   (the workspace, or its sandbox, is the boundary, and nobody could answer the ask) and
//!   refused on `environment: none`, which has no built-in tools.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    ContentBlock, SessionNotification, SessionUpdate, ToolCallStatus,
};
use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_adapter_kit::receipts::CallChange;
use switchboard_adapter_kit::turn::{self, StopRequests, TurnCommands, TurnDriver, TurnIo};
use switchboard_protocol::adapter::CALL_ABANDONED;
use switchboard_protocol::content::ResultPart;
use switchboard_protocol::messages::{MessagePhase, Usage};
use switchboard_protocol::{
    AdapterError, AdapterEvent, FunctionResultContent, InputPart, Receipt, TurnControl,
};
use tokio::sync::oneshot;
use tracing::Instrument;

use crate::commands::Commands;
use crate::functions::{CallAnswer, McpCall, SERVER_LABEL};
use crate::receipts::{self, CallTable};
use crate::rpc::{Connection, Inbound, RpcError};
use switchboard_adapter_kit::jsonrpc::Message;

/// How long the agent may take to answer a control request.
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

/// An agent tool call of the `functions` server not paired with its MCP request yet.
struct AgentCall {
    tool_call_id: String,
    tool: String,
    arguments: Value,
}

/// A published call whose agent tool call id is not known yet.
struct Unpaired {
    call_id: String,
    tool: String,
    arguments: Value,
}

#[derive(Default)]
struct Messages {
    open: Option<(String, String)>,
}

impl Messages {
    fn delta(&mut self, text: &str, out: &mut Vec<AdapterEvent>) {
        let (item_id, whole) = self.open.get_or_insert_with(|| {
            let item_id = new_id("msg");
            out.push(AdapterEvent::MessageStarted {
                item_id: item_id.clone(),
                phase: None,
            });
            (item_id, String::new())
        });
        whole.push_str(text);
        out.push(AdapterEvent::MessageDelta {
            item_id: item_id.clone(),
            delta: text.to_owned(),
        });
    }

    /// Closes the open message with `phase`.
    fn close(&mut self, phase: MessagePhase, out: &mut Vec<AdapterEvent>) {
        if let Some((item_id, text)) = self.open.take() {
            out.push(AdapterEvent::MessageCompleted {
                item_id,
                phase,
                text,
            });
        }
    }
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

pub struct Driver {
    connection: Arc<Connection>,
    session_id: String,
    calls: CallTable,
    /// The MCP requests waiting for their answers, by call id.
    replies: HashMap<String, oneshot::Sender<CallAnswer>>,
    agent_calls: Vec<AgentCall>,
    unpaired: Vec<Unpaired>,
    /// Agent tool call id → our call id.
    aliases: HashMap<String, String>,
    /// Labels of the servers whose calls the agent may make (ours and the Session's).
    allowed_servers: Vec<String>,
    /// Whether the agent's native tools may run (a workspace placement).
    native_tools: bool,
    messages: Messages,
    /// The agent's native commands (a workspace placement).
    commands: Commands,
    thought: Option<(String, String)>,
    stop: StopRequests,
    usage: Option<Usage>,
}

impl Driver {
    async fn handle_message(
        &mut self,
        message: Inbound,
        out: &mut Vec<AdapterEvent>,
    ) -> Option<Result<Value, RpcError>> {
        match message {
            Inbound::Agent(Message::Notification { method, params })
                if method == "session/update" =>
            {
                match serde_json::from_value::<SessionNotification>(params) {
                    Ok(n) if *n.session_id.0 == *self.session_id => self.update(n.update, out),
                    Ok(_) => {}
                    Err(error) => tracing::debug!(%error, "unreadable session/update"),
                }
                None
            }
            Inbound::Agent(Message::Notification { .. }) => None,
            Inbound::Agent(Message::Request { id, method, params }) => {
                self.request(id, &method, params).await;
                None
            }
            Inbound::FunctionCall(call) => {
                self.function_call(call, out);
                None
            }
            Inbound::PromptDone(done) => Some(done),
        }
    }

    fn flush_thought(&mut self, out: &mut Vec<AdapterEvent>) {
        if let Some((item_id, text)) = self.thought.take() {
            out.push(AdapterEvent::Reasoning { item_id, text });
        }
    }

    fn update(&mut self, update: SessionUpdate, out: &mut Vec<AdapterEvent>) {
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                if let ContentBlock::Text(text) = chunk.content {
                    self.flush_thought(out);
                    self.messages.delta(&text.text, out);
                }
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                if let ContentBlock::Text(text) = chunk.content {
                    let (_, whole) = self
                        .thought
                        .get_or_insert_with(|| (new_id("rs"), String::new()));
                    whole.push_str(&text.text);
                }
            }
            SessionUpdate::ToolCall(call) => {
                self.flush_thought(out);
                self.messages.close(MessagePhase::Commentary, out);
                self.commands.reported(&call, out);
                let id = call.tool_call_id.0.to_string();
                if let Some((tool, arguments)) =
                    functions_call(call.raw_input.as_ref(), &call.title)
                {
                    self.agent_call(id, tool, arguments);
                }
                if matches!(
                    call.status,
                    ToolCallStatus::Completed | ToolCallStatus::Failed
                ) {
                    let failed = call.status == ToolCallStatus::Failed;
                    self.ended(&call.tool_call_id.0, call.raw_output.as_ref(), failed, out);
                }
            }
            SessionUpdate::ToolCallUpdate(update) => {
                self.commands.updated(
                    &update.tool_call_id.0,
                    update.fields.raw_input.as_ref(),
                    update.fields.title.as_deref(),
                );
                let ended = matches!(
                    update.fields.status,
                    Some(ToolCallStatus::Completed | ToolCallStatus::Failed)
                );
                if ended {
                    let failed = update.fields.status == Some(ToolCallStatus::Failed);
                    self.commands.ended(
                        &update.tool_call_id.0,
                        failed,
                        update.fields.raw_output.as_ref(),
                        out,
                    );
                    self.ended(
                        &update.tool_call_id.0,
                        update.fields.raw_output.as_ref(),
                        failed,
                        out,
                    );
                }
            }
            _ => {}
        }
    }

    /// The agent reported a tool call of `functions`: pair it with its MCP request, or keep it.
    fn agent_call(&mut self, tool_call_id: String, tool: String, arguments: Value) {
        let paired = self
            .unpaired
            .iter()
            .position(|u| u.tool == tool && u.arguments == arguments);
        match paired {
            Some(i) => {
                let unpaired = self.unpaired.remove(i);
                self.aliases.insert(tool_call_id, unpaired.call_id);
            }
            None => self.agent_calls.push(AgentCall {
                tool_call_id,
                tool,
                arguments,
            }),
        }
    }

    /// A tool call ended in the agent's record. A failure that is not our answer means the
    /// agent gave up on the call (its MCP client timed it out), answered or not: abandoned.
    fn ended(
        &mut self,
        tool_call_id: &str,
        raw_output: Option<&Value>,
        failed: bool,
        out: &mut Vec<AdapterEvent>,
    ) {
        // An agent call that never reached us ended: nothing was published for it.
        self.agent_calls.retain(|c| c.tool_call_id != tool_call_id);
        let call_id = self
            .aliases
            .get(tool_call_id)
            .cloned()
            .unwrap_or_else(|| tool_call_id.to_owned());
        let recorded = |_: &str, answer: &CallAnswer| receipts::records(raw_output, failed, answer);
        let change = failed
            .then(|| self.calls.abandon_answered(&call_id, recorded))
            .flatten()
            .or_else(|| self.calls.observe(&call_id, recorded));
        if let Some(change) = change {
            if matches!(change, CallChange::Abandoned { .. }) {
                // The agent gave up (its MCP client timed out): the MCP request gets the
                // abandonment text when the reply is dropped.
                self.replies.remove(&call_id);
            }
            out.push(change.into_event());
        }
    }

    /// The MCP request of a call: the call itself, published now.
    fn function_call(&mut self, call: McpCall, out: &mut Vec<AdapterEvent>) {
        let McpCall {
            tool,
            arguments,
            reply,
        } = call;
        let paired = self
            .agent_calls
            .iter()
            .position(|c| c.tool == tool && c.arguments == arguments)
            .or_else(|| self.agent_calls.iter().position(|c| c.tool == tool));
        let call_id = match paired {
            Some(i) => self.agent_calls.remove(i).tool_call_id,
            None => {
                let call_id = new_id("call");
                self.unpaired.push(Unpaired {
                    call_id: call_id.clone(),
                    tool: tool.clone(),
                    arguments: arguments.clone(),
                });
                call_id
            }
        };
        // Register first: the call must be answerable the moment it is published.
        self.calls.register(&call_id, &tool, ());
        self.replies.insert(call_id.clone(), reply);
        out.push(AdapterEvent::FunctionCall {
            call_id,
            name: tool,
            arguments: arguments.to_string(),
        });
    }

    async fn request(&mut self, id: Value, method: &str, params: Value) {
        if method == "session/request_permission" {
            let outcome = self.permission(&params);
            let _ = self
                .connection
                .respond(&id, json!({"outcome": outcome}))
                .await;
            return;
        }
        // fs and terminal were not offered at initialize; anything else is not ours.
        let _ = self
            .connection
            .respond_error(
                &id,
                -32601,
                &format!("switchboard does not handle {method}"),
            )
            .await;
    }

    /// Allows a call of the Session's own MCP servers once, and a native tool's on a workspace;
    /// refuses anything else.
    fn permission(&self, params: &Value) -> Value {
        let tool_call = params.get("toolCall").unwrap_or(&Value::Null);
        let id = tool_call
            .get("toolCallId")
            .and_then(Value::as_str)
            .unwrap_or("");
        let known = self.agent_calls.iter().any(|c| c.tool_call_id == id)
            || self.aliases.contains_key(id)
            || self.calls_known(id);
        let title = tool_call.get("title").and_then(Value::as_str).unwrap_or("");
        let server = tool_call
            .pointer("/rawInput/server")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| title_server(title));
        let allowed = known
            || server.is_some_and(|s| self.allowed_servers.contains(&s))
            || title == "Approve MCP tool call"
            || self.native_tools;
        let kind = if allowed { "allow_once" } else { "reject_once" };
        let option = params
            .get("options")
            .and_then(Value::as_array)
            .and_then(|options| {
                options
                    .iter()
                    .find(|o| o.get("kind").and_then(Value::as_str) == Some(kind))
            })
            .and_then(|o| o.get("optionId"))
            .cloned();
        match option {
            Some(option_id) => json!({"outcome": "selected", "optionId": option_id}),
            None => json!({"outcome": "cancelled"}),
        }
    }

    fn calls_known(&self, id: &str) -> bool {
        self.replies.contains_key(id)
    }
}

/// The server's tool and arguments when an agent tool call is a call of `functions`: codex-acp
/// puts `{server, tool, arguments}` in `rawInput`, titled `Tool: functions/<tool>`;
/// claude-agent-acp titles it `mcp__functions__<tool>`, with the arguments as `rawInput` (often
/// still empty at the first notification: pairing falls back to the tool's name).
fn functions_call(raw_input: Option<&Value>, title: &str) -> Option<(String, Value)> {
    if let Some((server, tool)) = mcp_tool_name(title) {
        let arguments = raw_input.cloned().unwrap_or_else(|| json!({}));
        return (server == SERVER_LABEL).then(|| (tool.to_owned(), arguments));
    }
    let raw = raw_input?;
    let server = raw
        .get("server")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| title_server(title))?;
    if server != SERVER_LABEL {
        return None;
    }
    let tool = raw.get("tool").and_then(Value::as_str)?.to_owned();
    let arguments = raw.get("arguments").cloned().unwrap_or_else(|| json!({}));
    Some((tool, arguments))
}

/// `Tool: <server>/<tool>` or `mcp__<server>__<tool>` → `<server>`.
fn title_server(title: &str) -> Option<String> {
    if let Some((server, _)) = mcp_tool_name(title) {
        return Some(server.to_owned());
    }
    let rest = title.strip_prefix("Tool: ")?;
    rest.split_once('/').map(|(server, _)| server.to_owned())
}

/// Claude Code's name of an MCP tool, `mcp__<server>__<tool>` → (server, tool).
fn mcp_tool_name(title: &str) -> Option<(&str, &str)> {
    title.strip_prefix("mcp__")?.split_once("__")
}

/// The MCP answer for a caller's result: its text parts (an error text last), flagged as an
/// error when the result is unsuccessful.
pub fn answer(result: &FunctionResultContent) -> CallAnswer {
    let content = result
        .parts()
        .into_iter()
        .map(|part| match part {
            ResultPart::Text(text) => json!({"type": "text", "text": text}),
            // Refused at admission (the declaration takes no result images); never sent.
            ResultPart::ImageUrl(url) => json!({"type": "text", "text": url}),
        })
        .collect();
    CallAnswer {
        content,
        is_error: !result.success,
    }
}

/// The Turn's usage, when the agent reports it in the prompt's answer.
fn prompt_usage(result: &Value) -> Option<Usage> {
    let usage = result.get("usage")?;
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: n("inputTokens"),
        cached_input_tokens: n("cachedReadTokens"),
        output_tokens: n("outputTokens"),
        reasoning_output_tokens: n("thoughtTokens"),
        total_tokens: n("totalTokens"),
    })
}

impl TurnDriver for Driver {
    type Inbound = Inbound;
    type Command = Infallible;
    type Ending = Result<Value, RpcError>;
    type Route = ();
    type Expected = CallAnswer;

    const HARNESS: &'static str = "acp agent";

    /// Each message but a streamed chunk is a span in the Turn's trace (`acp.request`,
    /// `acp.notification` with its `session/update` kind, `acp.function_call`, `acp.prompt_done`).
    async fn handle(
        &mut self,
        message: Inbound,
        out: &mut Vec<AdapterEvent>,
    ) -> Option<Self::Ending> {
        let span = match &message {
            Inbound::Agent(Message::Notification { method, params }) => {
                let kind = params
                    .pointer("/update/sessionUpdate")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if kind.ends_with("_chunk") {
                    tracing::Span::none()
                } else {
                    tracing::info_span!("acp.notification", rpc.method = %method, acp.update = kind)
                }
            }
            Inbound::Agent(Message::Request { id, method, .. }) => tracing::info_span!(
                "acp.request",
                rpc.method = %method,
                rpc.jsonrpc.request_id = %id,
            ),
            Inbound::FunctionCall(_) => {
                tracing::info_span!("acp.function_call", rpc.method = "tools/call")
            }
            Inbound::PromptDone(_) => tracing::info_span!("acp.prompt_done"),
        };
        self.handle_message(message, out).instrument(span).await
    }

    async fn submit(
        &mut self,
        call_id: String,
        result: FunctionResultContent,
        reply: oneshot::Sender<Receipt>,
    ) {
        if let Err(refusal) = self.calls.begin_answer(&call_id) {
            let _ = reply.send(refusal);
            return;
        }
        let answer = answer(&result);
        let delivered = self
            .replies
            .remove(&call_id)
            .is_some_and(|mcp| mcp.send(answer.clone()).is_ok());
        if delivered {
            self.calls.answered(&call_id, answer, reply);
        } else {
            // The MCP request is gone (the agent dropped it): nothing was delivered.
            self.calls.undelivered(&call_id);
            let _ = reply.send(Receipt::refused(
                CALL_ABANDONED,
                "The agent abandoned the call.",
            ));
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

    fn interrupt(&self) {
        let connection = self.connection.clone();
        let params = json!({"sessionId": self.session_id});
        tokio::spawn(async move {
            let _ = connection.notify("session/cancel", Some(params)).await;
        });
    }

    fn settle(&mut self, ending: Self::Ending) -> Vec<AdapterEvent> {
        let mut out = self.calls.finish_events();
        // Dropping the waiting MCP requests answers them with the abandonment text.
        self.replies.clear();
        self.flush_thought(&mut out);
        if let Ok(result) = &ending {
            self.usage = prompt_usage(result).or(self.usage);
        }
        let usage = self.usage;
        let stop_reason = ending
            .as_ref()
            .ok()
            .and_then(|r| r.get("stopReason"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let terminal = match (&ending, stop_reason.as_deref()) {
            (Ok(_), Some("end_turn")) if !self.stop.timed_out => {
                self.messages.close(MessagePhase::FinalAnswer, &mut out);
                AdapterEvent::Completed { usage }
            }
            (Ok(_), _) if self.stop.stopping() => self
                .stop
                .stopped(usage, |usage| AdapterEvent::Cancelled { usage }),
            (Ok(_), reason) => AdapterEvent::Failed {
                code: "harness_error".into(),
                message: format!(
                    "The agent ended the Turn with stop reason {}.",
                    reason.unwrap_or("(none)")
                ),
                http_status: None,
                usage,
            },
            (Err(RpcError::Closed), _) => AdapterEvent::Failed {
                code: "harness_exited".into(),
                message: "The acp agent process exited during the Turn.".into(),
                http_status: None,
                usage,
            },
            (Err(error), _) => AdapterEvent::Failed {
                code: "model_error".into(),
                message: error.to_string(),
                http_status: None,
                usage,
            },
        };
        out.push(terminal);
        out
    }

    fn close_messages(&mut self, out: &mut Vec<AdapterEvent>) {
        self.flush_thought(out);
    }

    fn usage(&self) -> Option<Usage> {
        self.usage
    }
}

/// What a Turn is started with.
pub struct TurnStart {
    pub connection: Arc<Connection>,
    pub session_id: String,
    pub steer_method: Option<&'static str>,
    pub allowed_servers: Vec<String>,
    /// The Session has a workspace: the agent's native tools run there.
    pub native_tools: bool,
}

/// Starts the Turn's driver; returns its control.
pub fn spawn(start: TurnStart, io: TurnIo<Inbound>, deadline: Duration) -> Arc<dyn TurnControl> {
    let driver = Driver {
        connection: start.connection.clone(),
        session_id: start.session_id.clone(),
        calls: receipts::new_table(),
        replies: HashMap::new(),
        agent_calls: Vec::new(),
        unpaired: Vec::new(),
        aliases: HashMap::new(),
        allowed_servers: start.allowed_servers,
        native_tools: start.native_tools,
        messages: Messages::default(),
        commands: Commands::default(),
        thought: None,
        stop: StopRequests::default(),
        usage: None,
    };
    let commands = turn::spawn(driver, io, deadline);
    Arc::new(AcpTurnControl {
        connection: start.connection,
        session_id: start.session_id,
        steer_method: start.steer_method,
        commands,
    })
}

/// A prompt's content blocks for the Turn's input.
pub fn prompt(input: &[InputPart]) -> Value {
    input
        .iter()
        .map(|part| match part {
            InputPart::InputText { text } => json!({"type": "text", "text": text}),
            InputPart::InputImage { image_url } => {
                json!({"type": "resource_link", "uri": image_url, "name": "image"})
            }
        })
        .collect()
}

/// The caller's handle on a running Turn.
pub struct AcpTurnControl {
    connection: Arc<Connection>,
    session_id: String,
    steer_method: Option<&'static str>,
    commands: TurnCommands<Infallible>,
}

#[async_trait]
impl TurnControl for AcpTurnControl {
    async fn submit_function_result(
        &self,
        call_id: &str,
        result: FunctionResultContent,
    ) -> Receipt {
        self.commands.submit_function_result(call_id, result).await
    }

    async fn steer(&self, input: Vec<InputPart>) -> Result<(), AdapterError> {
        let Some(method) = self.steer_method else {
            return Err(AdapterError::Rejected {
                code: "unsupported_steering".into(),
                message: "This agent has no steering extension.".into(),
            });
        };
        let params = json!({"sessionId": self.session_id, "prompt": prompt(&input)});
        self.connection
            .request(method, params, CONTROL_TIMEOUT)
            .await
            .map(|_| ())
            .map_err(rpc_error)
    }

    async fn cancel(&self) -> Result<(), AdapterError> {
        // Tell the driver first, so a `cancelled` stop reason is read as our cancel.
        self.commands.request_cancel().await?;
        self.connection
            .notify(
                "session/cancel",
                Some(json!({"sessionId": self.session_id})),
            )
            .await
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
