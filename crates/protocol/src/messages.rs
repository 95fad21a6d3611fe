//! Every message payload, grouped by direction.
//!
//! Core → Runtime: `welcome`, `hello_refused`, `execution_prepare`, `execution_start`,
//! `execution_release`, `prompt_steer`, `prompt_cancel`, `function_result`, `workspace_write`,
//! `workspace_list`, `workspace_remove`.
//!
//! Runtime → Core: `hello`, `heartbeat`, `preparation_status`, `output_message`, `delta`,
//! `reasoning`, `command_execution`, `web_search_call`, `mcp_call`, `usage`, `function_call`,
//! `call_abandoned`, `interaction_decision_ack`, `prompt_steer_ack`, `error`, `done`,
//! `protocol_error`, `workspace_result`, and a multi-agent Turn's `subagent_status`,
//! `subagent_turn`, `subagent_item`, `subagent_function_call`, `coordination_call`
//! ([`crate::subagents`]).
//!
//! Ordering rules the Runtime keeps (core-contracts §6.6): a Turn emits only its own events, in
//! order; a message is `output_message{in_progress}`, its `delta`s, then
//! `output_message{completed}` with the whole text; `usage` frames are cumulative snapshots
//! (replace, never add); a Turn ends with at most one `error` and exactly one `done`.
//!
//! Every payload struct denies unknown members, at every depth.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::capabilities::HarnessAdvertisement;
use crate::configuration::SessionConfiguration;
use crate::content::{FunctionOutput, FunctionResultContent, InputPart};
use crate::envelope::{DecodeError, MessageSet, decode_payload};
pub use crate::handshake::{Hello, HelloRefused, Welcome};
pub use crate::workspace::{WorkspaceList, WorkspaceRemove, WorkspaceResult, WorkspaceWrite};

/// Declares a direction's message enum and its `MessageSet` mapping in one table, so a wire name
/// and its payload type can never drift apart.
macro_rules! message_set {
    ($(#[$meta:meta])* $name:ident { $($wire:literal => $variant:ident($payload:ty),)+ }) => {
        $(#[$meta])*
        // Frames are built once and moved, never stored in bulk: boxing the large
        // `execution_prepare` payload would only cost ergonomics.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $($variant($payload),)+
        }

        impl MessageSet for $name {
            fn type_name(&self) -> &'static str {
                match self {
                    $($name::$variant(_) => $wire,)+
                }
            }

            fn payload_json(&self) -> Result<Box<RawValue>, serde_json::Error> {
                match self {
                    $($name::$variant(p) => serde_json::value::to_raw_value(p),)+
                }
            }

            fn decode(type_name: &str, payload: &str) -> Result<Self, DecodeError> {
                match type_name {
                    $($wire => decode_payload(type_name, payload).map($name::$variant),)+
                    other => Err(DecodeError::UnknownType(other.to_owned())),
                }
            }
        }

        $(
            impl From<$payload> for $name {
                fn from(p: $payload) -> Self {
                    $name::$variant(p)
                }
            }
        )+
    };
}

message_set! {
    /// Frames Core sends to a Runtime.
    CoreToRuntime {
        "welcome" => Welcome(Welcome),
        "hello_refused" => HelloRefused(HelloRefused),
        "execution_prepare" => ExecutionPrepare(ExecutionPrepare),
        "execution_start" => ExecutionStart(ExecutionStart),
        "execution_release" => ExecutionRelease(ExecutionRelease),
        "prompt_steer" => PromptSteer(PromptSteer),
        "prompt_cancel" => PromptCancel(PromptCancel),
        "function_result" => FunctionResult(FunctionResult),
        "workspace_write" => WorkspaceWrite(WorkspaceWrite),
        "workspace_list" => WorkspaceList(WorkspaceList),
        "workspace_remove" => WorkspaceRemove(WorkspaceRemove),
    }
}

