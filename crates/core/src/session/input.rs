//! Caller input: messages, function results and cancels (`POST …/events`).
//!
//! A batch is admitted atomically: each event is applied in order to one [`Tx`], and any
//! rejection drops the whole `Tx`, so nothing is written and every pending call stays as it
//! was. The function-result rules are the spec's conflict table (execution-tools "Results").
//! Admission is not application: an admitted result goes to the Runtime as `function_result`,
//! and only its receipt (`interaction_decision_ack{applied}`) publishes the output Item.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::HeaderMap;
use serde_json::{Map, Value};
use switchboard_execution::{InputEvent, InputMessage, parse_input_events, public_part};
use switchboard_harness::declaration;
use switchboard_protocol::messages::{PromptCancel, PromptSteer};
use switchboard_store::IdempotencyRecord;
use switchboard_wire::ids::{IdKind, new_id};

use super::call::CallDoc;
use super::calls;
use super::engine::{Engine, loaded};
use super::error::SessionError;
use super::idempotency;
use super::objects::{Turn, TurnStatus, fields, turn_event, user_message_item};
use super::state::{ActiveTurn, Effect, Tx};
use crate::clock::unix_now;

pub const UNKNOWN_CALL: &str = "Unknown pending tool call";
pub const OTHER_TURN: &str = "The tool call belongs to a different Turn.";
pub const DIFFERENT_RESULT: &str = "The tool call already has a different result.";
pub const CANNOT_ACCEPT: &str = "The Turn cannot accept this input in its current state.";
/// core-contracts §3.2: input after the managed Environment failed to provision.
pub const HOSTED_ENVIRONMENT_FAILED: &str = "the hosted environment failed to provision";
pub const EARLIER_INPUT_PENDING: &str = "Earlier input to this Session is still pending.";

/// `POST …/events`: 1–64 input events, admitted atomically into one commit. A retry with the
/// same key and the same events is accepted again without applying anything; the same key
/// with other events is a conflict.
#[tracing::instrument(name = "session.admission", skip_all, fields(session.id = %id))]
pub async fn post_events(
    engine: &Arc<Engine>,
    project: &str,
    id: &str,
    body: &Map<String, Value>,
    headers: &HeaderMap,
) -> Result<(), SessionError> {
    let received = std::time::Instant::now();
    let events = parse_input_events(body)?;
    let key = idempotency::key(headers)?;
    let mut guard = engine.lock_in(project, id).await?;
    let fingerprint = idempotency::events_fingerprint(body);
    if let Some(key) = &key
        && let Some(seen) = engine.store.get_idempotency(project, id, key).await?
    {
        if seen.fingerprint == fingerprint {
            return Ok(());
        }
        return Err(SessionError::IdempotencyConflict);
    }
    if events.is_empty() {
        return Ok(());
    }
    let mut tx = Tx::new(loaded(&guard)?);
    let messages = events
        .iter()
        .any(|e| matches!(e, InputEvent::Message { .. }));
    if messages && tx.live.doc.environment_failed {
        return Err(SessionError::Conflict(HOSTED_ENVIRONMENT_FAILED));
    }
    if messages && tx.live.doc.reservation.is_some() {
        return Err(SessionError::Conflict(EARLIER_INPUT_PENDING));
    }
    let reserved = messages && engine.reserve_if_offline(&mut tx, false);
    for event in &events {
        match event {
            InputEvent::Message { input } => {
                for message in input {
                    self::message(&mut tx, message)?;
                }
            }
            InputEvent::ToolResult(result) => {
                // Calls of the running Turn are in memory; only an ended Turn's are read.
                let in_memory = tx
                    .live
                    .doc
                    .active
                    .as_ref()
                    .is_some_and(|t| t.call(&result.call_id).is_some());
                let stored = if in_memory {
                    None
                } else {
                    let read = engine.store.get_call(project, id, &result.call_id);
                    crate::metrics::timed("get_call", read).await?
                };
                let stored = match stored {
                    Some(rec) => Some(calls::KnownCall {
                        turn_id: rec.turn_id,
                        doc: serde_json::from_str::<CallDoc>(&rec.doc)?,
                        active: false,
                    }),
                    None => None,
                };
                calls::admit(&mut tx, result, stored)?;
            }
            InputEvent::Cancel => cancel(&mut tx),
        }
    }
    if messages && !reserved {
        engine.start_prepared(&mut tx);
    }
    if let Some(key) = key {
        tx.write.idempotency = Some(IdempotencyRecord {
            project_id: project.to_owned(),
            session_id: id.to_owned(),
            key,
            fingerprint,
            created_at: unix_now(),
        });
    }
    let reserved_turn = match (&tx.live.doc.reservation, &tx.live.doc.active) {
        (Some(_), Some(turn)) if reserved => Some(turn.turn.id.clone()),
        _ => None,
    };
    let waiter = reserved_turn.map(|turn| {
        Engine::publish_pending(&mut tx);
        engine.await_reservation(&turn)
    });
    engine.commit(&mut guard, tx).await?;
    drop(guard);
    if events
        .iter()
        .any(|e| matches!(e, InputEvent::ToolResult(_)))
    {
        metrics::histogram!(crate::metrics::TOOL_RESULT_ADMISSION)
            .record(received.elapsed().as_secs_f64());
    }
    // Held until the Environment admits the input (core-contracts §6.8: ≤6 min), so the
    // caller gets its outcome: 202, or the exact 409 of an expiry or a cancel.
    match waiter {
        Some(rx) => {
            match tokio::time::timeout(engine.settings.reservation_deadline + HOLD_MARGIN, rx).await
            {
                Ok(Ok(outcome)) => outcome.into_result(),
                _ => Err(SessionError::EnvironmentInputExpired),
            }
        }
        None => Ok(()),
    }
}

/// How much longer than the reservation deadline an input request is held at most.
const HOLD_MARGIN: std::time::Duration = std::time::Duration::from_secs(60);

/// Applies one user message: it opens a Turn on an idle Session and joins the running Turn
/// otherwise (a parallel Turn is never started).
pub fn message(tx: &mut Tx, message: &InputMessage) -> Result<(), SessionError> {
    let decl = declaration(tx.live.doc.harness);
    switchboard_harness::validate_message_input(decl, &message.content)?;
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
        queued_at: Some(std::time::Instant::now()),
        call_spans: HashMap::new(),
        // Under the request that opened it (its admission span), so a client's `traceparent`
        // names the whole Turn's trace.
        span: tracing::info_span!(
            "turn",
            session.id = %sid,
            turn.id = %tid,
            harness = %tx.live.doc.harness.as_str(),
            turn.status = tracing::field::Empty,
        ),
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

/// Applies a cancel: a Turn that has not started ends at once; a running one is asked to stop
/// and settles when the Runtime confirms (completion can win). Idle: nothing to do.
pub fn cancel(tx: &mut Tx) {
    let Some(turn) = tx.active() else { return };
    if !turn.started {
        super::turns::settle(tx, TurnStatus::Cancelled, None);
        return;
    }
    if turn.cancel_requested {
        return;
    }
    turn.cancel_requested = true;
    let (link, run, tid) = (turn.link, turn.run_id.clone(), turn.turn.id.clone());
    calls::cancel_pending(tx, &tid);
    if let Some(link) = link {
        tx.send(link, run, PromptCancel {}.into());
    }
    tx.refresh_status();
}
