//! Application receipts for function results.
//!
//! A result is *confirmed* only when codex reports, in the live Turn that made the call, a
//! completed `dynamicToolCall` item with the same thread, Turn, call id and tool, `success`
//! equal to ours and exactly our content items in order. Writing the answer to codex's stdin
//! proves nothing on its own: codex may have dropped the request (an interrupted Turn) or
//! replaced an answer it could not parse. So each answered call waits here, at most
//! [`RECEIPT_WAIT`], for that observation; a timeout, a mismatch or the Turn ending first makes
//! the receipt *unconfirmed*, and nothing is ever resent.
//!
//! The same table tracks the call's life as a required action: pending until answered,
//! abandoned when codex resolves or completes it without our answer, or when the Turn ends
//! first.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use switchboard_protocol::Receipt;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// How long a result waits for its native observation (core-contracts §3.3).
pub const RECEIPT_WAIT: Duration = Duration::from_secs(10);

/// What the Turn needs to know about a change in a call's state.
#[derive(Debug, PartialEq, Eq)]
pub enum CallChange {
    /// The result was observed applied.
    Applied { call_id: String },
    /// The call stopped being answerable without a result.
    Abandoned { call_id: String },
}

enum CallState {
    /// Asked by codex, not answered yet; `request_id` is the JSON-RPC id to answer.
    Pending { request_id: Value },
    /// Answered; waiting for the matching `item/completed`.
    Answered {
        expected: Value,
        success: bool,
        waiter: oneshot::Sender<Receipt>,
        deadline: Instant,
    },
    /// Settled (confirmed, unconfirmed or abandoned): no further result is accepted.
    Settled,
}

struct Call {
    tool: String,
    state: CallState,
}

/// The function calls of one Turn.
#[derive(Default)]
pub struct CallTable {
    calls: HashMap<String, Call>,
    /// Registration order, so abandonment is reported in the order calls were made.
    order: Vec<String>,
}

impl CallTable {
    /// Records a call codex asked for. Must run before the call is published.
    pub fn register(&mut self, call_id: &str, tool: &str, request_id: Value) {
        self.order.push(call_id.to_owned());
        self.calls.insert(
            call_id.to_owned(),
            Call {
                tool: tool.to_owned(),
                state: CallState::Pending { request_id },
            },
        );
    }

    /// Takes the request id to answer, or says why the result cannot be delivered.
    pub fn begin_answer(&mut self, call_id: &str) -> Result<Value, Receipt> {
        let Some(call) = self.calls.get_mut(call_id) else {
            return Err(Receipt::refused(
                "unknown_call",
                "No pending call with this id in the Turn.",
            ));
        };
        match &call.state {
            CallState::Pending { request_id } => Ok(request_id.clone()),
            CallState::Answered { .. } => Err(Receipt::refused(
                "already_answered",
                "The call already has a result.",
            )),
            CallState::Settled => Err(Receipt::refused(
                "call_settled",
                "The call is no longer pending.",
            )),
        }
    }

    /// Marks a call answered; the receipt arrives on `waiter`.
    pub fn answered(
        &mut self,
        call_id: &str,
        expected: Value,
        success: bool,
        waiter: oneshot::Sender<Receipt>,
    ) {
        if let Some(call) = self.calls.get_mut(call_id) {
            call.state = CallState::Answered {
                expected,
                success,
                waiter,
                deadline: Instant::now() + RECEIPT_WAIT,
            };
        }
    }

    /// Matches a completed `dynamicToolCall` item of this Turn.
    pub fn observe_completed(&mut self, item: &Value) -> Option<CallChange> {
        let call_id = item.get("id").and_then(Value::as_str)?;
        let call = self.calls.get_mut(call_id)?;
        let state = std::mem::replace(&mut call.state, CallState::Settled);
        match state {
            CallState::Pending { .. } => Some(CallChange::Abandoned {
                call_id: call_id.to_owned(),
            }),
            CallState::Answered {
                expected,
                success,
                waiter,
                ..
            } => {
                // codex records an unsuccessful result with status "failed".
                let status = if success { "completed" } else { "failed" };
                let matches = item.get("status").and_then(Value::as_str) == Some(status)
                    && item.get("tool").and_then(Value::as_str) == Some(call.tool.as_str())
                    && item.get("success").and_then(Value::as_bool) == Some(success)
                    && item.get("contentItems") == Some(&expected);
                if matches {
                    let _ = waiter.send(Receipt::Confirmed);
                    Some(CallChange::Applied {
                        call_id: call_id.to_owned(),
                    })
                } else {
                    let _ = waiter.send(Receipt::Unconfirmed {
                        reason: "codex recorded a different result for the call".into(),
                    });
                    None
                }
            }
            CallState::Settled => None,
        }
    }