message_set! {
    /// Frames a Runtime sends to Core.
    RuntimeToCore {
        "hello" => Hello(Hello),
        "heartbeat" => Heartbeat(Heartbeat),
        "preparation_status" => PreparationStatus(PreparationStatus),
        "output_message" => OutputMessage(OutputMessage),
        "delta" => Delta(Delta),
        "reasoning" => Reasoning(Reasoning),
        "command_execution" => CommandExecution(CommandExecution),
        "web_search_call" => WebSearchCall(WebSearchCall),
        "mcp_call" => McpCall(crate::mcp::McpCall),
        "usage" => Usage(Usage),
        "function_call" => FunctionCall(FunctionCall),
        "call_abandoned" => CallAbandoned(CallAbandoned),
        "interaction_decision_ack" => InteractionDecisionAck(InteractionDecisionAck),
        "function_result_applied" => FunctionResultApplied(FunctionResultApplied),
        "prompt_steer_ack" => PromptSteerAck(PromptSteerAck),
        "error" => Error(ErrorEvent),
        "done" => Done(Done),
        "protocol_error" => ProtocolError(ProtocolError),
        "workspace_result" => WorkspaceResult(WorkspaceResult),
        "subagent_status" => SubagentStatus(crate::subagents::SubagentStatus),
        "subagent_turn" => SubagentTurn(crate::subagents::SubagentTurn),
        "subagent_item" => SubagentItem(crate::subagents::SubagentItem),
        "subagent_function_call" => SubagentFunctionCall(crate::subagents::SubagentFunctionCall),
        "coordination_call" => CoordinationCall(crate::subagents::CoordinationCall),
    }
}

// ---------------------------------------------------------------------------------------------
// Core → Runtime

/// Prepare native execution for a Session. Frame id: the Session ID.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutionPrepare {
    pub session_id: String,
    pub configuration: SessionConfiguration,
}

/// Start one Turn on a prepared Session. Frame id: the Run ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutionStart {
    pub session_id: String,
    pub run_id: String,
    pub turn_id: String,
    /// The user message, as ordered parts.
    pub input: Vec<InputPart>,
    /// The W3C `traceparent` of Core's dispatch span (1.5.0): the Runtime's spans of this Turn
    /// join Core's trace under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
}

/// Release a prepared Session (its executor may be dropped). Frame id: the Session ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutionRelease {
    pub session_id: String,
}

/// Add input to the running Turn. Frame id: the Run ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptSteer {
    pub input_id: String,
    pub input: Vec<InputPart>,
}

/// Cancel the running Turn. Frame id: the Run ID. Settlement is the Turn's `done{cancelled}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptCancel {}

/// An admitted function result. Frame id: the Run ID. Answered by `interaction_decision_ack`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionResult {
    pub delivery_id: String,
    pub call_id: String,
    pub success: bool,
    pub output: Option<FunctionOutput>,
    pub error: Option<String>,
}

impl FunctionResult {
    /// The submission without its delivery identity, as adapters take it.
    pub fn content(&self) -> FunctionResultContent {
        FunctionResultContent {
            success: self.success,
            output: self.output.clone(),
            error: self.error.clone(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Runtime → Core

/// Liveness and the Runtime's harness advertisement. No frame id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    pub supported_harnesses: Vec<HarnessAdvertisement>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreparationState {
    Preparing,
    /// The preparation waits for a harness process slot (every slot runs a Turn); `preparing`
    /// follows once it has one. Core bounds the preparation, not this wait.
    Queued,
    Ready,
    Failed,
    Released,
}

/// Progress of `execution_prepare` / `execution_release`. Frame id: the Session ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreparationStatus {
    pub session_id: String,
    pub state: PreparationState,
    pub error_code: Option<String>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    InProgress,
    Completed,
}

/// Which part of a Turn an assistant message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessagePhase {
    /// Text before the end of the Turn: narration, progress.
    Commentary,
    /// The Turn's answer; with `text.format` json_schema, the structured output text.
    FinalAnswer,
}

/// An assistant message item, opened (`in_progress`, empty text) or closed (`completed`, whole
/// text). Frame id: the Run ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputMessage {
    pub id: String,
    pub status: MessageStatus,
    /// Null while the phase is not known yet.
    pub phase: Option<MessagePhase>,
    pub text: String,
}

