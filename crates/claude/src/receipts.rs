//! Function calls of a Turn and the application receipts of their results.
//!
//! A call is *pending* from its `tools/call` until the caller's result answers it. Answering
//! writes an MCP response, which proves nothing: claude may have given up on the request (an
//! interrupt), or record something other than what was sent. So an answered call waits here,
//! at most [`RECEIPT_WAIT`], for the live `tool_result` claude writes for that tool-use id in
//! this Turn; the receipt is *confirmed* only when that record is exactly the submission
//! ([`ExpectedRecord`]). A different record, the wait running out, or the Turn ending first
//! leaves it *unconfirmed*; nothing is ever resent.
//!
//! A pending call is *abandoned* when claude cancels its request (`notifications/cancelled`),
//! records a result for it without ours (an interrupted call's synthetic record), or the Turn
//! ends first.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use switchboard_protocol::Receipt;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::native_result::ExpectedRecord;

/// How long a result waits for its native record (core-contracts §3.3).
pub const RECEIPT_WAIT: Duration = Duration::from_secs(10);

/// A change the Turn reports.
#[derive(Debug, PartialEq, Eq)]
pub enum CallChange {
    Applied { call_id: String },
    Abandoned { call_id: String },
}

/// Where to send the MCP answer of a pending call.
#[derive(Debug, Clone, PartialEq)]
pub struct McpRoute {
    /// The `mcp_message` control request to answer.
    pub control_request_id: String,
    /// The JSON-RPC id inside it.
    pub mcp_id: Value,
}

enum CallState {
    Pending(McpRoute),
    Answered {
        expected: ExpectedRecord,
        waiter: oneshot::Sender<Receipt>,
        deadline: Instant,
    },
    Settled,
}

struct Call {
    name: String,
    state: CallState,
}

/// The function calls of one Turn, by call id (the model's tool-use id).
#[derive(Default)]
pub struct CallTable {
    calls: HashMap<String, Call>,
    order: Vec<String>,
}

impl CallTable {
    /// Records a call claude made. Must run before the call is published.
    pub fn register(&mut self, call_id: &str, name: &str, route: McpRoute) {
        self.order.push(call_id.to_owned());
        self.calls.insert(
            call_id.to_owned(),
            Call {
                name: name.to_owned(),
                state: CallState::Pending(route),
            },
        );
    }

    /// The route to answer and the function's name, or why the result cannot be delivered.
    pub fn begin_answer(&self, call_id: &str) -> Result<(McpRoute, String), Receipt> {
        let Some(call) = self.calls.get(call_id) else {
            return Err(Receipt::refused(
                "unknown_call",
                "No pending call with this id in the Turn.",
            ));
        };
        match &call.state {
            CallState::Pending(route) => Ok((route.clone(), call.name.clone())),
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

    /// The answer was written; the receipt arrives on `waiter`.
    pub fn answered(
        &mut self,
        call_id: &str,
        expected: ExpectedRecord,
        waiter: oneshot::Sender<Receipt>,
    ) {
        if let Some(call) = self.calls.get_mut(call_id) {
            call.state = CallState::Answered {
                expected,
                waiter,
                deadline: Instant::now() + RECEIPT_WAIT,
            };
        }
    }

    /// A live `tool_result` block claude recorded in this Turn.
    pub fn observe_tool_result(&mut self, block: &Value) -> Option<CallChange> {
        let call_id = block.get("tool_use_id").and_then(Value::as_str)?;
        let call = self.calls.get_mut(call_id)?;
        match std::mem::replace(&mut call.state, CallState::Settled) {
            CallState::Pending(_) => Some(CallChange::Abandoned {
                call_id: call_id.to_owned(),
            }),
            CallState::Answered {
                expected, waiter, ..
            } => {
                if expected.matches(block) {
                    let _ = waiter.send(Receipt::Confirmed);
                    Some(CallChange::Applied {
                        call_id: call_id.to_owned(),
                    })
                } else {
                    let _ = waiter.send(Receipt::Unconfirmed {
                        reason: "claude recorded a different result for the call".into(),
                    });
                    None
                }
            }
            CallState::Settled => None,
        }
    }

    /// claude cancelled the MCP request `mcp_id`: a call still pending under it is abandoned.
    pub fn observe_cancelled(&mut self, mcp_id: &Value) -> Option<CallChange> {
        let (call_id, call) = self.calls.iter_mut().find(
            |(_, call)| matches!(&call.state, CallState::Pending(route) if route.mcp_id == *mcp_id),
        )?;
        call.state = CallState::Settled;
        Some(CallChange::Abandoned {
            call_id: call_id.clone(),
        })
    }

    /// Writing the answer failed: the result was not delivered.
    pub fn undelivered(&mut self, call_id: &str) {
        if let Some(call) = self.calls.get_mut(call_id) {
            call.state = CallState::Settled;
        }
    }

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
                    reason: "claude did not record the result within 10 s".into(),
                });
            }
        }
    }

    /// The Turn ended: waits become unconfirmed; unanswered calls are abandoned (in call order).
    pub fn finish(&mut self) -> Vec<String> {
        let mut abandoned = Vec::new();
        for call_id in &self.order {
            let Some(call) = self.calls.get_mut(call_id) else {
                continue;
            };
            match std::mem::replace(&mut call.state, CallState::Settled) {
                CallState::Pending(_) => abandoned.push(call_id.clone()),
                CallState::Answered { waiter, .. } => {
                    let _ = waiter.send(Receipt::Unconfirmed {
                        reason: "the Turn ended before claude recorded the result".into(),
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
    use switchboard_protocol::{FunctionOutput, FunctionResultContent};

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
        let mut table = CallTable::default();
        table.register("toolu_1", "f", route(2));
        let (r, name) = table.begin_answer("toolu_1").unwrap();
        assert_eq!((r, name.as_str()), (route(2), "f"));
        let (tx, rx) = oneshot::channel();
        table.answered("toolu_1", ExpectedRecord::new("f", &ok("sunny")), tx);
        assert!(table.begin_answer("toolu_1").is_err());
        let record = json!({"type": "tool_result", "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "sunny"}]});
        assert_eq!(
            table.observe_tool_result(&record),
            Some(CallChange::Applied {
                call_id: "toolu_1".into()
            })
        );
        assert_eq!(rx.await.unwrap(), Receipt::Confirmed);
    }

    #[tokio::test]
    async fn a_different_record_is_unconfirmed() {
        let mut table = CallTable::default();
        table.register("toolu_1", "f", route(2));
        let (tx, rx) = oneshot::channel();
        table.answered("toolu_1", ExpectedRecord::new("f", &ok("sunny")), tx);
        let record = json!({"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use."});
        assert_eq!(table.observe_tool_result(&record), None);
        assert!(matches!(rx.await.unwrap(), Receipt::Unconfirmed { .. }));
    }

    #[test]
    fn cancelled_and_unanswered_calls_are_abandoned() {
        let mut table = CallTable::default();
        table.register("a", "f", route(2));
        table.register("b", "f", route(3));
        assert_eq!(
            table.observe_cancelled(&json!(2)),
            Some(CallChange::Abandoned {
                call_id: "a".into()
            })
        );
        assert_eq!(table.observe_cancelled(&json!(2)), None);
        assert_eq!(table.finish(), vec!["b".to_owned()]);
        assert!(matches!(
            table.begin_answer("b"),
            Err(Receipt::Refused { .. })
        ));
    }
}
