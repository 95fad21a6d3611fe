//! Caller input: messages, function results and cancels (`POST …/events`).
//!
//! A batch is admitted atomically: each event is applied in order to one [`Tx`], and any
//! rejection drops the whole `Tx`, so nothing is written and every pending call stays as it
//! was. The function-result rules are the spec's conflict table (execution-tools "Results").
//! Admission is not application: an admitted result goes to the Runtime as `function_result`,
//! and only its receipt (`interaction_decision_ack{applied}`) publishes the output Item.

use serde_json::{Value, json};
use switchboard_execution::{InputMessage, ToolResultEvent, public_part};
use switchboard_harness::declaration;
use switchboard_protocol::messages::{FunctionResult, PromptCancel, PromptSteer};
use switchboard_wire::ids::{IdKind, new_id};
use switchboard_wire::{ApiError, ErrorCode};

use super::objects::{Turn, TurnStatus, fields, turn_event, user_message_item};
use super::state::{ActiveTurn, CallDoc, CallState, Effect, Tx};
use crate::edge::Failure;
use crate::unix_now;

pub const UNKNOWN_CALL: &str = "Unknown pending tool call";
pub const OTHER_TURN: &str = "The tool call belongs to a different Turn.";
pub const DIFFERENT_RESULT: &str = "The tool call already has a different result.";
pub const CANNOT_ACCEPT: &str = "The Turn cannot accept this input in its current state.";

fn admission(e: switchboard_harness::AdmissionError) -> Failure {
    Failure(ApiError::new(
        ErrorCode::UnsupportedConfiguration,
        e.param,
        e.message,
    ))
}

fn conflict(message: &str) -> Failure {
    Failure(ApiError::new(ErrorCode::Conflict, None, message))
}

fn bad_request(message: String) -> Failure {
    Failure(ApiError::new(
        ErrorCode::InvalidRequest("invalid_request_error"),
        None,
        message,
    ))
}