/// A text chunk of an open assistant message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delta {
    pub item_id: String,
    pub delta: String,
}

/// A completed reasoning item (summary text when the harness reports one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reasoning {
    pub item_id: String,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandStatus {
    InProgress,
    Completed,
    Failed,
    Declined,
}

/// A native command the harness ran (an observation, not a caller function).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandExecution {
    pub item_id: String,
    pub command: String,
    pub status: CommandStatus,
    pub exit_code: Option<i64>,
    pub output: Option<String>,
    /// The directory the command ran in, when the harness reports it.
    #[serde(default)]
    pub cwd: Option<String>,
    /// How long the command ran, when the harness reports it.
    #[serde(default)]
    pub duration_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebSearchStatus {
    InProgress,
    Completed,
    /// The search did not finish (the harness reported it failed or cut off).
    Incomplete,
}

/// What a native web search did, in the official Item's shape (agents-api-wire §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum WebSearchAction {
    Search {
        query: Option<String>,
        queries: Option<Vec<String>>,
    },
    OpenPage {
        url: Option<String>,
    },
    FindInPage {
        url: Option<String>,
        pattern: Option<String>,
    },
    Other,
}

/// A web search the harness ran natively (provider-side or its own tool): an observation,
/// not a caller function. Sent when it starts and again when it ends, with the same id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSearchCall {
    pub item_id: String,
    pub status: WebSearchStatus,
    /// Null while the harness has not said what the search does.
    pub action: Option<WebSearchAction>,
}

/// A cumulative usage snapshot for the Turn (replace, never add).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_output_tokens: u64,
    pub total_tokens: u64,
}

/// The model asked for an application function: a required action until a result is applied,
/// the call is abandoned, or the Turn settles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionCall {
    pub call_id: String,
    pub name: String,
    /// The arguments as exact JSON text.
    pub arguments: String,
}

/// The harness abandoned a call before any result was applied; a later result is rejected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallAbandoned {
    pub call_id: String,
}

/// A result whose receipt went out unconfirmed (the wait for its native record ran out) was
/// applied natively after all, in the live Turn that made the call. Turn output: frame id is
/// the Run ID. A confirmed receipt never has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionResultApplied {
    pub call_id: String,
}

/// The application receipt of a `function_result`.
///
/// `applied: true` means the adapter saw the native harness apply exactly this result in the
/// live Turn. `applied: false` with `function_result_unconfirmed` means the outcome is unknown
/// so far (a later `function_result_applied` may still report it applied); with
/// `call_abandoned`, the harness had abandoned the call before the result reached it; with any
/// other code, the result was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InteractionDecisionAck {
    pub delivery_id: String,
    pub applied: bool,
    pub error_code: Option<String>,
    pub error: Option<String>,
}

/// The receipt of a `prompt_steer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptSteerAck {
    pub input_id: String,
    pub accepted: bool,
    pub error_code: Option<String>,
    pub error: Option<String>,
}

/// A Turn failure, always followed by `done{outcome: failed}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorEvent {
    /// A native error code (core-contracts §6.7), e.g. `server_error`, `request_timeout`.
    pub code: String,
    pub message: String,
    /// The provider's HTTP status, only with `connection_failed`.
    pub http_status: Option<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOutcome {
    Completed,
    Failed,
    Cancelled,
}

/// The last frame of a Turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Done {
    pub outcome: TurnOutcome,
    /// The final usage snapshot; null when unknown.
    pub usage: Option<Usage>,
}

/// A frame the receiver could not route or decode. Frame id: the offending frame's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolError {
    /// The offending frame's `type`, when it could be read.
    #[serde(rename = "type")]
    pub frame_type: Option<String>,
    pub error_code: String,
    pub message: String,
}
