//! The function-call lifecycle: a call is registered when the harness makes it, a caller's
//! result is admitted against the conflict table (execution-tools "Results") and delivered,
//! and its receipt applies it, or the harness abandons the call, or the Runtime refuses the
//! result; a cancel or the Turn's end closes what is still open. Admission is not
//! application: only the receipt publishes the output Item.

use serde_json::{Value, json};
use switchboard_execution::ToolResultEvent;
use switchboard_harness::declaration;
use switchboard_protocol::adapter::{CALL_ABANDONED, FUNCTION_RESULT_UNCONFIRMED};
use switchboard_protocol::messages::{
    FunctionCall, FunctionResult, InteractionDecisionAck, PromptCancel,
};
use switchboard_wire::ids::{IdKind, new_id};

use super::call::{CallDoc, CallState};
use super::error::SessionError;
use super::objects::{function_call_item, function_call_output_item};
use super::state::{ActiveTurn, Tx};
use super::subagents;
use switchboard_protocol::subagents::{SubagentFunctionCall, SubagentTurn, SubagentTurnStatus};

pub const UNKNOWN_CALL: &str = "Unknown pending tool call";
pub const OTHER_TURN: &str = "The tool call belongs to a different Turn.";
pub const DIFFERENT_RESULT: &str = "The tool call already has a different result.";
pub const CANNOT_ACCEPT: &str = "The Turn cannot accept this input in its current state.";

/// The harness made a call: it becomes a required action (pending, or cancelled when the Turn
/// is being cancelled) in the same change that publishes its `item.added` and `item.done`.
pub fn register(tx: &mut Tx, call: FunctionCall) {
    let Some((sid, tid)) = tx.ids() else { return };
    let Some(turn) = tx.active() else { return };
    if turn.call(&call.call_id).is_some() {
        tracing::warn!(call = %call.call_id, "a repeated function_call is ignored");
        return;
    }
    let index = turn.take_output_index();
    let doc = CallDoc {
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        state: if turn.cancel_requested {
            CallState::Cancelled
        } else {
            CallState::Pending
        },
        submission: None,
        output: None,
        error: None,
        delivery_id: None,
        child_turn_id: None,
    };
    turn.calls.push((call.call_id.clone(), doc.clone()));
    // Open until the call's result applies (or the Turn ends).
    let span = tracing::info_span!(
        parent: &turn.span,
        "function_call",
        session.id = %sid,
        turn.id = %tid,
        call.id = %call.call_id,
        function.name = %call.name,
    );
    turn.call_spans.insert(call.call_id.clone(), span);
    tx.put_call(&tid, &call.call_id, &doc);
    let item_id = new_id(IdKind::Item);
    let item = |status| {
        function_call_item(
            &item_id,
            &tid,
            &call.call_id,
            &call.name,
            &call.arguments,
            status,
        )
    };
    tx.put_item(&tid, &item("completed"));
    tx.publish_item(
        "agent.session.turn.item.added",
        &sid,
        &tid,
        Some(index),
        item("in_progress"),
    );
    tx.publish_item(
        "agent.session.turn.item.done",
        &sid,
        &tid,
        Some(index),
        item("completed"),
    );
    tx.refresh_status();
}

