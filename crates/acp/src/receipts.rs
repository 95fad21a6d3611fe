//! Application receipts for function results, as an ACP agent reports them.
//!
//! The call table and the receipt contract are the adapter kit's. What is ACP's: a result is
//! *confirmed* only when the agent reports a `tool_call_update` that completes the call (the
//! agent's tool call for the `functions` server, [`crate::turn`] pairs it with the MCP request)
//! carrying exactly the content and error flag our MCP answer had. A terminal update for a call
//! we have not answered, or a `failed` one that is not our answer, means the agent gave up on it
//! (its MCP client timed the call out): the call is abandoned, without a receipt.

use serde_json::Value;
use switchboard_adapter_kit::receipts::{self, Wording};

use crate::functions::CallAnswer;

/// The function calls of one Turn; answers travel through the MCP request, kept by the driver.
pub type CallTable = receipts::CallTable<(), CallAnswer>;

const WORDING: Wording = Wording {
    different: "the agent recorded a different result for the call",
    no_record: "the agent did not report the result applied within 10 s",
    turn_ended: "the Turn ended before the agent reported the result applied",
};

pub fn new_table() -> CallTable {
    CallTable::new(WORDING)
}

/// Whether a terminal `tool_call_update`'s `rawOutput` is exactly `answer`: the MCP result
/// `{content, isError}` (codex-acp), or its content blocks alone with the update's status
/// saying whether it was an error (claude-agent-acp).
pub fn records(raw_output: Option<&Value>, failed: bool, answer: &CallAnswer) -> bool {
    match raw_output {
        Some(Value::Array(content)) => *content == answer.content && failed == answer.is_error,
        Some(raw) => {
            let is_error = raw.get("isError").and_then(Value::as_bool).unwrap_or(false);
            raw.get("content").and_then(Value::as_array) == Some(&answer.content)
                && is_error == answer.is_error
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_same_content_and_error_flag_is_a_record() {
        let answer = CallAnswer {
            content: vec![json!({"type": "text", "text": "sunny"})],
            is_error: false,
        };
        let raw = json!({"content": [{"type": "text", "text": "sunny"}], "isError": false});
        assert!(records(Some(&raw), false, &answer));
        let other = json!({"content": [{"type": "text", "text": "rain"}]});
        assert!(!records(Some(&other), false, &answer));
        let failed = json!({"content": [{"type": "text", "text": "sunny"}], "isError": true});
        assert!(!records(Some(&failed), true, &answer));
        assert!(!records(None, false, &answer));
        // Content blocks alone: the update's status carries the error flag.
        let blocks = json!([{"type": "text", "text": "sunny"}]);
        assert!(records(Some(&blocks), false, &answer));
        assert!(!records(Some(&blocks), true, &answer));
    }
}
