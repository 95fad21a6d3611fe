//! One function call: its stored document and the states it moves through. What each state
//! means for the Session (awaiting the caller, a required action) is said here; the
//! transitions between states are in `calls.rs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A function call of the active Turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallState {
    /// Waiting for the caller's result.
    Pending,
    /// A result is admitted and on its way to the harness.
    Submitted,
    /// The harness applied the result (receipt confirmed).
    Applied,
    /// The harness said nothing certain about the result.
    Unconfirmed,
    /// The harness abandoned the call before any result applied.
    Abandoned,
    /// The Turn was cancelled before a result arrived.
    Cancelled,
    /// The Turn ended before a result arrived.
    Settled,
}

/// The stored document of one call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallDoc {
    pub name: String,
    pub arguments: String,
    pub state: CallState,
    /// The admitted `tool_result` event exactly as received (retry identity).
    pub submission: Option<String>,
    /// The public `output` and `error` of the admitted result.
    pub output: Option<Value>,
    pub error: Option<Value>,
    pub delivery_id: Option<String>,
    /// For a Subagent's call: the child Turn that made it, whose ID a result may also name
    /// (execution-tools "Subagent function calls").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_turn_id: Option<String>,
}

impl CallState {
    /// The caller still owes a result: the Session `requires_action`.
    pub fn awaits_result(&self) -> bool {
        *self == CallState::Pending
    }

    /// The call is listed in `required_actions`: until a result applies or the call ends.
    pub fn is_required_action(&self) -> bool {
        matches!(self, CallState::Pending | CallState::Submitted)
    }
}