/// A Subagent called a function: a required action of the root Turn (its `turn_id`), whose
/// `function_call` Item is the child Turn's. That Item's `item.added` is the one child event
/// the Session stream carries: it names the child Turn, which is what the official SDK's tool
/// handler answers under.
pub fn register_child(tx: &mut Tx, call: SubagentFunctionCall) {
    let Some((sid, root)) = tx.ids() else { return };
    if tx.active().is_some_and(|t| t.call(&call.call_id).is_some()) {
        tracing::warn!(call = %call.call_id, "a repeated function_call is ignored");
        return;
    }
    // The child and its Turn open first, when this call is the first news of them.
    subagents::turn(
        tx,
        SubagentTurn {
            subagent_id: call.subagent_id.clone(),
            turn_id: call.turn_id.clone(),
            status: SubagentTurnStatus::InProgress,
        },
    );
    let Some(child_tid) = tx
        .live
        .doc
        .subagents
        .turn_id(&call.subagent_id, &call.turn_id)
    else {
        return;
    };
    let Some(subagent_id) = tx
        .live
        .doc
        .subagents
        .by_native(&call.subagent_id)
        .map(|c| c.id.clone())
    else {
        return;
    };
    let Some(turn) = tx.active() else { return };
    let doc = CallDoc {
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        state: if turn.cancel_requested {
            CallState::Cancelled
        } else {
            CallState::Pending
        },
        submission: None,
        output: None,
        error: None,
        delivery_id: None,
        child_turn_id: Some(child_tid.clone()),
    };
    turn.calls.push((call.call_id.clone(), doc.clone()));
    tx.put_call(&root, &call.call_id, &doc);
    let item_id = new_id(IdKind::Item);
    let item = |status| {
        function_call_item(
            &item_id,
            &child_tid,
            &call.call_id,
            &call.name,
            &call.arguments,
            status,
        )
    };
    subagents::put_child_item(tx, &subagent_id, &child_tid, &item("completed"));
    tx.publish_item(
        "agent.session.turn.item.added",
        &sid,
        &child_tid,
        None,
        item("in_progress"),
    );
    tx.refresh_status();
}

/// A call as the conflict table sees it: its Turn, and its stored document.
pub struct KnownCall {
    pub turn_id: String,
    pub doc: CallDoc,
    /// The call belongs to the active Turn.
    pub active: bool,
}

/// Applies one `tool_result` (the conflict table). `stored` is the call as the store has it,
/// for calls of Turns that already ended.
pub fn admit(
    tx: &mut Tx,
    event: &ToolResultEvent,
    stored: Option<KnownCall>,
) -> Result<(), SessionError> {
    // Invalid or unsupported content never consumes a pending call.
    let decl = declaration(tx.live.doc.harness);
    switchboard_harness::validate_function_result(decl, event.success, event.output.as_ref())?;

    let in_active = tx.active().and_then(|t| {
        t.call(&event.call_id).map(|c| KnownCall {
            turn_id: t.turn.id.clone(),
            doc: c.clone(),
            active: true,
        })
    });
    let Some(call) = in_active.or(stored) else {
        return Err(SessionError::UnknownCall(format!(
            "{UNKNOWN_CALL}: {}",
            event.call_id
        )));
    };
    // A Subagent's call is the root Turn's, and also answers to the child Turn that made it.
    if call.turn_id != event.turn_id
        && call.doc.child_turn_id.as_deref() != Some(event.turn_id.as_str())
    {
        return Err(SessionError::UnknownCall(OTHER_TURN.to_owned()));
    }
    if let Some(previous) = &call.doc.submission {
        return if same_submission(previous, &event.submission) {
            Ok(())
        } else if call.doc.state == CallState::Abandoned {
            // The admitted result never applied: another one is refused like any result for an
            // abandoned call (execution-tools "Abandonment").
            Err(SessionError::Conflict(CANNOT_ACCEPT))
        } else {
            Err(SessionError::Conflict(DIFFERENT_RESULT))
        };
    }
    let sid = tx.id().to_owned();
    let cancelling = tx.active().is_some_and(|t| t.cancel_requested);
    // Only a pending call of the active Turn takes a result, so both lookups below succeed.
    let turn = tx.active().filter(|_| call.active && !cancelling);
    let Some(turn) = turn else {
        return Err(SessionError::Conflict(CANNOT_ACCEPT));
    };
    let (link, run, tid) = (turn.link, turn.run_id.clone(), turn.turn.id.clone());
    let Some(doc) = turn
        .call_mut(&event.call_id)
        .filter(|c| c.state == CallState::Pending)
    else {
        return Err(SessionError::Conflict(CANNOT_ACCEPT));
    };
    let delivery_id = new_id(IdKind::Delivery);
    doc.state = CallState::Submitted;
    doc.submission = Some(event.submission.clone());
    doc.output = Some(event.public_output());
    doc.error = Some(json!(event.error));
    doc.delivery_id = Some(delivery_id.clone());
    let doc = doc.clone();
    turn.deliveries
        .insert(delivery_id.clone(), event.call_id.clone());
    // In the Turn's trace, under its call; linked to the request that posted it.
    if let Some(call_span) = turn.call_spans.get(&event.call_id) {
        let span = tracing::info_span!(
            parent: call_span,
            "function_call.result",
            session.id = %sid,
            turn.id = %tid,
            call.id = %event.call_id,
            delivery.id = %delivery_id,
            success = event.success,
        );
        span.follows_from(tracing::Span::current());
        span.in_scope(|| {});
    }
    tx.put_call(&tid, &event.call_id, &doc);
    let result = FunctionResult {
        delivery_id,
        call_id: event.call_id.clone(),
        success: event.success,
        // One content type from the parser to the wire: sent as admitted.
        output: event.output.clone(),
        error: event.error.clone(),
    };
    if let Some(link) = link {
        tx.send(link, run, result.into());
    }
    tx.refresh_status();
    Ok(())
}

