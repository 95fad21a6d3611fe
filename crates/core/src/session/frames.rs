//! What the Runtime's Turn frames do to a Session (agents-api-wire §8.2 sequences): one arm
//! per frame, each handing off to the module that owns its rules (`native_items`, `calls`,
//! `turns`).

use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::messages::TurnOutcome;

use super::objects::TurnStatus;
use super::state::Tx;
use super::{calls, native_items, subagents, turns};

/// Applies one Turn frame of the active Run.
pub fn apply(tx: &mut Tx, message: RuntimeToCore) {
    match message {
        RuntimeToCore::OutputMessage(m) => native_items::output_message(tx, m),
        RuntimeToCore::Delta(d) => {
            if let Some(event) = native_items::delta(&mut tx.live, d) {
                tx.publish(event);
            }
        }
        RuntimeToCore::Reasoning(r) => native_items::reasoning(tx, r),
        RuntimeToCore::CommandExecution(c) => native_items::command(tx, c),
        RuntimeToCore::WebSearchCall(w) => native_items::web_search(tx, w),
        RuntimeToCore::McpCall(call) => native_items::mcp_call(tx, call),
        RuntimeToCore::Usage(u) => {
            if let Some(turn) = tx.active() {
                turn.usage = Some(u);
            }
        }
        RuntimeToCore::FunctionCall(call) => calls::register(tx, call),
        RuntimeToCore::SubagentStatus(s) => subagents::status(tx, s),
        RuntimeToCore::SubagentTurn(t) => subagents::turn(tx, t),
        RuntimeToCore::SubagentItem(i) => subagents::item(tx, i),
        RuntimeToCore::SubagentFunctionCall(call) => calls::register_child(tx, call),
        RuntimeToCore::CoordinationCall(c) => subagents::coordination(tx, c),
        RuntimeToCore::CallAbandoned(a) => calls::abandon(tx, &a.call_id),
        RuntimeToCore::FunctionResultApplied(a) => calls::applied(tx, &a.call_id),
        RuntimeToCore::InteractionDecisionAck(ack) => calls::receipt(tx, ack),
        RuntimeToCore::PromptSteerAck(ack) => {
            if !ack.accepted {
                tracing::warn!(input = %ack.input_id, code = ?ack.error_code, error = ?ack.error, "the harness did not take a steered message");
            }
        }
        RuntimeToCore::Error(e) => {
            tracing::warn!(code = %e.code, message = %e.message, http_status = ?e.http_status, "the Turn failed natively");
            if let Some(turn) = tx.active() {
                turn.engine_error = Some((e.code, e.message));
            }
        }
        RuntimeToCore::Done(done) => {
            let Some(turn) = tx.active() else { return };
            let status = match done.outcome {
                _ if turn.fail_on_done => TurnStatus::Failed,
                TurnOutcome::Completed => TurnStatus::Completed,
                TurnOutcome::Failed => TurnStatus::Failed,
                TurnOutcome::Cancelled => TurnStatus::Cancelled,
            };
            turns::settle(tx, status, done.usage);
        }
        other => tracing::warn!(frame = ?other, "unexpected frame for a Run"),
    }
}
