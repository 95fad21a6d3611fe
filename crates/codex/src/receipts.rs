//! Application receipts for function results, as codex reports them.
//!
//! The call table and the receipt contract are the adapter kit's
//! ([`switchboard_adapter_kit::receipts`]). What is codex's: a call is answered on the JSON-RPC id
//! of its `item/tool/call` request, and a result is *confirmed* only when codex reports, in the
//! live Turn that made the call, a completed `dynamicToolCall` item with the same call id and
//! tool, `success` equal to ours and exactly our content items in order. codex may drop a request
//! (an interrupted Turn) or replace an answer it could not parse, so writing the answer proves
//! nothing by itself. A call is abandoned when codex resolves its request
//! (`serverRequest/resolved`) or completes the item without our answer.

use serde_json::Value;
use switchboard_adapter_kit::receipts::{self, CallChange, Wording};

/// The function calls of one Turn, answered by JSON-RPC request id.
pub type CallTable = receipts::CallTable<Value, Expected>;

/// What codex must record for an answered call.
pub struct Expected {
    /// The `contentItems` sent.
    pub content_items: Value,
    pub success: bool,
}

const WORDING: Wording = Wording {
    different: "codex recorded a different result for the call",
    no_record: "codex did not report the result applied within 10 s",
    turn_ended: "the Turn ended before codex reported the result applied",
};

/// An empty table for a new Turn.
pub fn new_table() -> CallTable {
    CallTable::new(WORDING)
}

/// Matches a completed `dynamicToolCall` item of this Turn.
pub fn observe_completed(calls: &mut CallTable, item: &Value) -> Option<CallChange> {
    let call_id = item.get("id").and_then(Value::as_str)?;
    calls.observe(call_id, |tool, expected| {
        // codex records an unsuccessful result with status "failed".
        let status = if expected.success {
            "completed"
        } else {
            "failed"
        };
        item.get("status").and_then(Value::as_str) == Some(status)
            && item.get("tool").and_then(Value::as_str) == Some(tool)
            && item.get("success").and_then(Value::as_bool) == Some(expected.success)
            && item.get("contentItems") == Some(&expected.content_items)
    })
}

/// codex resolved a server request (`serverRequest/resolved`): a call still pending under that
/// request id was dropped without our answer.
pub fn observe_resolved(calls: &mut CallTable, request_id: &Value) -> Option<CallChange> {
    calls.abandon_pending(|pending| pending == request_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_protocol::Receipt;
    use tokio::sync::oneshot;

    fn item(call_id: &str, success: bool, text: &str) -> Value {
        json!({"type": "dynamicToolCall", "id": call_id, "tool": "f", "status": "completed",
               "success": success, "contentItems": [{"type": "inputText", "text": text}]})
    }

    fn ok(text: &str) -> Expected {
        Expected {
            content_items: json!([{"type": "inputText", "text": text}]),
            success: true,
        }
    }

    #[tokio::test]
    async fn confirms_only_the_exact_observation() {
        let mut table = new_table();
        table.register("c1", "f", json!(0));
        let (request, _) = table.begin_answer("c1").unwrap();
        assert_eq!(request, json!(0));
        let (tx, rx) = oneshot::channel();
        table.answered("c1", ok("ok"), tx);
        assert!(table.begin_answer("c1").is_err());
        assert_eq!(
            observe_completed(&mut table, &item("c1", true, "ok")),
            Some(CallChange::Applied {
                call_id: "c1".into()
            })
        );
        assert_eq!(rx.await.unwrap(), Receipt::Confirmed);
    }

    #[tokio::test]
    async fn a_different_recorded_result_is_unconfirmed() {
        let mut table = new_table();
        table.register("c1", "f", json!(0));
        let (tx, rx) = oneshot::channel();
        table.answered("c1", ok("ok"), tx);
        assert_eq!(
            observe_completed(&mut table, &item("c1", false, "ok")),
            None
        );
        assert!(matches!(rx.await.unwrap(), Receipt::Unconfirmed { .. }));
    }

    #[tokio::test]
    async fn unanswered_calls_are_abandoned_at_the_end() {
        let mut table = new_table();
        table.register("c1", "f", json!(0));
        table.register("c2", "f", json!(1));
        let (tx, rx) = oneshot::channel();
        table.answered("c2", ok("x"), tx);
        assert_eq!(table.finish(), vec!["c1".to_owned()]);
        assert!(matches!(rx.await.unwrap(), Receipt::Unconfirmed { .. }));
        assert!(matches!(
            table.begin_answer("c1"),
            Err(Receipt::Refused { .. })
        ));
    }

    #[test]
    fn a_resolved_request_abandons_its_pending_call() {
        let mut table = new_table();
        table.register("c1", "f", json!(7));
        assert_eq!(
            observe_resolved(&mut table, &json!(7)),
            Some(CallChange::Abandoned {
                call_id: "c1".into()
            })
        );
        assert_eq!(observe_resolved(&mut table, &json!(7)), None);
    }
}