/// Retry identity: the same members with the same values, numbers compared by their exact
/// spelling (lossless JSON); member order does not matter, presence does (`"error": null` is
/// not the same as no `error`). `turn_id` is left out: it has already named this call, and a
/// Subagent's call answers to two Turn IDs, so the same result under either is a retry.
fn same_submission(previous: &str, submitted: &str) -> bool {
    let read = |text: &str| {
        serde_json::from_str::<Value>(text).map(|mut v| {
            if let Some(event) = v.as_object_mut() {
                event.remove("turn_id");
            }
            v
        })
    };
    match (read(previous), read(submitted)) {
        (Ok(a), Ok(b)) => a == b,
        _ => previous == submitted,
    }
}

/// A delivery's receipt (`interaction_decision_ack`): applied, unknown so far, abandoned, or
/// refused.
pub fn receipt(tx: &mut Tx, ack: InteractionDecisionAck) {
    let Some(turn) = tx.active() else { return };
    let Some(call_id) = turn.deliveries.get(&ack.delivery_id).cloned() else {
        return;
    };
    if let Some(call_span) = turn.call_spans.get(&call_id) {
        tracing::info_span!(
            parent: call_span,
            "function_call.receipt",
            turn.id = %turn.turn.id,
            call.id = %call_id,
            delivery.id = %ack.delivery_id,
            receipt.applied = ack.applied,
            error.code = ack.error_code.as_deref(),
        )
        .in_scope(|| {});
    }
    match ack.error_code.as_deref() {
        _ if ack.applied => applied(tx, &call_id),
        // Outcome unknown so far: the action stays until native application (a later
        // `function_result_applied`) or the Turn's end.
        Some(FUNCTION_RESULT_UNCONFIRMED) => {}
        // The harness had abandoned the call before the result reached it.
        Some(CALL_ABANDONED) => abandon(tx, &call_id),
        _ => refused(tx, &call_id, ack),
    }
}

/// The harness abandoned a call: it stops being a required action, pending or with a result
/// admitted but not applied (that result stays saved; its receipt will never come, and no
/// output Item is published). The Turn goes on.
pub fn abandon(tx: &mut Tx, call_id: &str) {
    let Some(turn) = tx.active() else { return };
    let tid = turn.turn.id.clone();
    let Some(call) = turn.call_mut(call_id) else {
        return;
    };
    if !matches!(call.state, CallState::Pending | CallState::Submitted) {
        return;
    }
    call.state = CallState::Abandoned;
    let delivery = call.delivery_id.clone();
    let doc = call.clone();
    if let Some(delivery) = delivery {
        turn.deliveries.remove(&delivery);
    }
    turn.call_spans.remove(call_id);
    tx.put_call(&tid, call_id, &doc);
    tx.refresh_status();
}

