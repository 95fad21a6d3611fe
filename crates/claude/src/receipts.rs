//! Function calls of a Turn and the application receipts of their results, as claude records
//! them.
//!
//! The call table and the receipt contract are the adapter kit's
//! ([`switchboard_adapter_kit::receipts`]). What is claude's: a call is answered with an MCP
//! response to its `tools/call` ([`McpRoute`]), and an answered call is *confirmed* only by the
//! live `tool_result` claude writes for that tool-use id in this Turn, when that record is exactly
//! the submission ([`ExpectedRecord`]). A pending call is *abandoned* when claude cancels its
//! request (`notifications/cancelled`) or records a result for it without ours (an interrupted
//! call's synthetic record).

use serde_json::Value;
use switchboard_adapter_kit::receipts::{self, CallChange, Wording};

use crate::native_result::ExpectedRecord;

/// Where to send the MCP answer of a pending call.
#[derive(Debug, Clone, PartialEq)]
pub struct McpRoute {
    /// The `mcp_message` control request to answer.
    pub control_request_id: String,
    /// The JSON-RPC id inside it.
    pub mcp_id: Value,
}

/// The function calls of one Turn, by call id (the model's tool-use id).
pub type CallTable = receipts::CallTable<McpRoute, ExpectedRecord>;

const WORDING: Wording = Wording {
    different: "claude recorded a different result for the call",
    no_record: "claude did not record the result within 10 s",
    turn_ended: "the Turn ended before claude recorded the result",
};

/// An empty table for a new Turn.
pub fn new_table() -> CallTable {
    CallTable::new(WORDING)
}

/// A live `tool_result` block claude recorded in this Turn.
pub fn observe_tool_result(calls: &mut CallTable, block: &Value) -> Option<CallChange> {
    let call_id = block.get("tool_use_id").and_then(Value::as_str)?;
    calls.observe(call_id, |_, expected| expected.matches(block))
}

/// claude cancelled the MCP request `mcp_id`: a call still pending under it is abandoned.
pub fn observe_cancelled(calls: &mut CallTable, mcp_id: &Value) -> Option<CallChange> {
    calls.abandon_pending(|route| route.mcp_id == *mcp_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_protocol::{FunctionOutput, FunctionResultContent, Receipt};
    use tokio::sync::oneshot;

    fn route(n: i64) -> McpRoute {
        McpRoute {
            control_request_id: format!("req_{n}"),
            mcp_id: json!(n),
        }
    }

    fn ok(text: &str) -> FunctionResultContent {
        FunctionResultContent {
            success: true,
            output: Some(FunctionOutput::Text(text.into())),
            error: None,
        }
    }

    #[tokio::test]
    async fn confirms_only_the_exact_record() {
        let mut table = new_table();
        table.register("toolu_1", "f", route(2));
        let (r, name) = table.begin_answer("toolu_1").unwrap();
        assert_eq!((r, name.as_str()), (route(2), "f"));
        let (tx, rx) = oneshot::channel();
        table.answered("toolu_1", ExpectedRecord::new("f", &ok("sunny")), tx);
        assert!(table.begin_answer("toolu_1").is_err());
        let record = json!({"type": "tool_result", "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "sunny"}]});
        assert_eq!(
            observe_tool_result(&mut table, &record),
            Some(CallChange::Applied {
                call_id: "toolu_1".into()
            })
        );
        assert_eq!(rx.await.unwrap(), Receipt::Confirmed);
    }

    #[tokio::test]
    async fn a_different_record_is_unconfirmed() {
        let mut table = new_table();
        table.register("toolu_1", "f", route(2));
        let (tx, rx) = oneshot::channel();
        table.answered("toolu_1", ExpectedRecord::new("f", &ok("sunny")), tx);
        let record = json!({"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use."});
        assert_eq!(observe_tool_result(&mut table, &record), None);
        assert!(matches!(rx.await.unwrap(), Receipt::Unconfirmed { .. }));
    }

    #[test]
    fn cancelled_and_unanswered_calls_are_abandoned() {
        let mut table = new_table();
        table.register("a", "f", route(2));
        table.register("b", "f", route(3));
        assert_eq!(
            observe_cancelled(&mut table, &json!(2)),
            Some(CallChange::Abandoned {
                call_id: "a".into()
            })
        );
        assert_eq!(observe_cancelled(&mut table, &json!(2)), None);
        assert_eq!(table.finish(), vec!["b".to_owned()]);
        assert!(matches!(
            table.begin_answer("b"),
            Err(Receipt::Refused { .. })
        ));
    }
}