/// Applies one user message: it opens a Turn on an idle Session and joins the running Turn
/// otherwise (a parallel Turn is never started).
pub fn message(tx: &mut Tx, message: &InputMessage) -> Result<(), Failure> {
    let decl = declaration(tx.live.doc.harness);
    switchboard_harness::validate_message_input(decl, &message.content).map_err(admission)?;
    let sid = tx.id().to_owned();
    let input = message.content.clone();
    let content: Vec<Value> = message.content.iter().map(public_part).collect();
    let item_id = new_id(IdKind::Item);
    if let Some(turn) = tx.active() {
        let tid = turn.turn.id.clone();
        if turn.started {
            let (link, run) = (turn.link, turn.run_id.clone());
            let steer = PromptSteer {
                input_id: item_id.clone(),
                input,
            };
            if let Some(link) = link {
                tx.send(link, run, steer.into());
            }
        } else {
            turn.pending_steers.push(input);
        }
        let item = user_message_item(&item_id, &tid, content);
        tx.put_item(&tid, &item);
        tx.touch();
        tx.publish(turn_event(
            "agent.session.turn.item.added",
            &sid,
            &tid,
            fields([("output_index", Value::Null), ("item", item)]),
        ));
        return Ok(());
    }
    let now = unix_now();
    let turn = Turn::new(
        new_id(IdKind::Turn),
        sid.clone(),
        tx.live.meta.agent_id.clone(),
        now,
    );
    let tid = turn.id.clone();
    tx.put_turn(&turn);
    tx.publish(turn_event(
        "agent.session.turn.created",
        &sid,
        &tid,
        fields([("turn", turn.to_json())]),
    ));
    tx.live.doc.active = Some(ActiveTurn {
        turn,
        run_id: new_id(IdKind::Run),
        start_input: input,
        pending_steers: Vec::new(),
        started: false,
        link: None,
        cancel_requested: false,
        fail_on_done: false,
        next_output_index: 0,
        native: Default::default(),
        calls: Vec::new(),
        deliveries: Default::default(),
        usage: None,
        engine_error: None,
    });
    tx.live.doc.error = None;
    tx.live.doc.last_active_at = now;
    let item = user_message_item(&item_id, &tid, content);
    tx.put_item(&tid, &item);
    tx.publish(turn_event(
        "agent.session.turn.item.added",
        &sid,
        &tid,
        fields([("output_index", Value::Null), ("item", item)]),
    ));
    tx.refresh_status();
    tx.effects.push(Effect::Drive);
    Ok(())
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
pub fn tool_result(
    tx: &mut Tx,
    event: &ToolResultEvent,
    stored: Option<KnownCall>,
) -> Result<(), Failure> {
    // Invalid or unsupported content never consumes a pending call.
    let decl = declaration(tx.live.doc.harness);
    switchboard_harness::validate_function_result(decl, event.success, event.output.as_ref())
        .map_err(admission)?;

    let in_active = tx.active().and_then(|t| {
        t.call(&event.call_id).map(|c| KnownCall {
            turn_id: t.turn.id.clone(),
            doc: c.clone(),
            active: true,
        })
    });
    let Some(call) = in_active.or(stored) else {
        return Err(bad_request(format!("{UNKNOWN_CALL}: {}", event.call_id)));
    };
    if call.turn_id != event.turn_id {
        return Err(bad_request(OTHER_TURN.to_owned()));
    }
    if let Some(previous) = &call.doc.submission {
        return if same_submission(previous, &event.submission) {
            Ok(())
        } else if call.doc.state == CallState::Abandoned {
            // The admitted result never applied: another one is refused like any result for an
            // abandoned call (execution-tools "Abandonment").
            Err(conflict(CANNOT_ACCEPT))
        } else {
            Err(conflict(DIFFERENT_RESULT))
        };
    }
    let cancelling = tx.active().is_some_and(|t| t.cancel_requested);
    if !(call.active && call.doc.state == CallState::Pending && !cancelling) {
        return Err(conflict(CANNOT_ACCEPT));
    }

    let delivery_id = new_id(IdKind::Delivery);
    let turn = tx.active().expect("the call's Turn is active");
    let (link, run, tid) = (turn.link, turn.run_id.clone(), turn.turn.id.clone());
    turn.deliveries
        .insert(delivery_id.clone(), event.call_id.clone());
    let doc = turn.call_mut(&event.call_id).expect("the call exists");
    doc.state = CallState::Submitted;
    doc.submission = Some(event.submission.clone());
    doc.output = Some(event.public_output());
    doc.error = Some(json!(event.error));
    doc.delivery_id = Some(delivery_id.clone());
    let doc = doc.clone();
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
/// not the same as no `error`).
fn same_submission(previous: &str, submitted: &str) -> bool {
    match (
        serde_json::from_str::<Value>(previous),
        serde_json::from_str::<Value>(submitted),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => previous == submitted,
    }
}

/// Applies a cancel: a Turn that has not started ends at once; a running one is asked to stop
/// and settles when the Runtime confirms (completion can win). Idle: nothing to do.
pub fn cancel(tx: &mut Tx) {
    let Some(turn) = tx.active() else { return };
    if !turn.started {
        super::frames::settle(tx, TurnStatus::Cancelled, None);
        return;
    }
    if turn.cancel_requested {
        return;
    }
    turn.cancel_requested = true;
    let (link, run, tid) = (turn.link, turn.run_id.clone(), turn.turn.id.clone());
    let mut changed = Vec::new();
    for (call_id, call) in turn.calls.iter_mut() {
        if call.state == CallState::Pending {
            call.state = CallState::Cancelled;
            changed.push((call_id.clone(), call.clone()));
        }
    }
    for (call_id, doc) in changed {
        tx.put_call(&tid, &call_id, &doc);
    }
    if let Some(link) = link {
        tx.send(link, run, PromptCancel {}.into());
    }
    tx.refresh_status();
}
