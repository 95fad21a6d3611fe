//! Subagents: what a Runtime observes of a multi-agent Turn's children (agents-api-wire §3,
//! §7, §8; core-contracts §3.5).
//!
//! Every frame here is Turn output of the **root** Run (frame id: the root Run ID). A child is
//! named by the harness's own identity for it (a Codex thread id, a Claude agent id) and its
//! Turns by the harness's Turn identity; Core gives each its public ID on first sight. Children
//! report finished Items only: nothing of theirs is streamed to the Session.
//!
//! - [`SubagentStatus`]: a child was opened, became active again, or was closed.
//! - [`SubagentTurn`]: a child Turn started or ended.
//! - [`SubagentItem`]: an Item of a child Turn.
//! - [`SubagentFunctionCall`]: a child called an application function. It is a required action
//!   of the root Turn (answered through the root Run's `TurnControl`, under its `call_id`).
//! - [`CoordinationCall`]: a root Item that creates, messages, waits for or closes children.

use serde::{Deserialize, Serialize};

use crate::messages::{CommandExecution, Reasoning, WebSearchCall};

/// A Session's Subagent settings, present only when the Session is multi-agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentControl {
    /// How many Subagents may run at once; null leaves the harness's own limit.
    pub max_concurrent: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubagentState {
    Active,
    Closed,
}

/// A child opened (first report), became active again, or closed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentStatus {
    /// The harness's identity for the child.
    pub subagent_id: String,
    /// The harness's identity for the agent that opened it; null for the root agent.
    pub parent_id: Option<String>,
    /// The child's name (a Codex nickname, a Claude subagent type), when the harness has one.
    pub name: Option<String>,
    /// The text the child was started with, when known.
    pub instructions: Option<String>,
    pub state: SubagentState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubagentTurnStatus {
    InProgress,
    Completed,
    Failed,
    Cancelled,
}

/// A child Turn started (`in_progress`) or ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentTurn {
    pub subagent_id: String,
    /// The harness's identity for the child Turn.
    pub turn_id: String,
    pub status: SubagentTurnStatus,
}

/// A finished Item of a child Turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentItem {
    pub subagent_id: String,
    pub turn_id: String,
    pub item: ChildItem,
}

/// What a child Turn produced. Adjacently tagged: its payloads deny unknown members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "item", rename_all = "snake_case")]
pub enum ChildItem {
    /// The input the child Turn was given (a spawn message, a sent input).
    UserMessage(ChildMessage),
    /// A completed assistant message.
    AssistantMessage(ChildMessage),
    Reasoning(Reasoning),
    CommandExecution(CommandExecution),
    WebSearchCall(WebSearchCall),
    McpCall(crate::mcp::McpCall),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChildMessage {
    pub item_id: String,
    pub text: String,
}

/// A child's call of an application function: pending until a result is applied, the child is
/// closed or interrupted (then `call_abandoned`), or the root Turn settles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentFunctionCall {
    pub subagent_id: String,
    pub turn_id: String,
    pub call_id: String,
    pub name: String,
    /// The arguments as exact JSON text.
    pub arguments: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordinationStatus {
    InProgress,
    Completed,
    Failed,
}

/// A coordination call an agent made, sent when it starts and when it ends (same `item_id`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinationCall {
    pub item_id: String,
    /// The harness's identity for the calling agent; null for the root agent.
    pub sender_id: Option<String>,
    pub status: CoordinationStatus,
    pub call: Coordination,
}

/// What a coordination call does; children are named by the harness's identities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Coordination {
    /// `agent_id` is null until the harness has opened the child.
    CreateSubagent {
        agent_id: Option<String>,
        content: String,
        model: Option<String>,
        reasoning_effort: Option<String>,
    },
    SendSubagentInput {
        recipient_id: String,
        content: String,
    },
    ResumeSubagent {
        recipient_id: String,
    },
    InterruptSubagent {
        recipient_id: String,
    },
    CloseSubagent {
        recipient_id: String,
    },
    WaitForSubagents {
        recipient_ids: Vec<String>,
    },
}

/// One Subagent observation, as an adapter reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubagentEvent {
    Status(SubagentStatus),
    Turn(SubagentTurn),
    Item(SubagentItem),
    FunctionCall(SubagentFunctionCall),
    Coordination(CoordinationCall),
}

impl SubagentEvent {
    pub fn into_message(self) -> crate::messages::RuntimeToCore {
        match self {
            SubagentEvent::Status(s) => s.into(),
            SubagentEvent::Turn(t) => t.into(),
            SubagentEvent::Item(i) => i.into(),
            SubagentEvent::FunctionCall(c) => c.into(),
            SubagentEvent::Coordination(c) => c.into(),
        }
    }
}