/// The harness applied an admitted result: the action leaves and the output Item appears
/// (`item.added` only, as an input item). Only once, whichever report comes first.
pub fn applied(tx: &mut Tx, call_id: &str) {
    let Some((sid, tid)) = tx.ids() else { return };
    let Some(turn) = tx.active() else { return };
    let Some(call) = turn.call_mut(call_id) else {
        return;
    };
    if call.state != CallState::Submitted {
        return;
    }
    call.state = CallState::Applied;
    let delivery = call.delivery_id.clone();
    let doc = call.clone();
    if let Some(delivery) = delivery {
        turn.deliveries.remove(&delivery);
    }
    turn.call_spans.remove(call_id);
    tx.put_call(&tid, call_id, &doc);
    let output = |turn_id: &str| {
        function_call_output_item(
            &new_id(IdKind::Item),
            turn_id,
            call_id,
            doc.output.clone().unwrap_or(Value::Null),
            doc.error.clone().unwrap_or(Value::Null),
        )
    };
    // A Subagent's result is an Item of the child Turn, off the Session stream.
    let child = doc.child_turn_id.as_deref().and_then(|child_tid| {
        let subagent = tx.live.doc.subagents.subagent_of_turn(child_tid)?;
        Some((subagent, child_tid.to_owned()))
    });
    match child {
        Some((subagent_id, child_tid)) => {
            subagents::put_child_item(tx, &subagent_id, &child_tid, &output(&child_tid))
        }
        None => {
            let item = output(&tid);
            tx.put_item(&tid, &item);
            tx.publish_item("agent.session.turn.item.added", &sid, &tid, None, item);
        }
    }
    tx.refresh_status();
}

/// The Runtime refused an admitted result: the native Turn is stopped and fails when it
/// settles (core-contracts §3.3).
fn refused(tx: &mut Tx, call_id: &str, ack: InteractionDecisionAck) {
    let Some(turn) = tx.active() else { return };
    tracing::warn!(call = %call_id, code = ?ack.error_code, error = ?ack.error, "the Runtime refused an admitted result; the Turn fails");
    turn.deliveries.remove(&ack.delivery_id);
    turn.fail_on_done = true;
    turn.engine_error = Some((
        ack.error_code.clone().unwrap_or_default(),
        ack.error.clone().unwrap_or_default(),
    ));
    let (link, run, tid) = (turn.link, turn.run_id.clone(), turn.turn.id.clone());
    let doc = turn.call_mut(call_id).map(|call| {
        call.state = CallState::Unconfirmed;
        call.clone()
    });
    if let Some(link) = link {
        tx.send(link, run, PromptCancel {}.into());
    }
    if let Some(doc) = doc {
        tx.put_call(&tid, call_id, &doc);
    }
    tx.refresh_status();
}

/// A cancel was requested: every pending call is cancelled (results already admitted stay on
/// their way).
pub fn cancel_pending(tx: &mut Tx, tid: &str) {
    let Some(turn) = tx.active() else { return };
    let mut changed = Vec::new();
    for (call_id, call) in turn.calls.iter_mut() {
        if call.state == CallState::Pending {
            call.state = CallState::Cancelled;
            changed.push((call_id.clone(), call.clone()));
        }
    }
    for (call_id, doc) in changed {
        tx.put_call(tid, &call_id, &doc);
    }
}

/// The Turn ends: a call still pending is settled (or cancelled, when the Turn was), and an
/// admitted result that never applied is unconfirmed.
pub fn settle_all(tx: &mut Tx, tid: &str, turn: &mut ActiveTurn) {
    for (call_id, call) in turn.calls.iter_mut() {
        let next = match call.state {
            CallState::Pending if turn.cancel_requested => CallState::Cancelled,
            CallState::Pending => CallState::Settled,
            CallState::Submitted => CallState::Unconfirmed,
            _ => continue,
        };
        call.state = next;
        let doc = call.clone();
        tx.put_call(tid, call_id, &doc);
    }
}
