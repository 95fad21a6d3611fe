//! A Turn's life on a Runtime link: bound to one (`in_progress`), and its end, whatever ends it
//! (the Runtime's `done`, a cancel before it started, a lost link, a restart).

use serde_json::{Value, json};

use super::calls;
use super::objects::{EXECUTION_FAILED, TurnStatus, add_usage, fields, turn_event, usage_json};
use super::state::{NativeKind, Tx};
use crate::clock::unix_now;

/// Binds the queued Turn to a Runtime link: it is `in_progress` from here.
pub fn bind(tx: &mut Tx, link: u64) {
    let sid = tx.id().to_owned();
    let Some(turn) = tx.active() else { return };
    turn.link = Some(link);
    turn.turn.status = TurnStatus::InProgress;
    turn.turn.started_at = Some(unix_now());
    let public = turn.turn.clone();
    tx.put_turn(&public);
    tx.touch();
    tx.publish(turn_event(
        "agent.session.turn.in_progress",
        &sid,
        &public.id,
        fields([("turn", public.to_json())]),
    ));
}

/// Fails the active Turn for a reason that stays internal.
pub fn fail(tx: &mut Tx, code: &str, message: &str) {
    tracing::warn!(session = %tx.id(), code, message, "the Turn failed");
    if let Some(turn) = tx.active() {
        turn.engine_error = Some((code.to_owned(), message.to_owned()));
    }
    settle(tx, TurnStatus::Failed, None);
}

/// Ends the active Turn: unfinished Items become `incomplete`, unanswered calls stop being
/// required actions, usage is recorded, then `turn.<outcome>` and the Session's new status.
pub fn settle(
    tx: &mut Tx,
    status: TurnStatus,
    usage: Option<switchboard_protocol::messages::Usage>,
) {
    let sid = tx.id().to_owned();
    let Some(mut turn) = tx.live.doc.active.take() else {
        return;
    };
    let tid = turn.turn.id.clone();
    let now = unix_now();
    turn.span.record("turn.status", status.as_str());
    tracing::info_span!(
        parent: &turn.span,
        "turn.terminal",
        session.id = %sid,
        turn.id = %tid,
        turn.status = status.as_str(),
        error.code = turn.engine_error.as_ref().map(|(code, _)| code.as_str()),
    )
    .in_scope(|| {});

    let mut unfinished: Vec<_> = turn.native.values().filter(|i| !i.done).cloned().collect();
    unfinished.sort_by_key(|i| i.output_index);
    for item in unfinished {
        let mut doc = item.doc.clone();
        if let Some(obj) = doc.as_object_mut() {
            obj.insert("status".into(), json!("incomplete"));
            if item.kind == NativeKind::Message {
                obj.insert(
                    "content".into(),
                    json!([{ "type": "output_text", "text": item.text, "annotations": [] }]),
                );
            }
        }
        tx.put_item(&tid, &doc);
        tx.publish_item(
            "agent.session.turn.item.done",
            &sid,
            &tid,
            Some(item.output_index),
            doc,
        );
    }
    calls::settle_all(tx, &tid, &mut turn);
    super::subagents::settle_children(tx, status);

    let usage = usage.or(turn.usage);
    turn.turn.status = status;
    turn.turn.completed_at = Some(now);
    turn.turn.usage = usage.as_ref().map(usage_json);
    if status == TurnStatus::Failed {
        turn.turn.error = Some(json!({ "code": "internal_error", "message": EXECUTION_FAILED }));
        if let Some((code, message)) = &turn.engine_error {
            tracing::info!(session = %sid, turn = %tid, code, message, "native cause of the failure");
        }
    }
    let doc = &mut tx.live.doc;
    doc.reservation = None;
    doc.ended_turns += 1;
    doc.usage_sum = match (doc.usage_sum, usage) {
        (Some(sum), Some(u)) => Some(add_usage(&sum, &u)),
        _ => None,
    };
    doc.error = (status == TurnStatus::Failed).then(|| EXECUTION_FAILED.to_owned());
    doc.last_active_at = now;
    tx.put_turn(&turn.turn);
    let kind = match status {
        TurnStatus::Completed => "agent.session.turn.completed",
        TurnStatus::Failed => "agent.session.turn.failed",
        _ => "agent.session.turn.cancelled",
    };
    tx.publish(turn_event(
        kind,
        &sid,
        &tid,
        fields([
            ("turn", turn.turn.to_json()),
            ("usage", turn.turn.usage.clone().unwrap_or(Value::Null)),
        ]),
    ));
    tx.refresh_status();
}