    /// codex resolved a server request (`serverRequest/resolved`): a call still pending under
    /// that request id was dropped without our answer.
    pub fn observe_resolved(&mut self, request_id: &Value) -> Option<CallChange> {
        let (call_id, call) = self.calls.iter_mut().find(|(_, call)| {
            matches!(&call.state, CallState::Pending { request_id: r } if r == request_id)
        })?;
        call.state = CallState::Settled;
        Some(CallChange::Abandoned {
            call_id: call_id.clone(),
        })
    }

    /// The earliest receipt deadline, for the Turn's timer.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.calls
            .values()
            .filter_map(|call| match &call.state {
                CallState::Answered { deadline, .. } => Some(*deadline),
                _ => None,
            })
            .min()
    }

    /// Settles every wait whose deadline passed as unconfirmed.
    pub fn expire(&mut self, now: Instant) {
        for call in self.calls.values_mut() {
            let due =
                matches!(&call.state, CallState::Answered { deadline, .. } if *deadline <= now);
            if !due {
                continue;
            }
            if let CallState::Answered { waiter, .. } =
                std::mem::replace(&mut call.state, CallState::Settled)
            {
                let _ = waiter.send(Receipt::Unconfirmed {
                    reason: "codex did not report the result applied within 10 s".into(),
                });
            }
        }
    }

    /// The Turn ended: waits become unconfirmed and unanswered calls are abandoned (returned in
    /// call order).
    pub fn finish(&mut self) -> Vec<String> {
        let mut abandoned = Vec::new();
        for call_id in &self.order {
            let Some(call) = self.calls.get_mut(call_id) else {
                continue;
            };
            match std::mem::replace(&mut call.state, CallState::Settled) {
                CallState::Pending { .. } => abandoned.push(call_id.clone()),
                CallState::Answered { waiter, .. } => {
                    let _ = waiter.send(Receipt::Unconfirmed {
                        reason: "the Turn ended before codex reported the result applied".into(),
                    });
                }
                CallState::Settled => {}
            }
        }
        abandoned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(call_id: &str, success: bool, text: &str) -> Value {
        json!({"type": "dynamicToolCall", "id": call_id, "tool": "f", "status": "completed",
               "success": success, "contentItems": [{"type": "inputText", "text": text}]})
    }

    #[tokio::test]
    async fn confirms_only_the_exact_observation() {
        let mut table = CallTable::default();
        table.register("c1", "f", json!(0));
        let request = table.begin_answer("c1").unwrap();
        assert_eq!(request, json!(0));
        let (tx, rx) = oneshot::channel();
        table.answered("c1", json!([{"type": "inputText", "text": "ok"}]), true, tx);
        assert!(table.begin_answer("c1").is_err());
        assert_eq!(
            table.observe_completed(&item("c1", true, "ok")),
            Some(CallChange::Applied {
                call_id: "c1".into()
            })
        );
        assert_eq!(rx.await.unwrap(), Receipt::Confirmed);
    }

    #[tokio::test]
    async fn a_different_recorded_result_is_unconfirmed() {
        let mut table = CallTable::default();
        table.register("c1", "f", json!(0));
        let (tx, rx) = oneshot::channel();
        table.answered("c1", json!([{"type": "inputText", "text": "ok"}]), true, tx);
        assert_eq!(table.observe_completed(&item("c1", false, "ok")), None);
        assert!(matches!(rx.await.unwrap(), Receipt::Unconfirmed { .. }));
    }

    #[tokio::test]
    async fn unanswered_calls_are_abandoned_at_the_end() {
        let mut table = CallTable::default();
        table.register("c1", "f", json!(0));
        table.register("c2", "f", json!(1));
        let (tx, rx) = oneshot::channel();
        table.answered("c2", json!([]), true, tx);
        assert_eq!(table.finish(), vec!["c1".to_owned()]);
        assert!(matches!(rx.await.unwrap(), Receipt::Unconfirmed { .. }));
        assert!(matches!(
            table.begin_answer("c1"),
            Err(Receipt::Refused { .. })
        ));
    }

    #[test]
    fn a_resolved_request_abandons_its_pending_call() {
        let mut table = CallTable::default();
        table.register("c1", "f", json!(7));
        assert_eq!(
            table.observe_resolved(&json!(7)),
            Some(CallChange::Abandoned {
                call_id: "c1".into()
            })
        );
        assert_eq!(table.observe_resolved(&json!(7)), None);
    }
}
