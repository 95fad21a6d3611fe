//! Native items of a Turn (messages, reasoning, commands, web searches, MCP calls) as public
//! Items.
//!
//! Each native item gets a public Item ID of its own (native IDs are unique only per harness
//! thread) and an `output_index` in the order it was first seen. Message text streams as
//! `output_text.delta` events and is written to the store only when the message completes.

use serde_json::{Value, json};
use switchboard_protocol::messages::{
    CommandExecution, CommandStatus, Delta, MessagePhase, MessageStatus, OutputMessage, Reasoning,
    WebSearchCall, WebSearchStatus,
};
use switchboard_wire::ids::{IdKind, new_id};

use super::objects::{
    assistant_message_item, command_execution_item, fields, mcp_call_item, reasoning_item,
    turn_event, web_search_call_item,
};
use super::state::{Live, NativeItem, NativeKind, Tx};

fn phase_str(p: Option<MessagePhase>) -> Option<&'static str> {
    p.map(|p| match p {
        MessagePhase::Commentary => "commentary",
        MessagePhase::FinalAnswer => "final_answer",
    })
}

/// A reasoning item: opened, its summary streamed as one part, and finished in one frame.
pub(super) fn reasoning(tx: &mut Tx, r: Reasoning) {
    let Some((sid, tid)) = tx.ids() else { return };
    let Some((id, index)) = open_native(tx, &r.item_id, NativeKind::Reasoning) else {
        return;
    };
    let doc = reasoning_item(&id, &tid, Some(&r.text), "completed");
    let added = reasoning_item(&id, &tid, None, "in_progress");
    tx.publish_item(
        "agent.session.turn.item.added",
        &sid,
        &tid,
        Some(index),
        added,
    );
    if !r.text.is_empty() {
        let part = |text: &str| json!({ "type": "summary_text", "text": text });
        let at = |extra: [(&str, Value); 1]| {
            let mut f = fields([
                ("item_id", json!(id)),
                ("output_index", json!(index)),
                ("summary_index", json!(0)),
            ]);
            f.extend(fields(extra));
            f
        };
        let events = [
            (
                "agent.session.turn.reasoning_summary_part.added",
                at([("part", part(""))]),
            ),
            (
                "agent.session.turn.reasoning_summary_text.delta",
                at([("delta", json!(r.text))]),
            ),
            (
                "agent.session.turn.reasoning_summary_text.done",
                at([("text", json!(r.text))]),
            ),
            (
                "agent.session.turn.reasoning_summary_part.done",
                at([("part", part(&r.text))]),
            ),
        ];
        for (kind, f) in events {
            tx.publish(turn_event(kind, &sid, &tid, f));
        }
    }
    finish_native(tx, &r.item_id, doc, &sid, &tid);
}

/// A text chunk of an open message: the event to publish. Deltas are the bulk of a Turn's
/// frames, so the engine applies them in place, without a [`Tx`]: they change no stored row.
pub fn delta(live: &mut Live, d: Delta) -> Option<Value> {
    let sid = live.meta.id.clone();
    let turn = live.doc.active.as_mut()?;
    let Some(item) = turn.native.get_mut(&d.item_id) else {
        tracing::warn!(item = %d.item_id, "a delta for an unopened message is ignored");
        return None;
    };
    item.text.push_str(&d.delta);
    Some(turn_event(
        "agent.session.turn.output_text.delta",
        &sid,
        &turn.turn.id,
        fields([
            ("item_id", json!(item.public_id)),
            ("output_index", json!(item.output_index)),
            ("content_index", json!(0)),
            ("delta", json!(d.delta)),
        ]),
    ))
}

/// The public ID and output index of a native item, registering it on first sight.
/// `None` without an active Turn.
pub(super) fn open_native(tx: &mut Tx, native_id: &str, kind: NativeKind) -> Option<(String, u64)> {
    let turn = tx.active()?;
    if let Some(item) = turn.native.get(native_id) {
        return Some((item.public_id.clone(), item.output_index));
    }
    let index = turn.take_output_index();
    let public_id = new_id(IdKind::Item);
    turn.native.insert(
        native_id.to_owned(),
        NativeItem {
            public_id: public_id.clone(),
            output_index: index,
            kind,
            text: String::new(),
            phase: None,
            done: false,
            doc: Value::Null,
        },
    );
    Some((public_id, index))
}

/// Publishes a native item's opening document as `item.added` and stores it (its position is
/// its first observation).
pub(super) fn add_native(tx: &mut Tx, native_id: &str, doc: Value, sid: &str, tid: &str) {
    let Some(item) = tx.active().and_then(|t| t.native.get_mut(native_id)) else {
        return;
    };
    item.doc = doc.clone();
    let index = item.output_index;
    tx.put_item(tid, &doc);
    tx.publish_item("agent.session.turn.item.added", sid, tid, Some(index), doc);
}

/// Marks a native item done with its final document: stored and published as `item.done`.
pub(super) fn finish_native(tx: &mut Tx, native_id: &str, doc: Value, sid: &str, tid: &str) {
    let Some(turn) = tx.active() else { return };
    let Some(item) = turn.native.get_mut(native_id) else {
        return;
    };
    // A finished item is in the store; the Turn keeps only its identity.
    item.done = true;
    item.doc = Value::Null;
    item.text = String::new();
    let index = item.output_index;
    tx.put_item(tid, &doc);
    tx.publish_item("agent.session.turn.item.done", sid, tid, Some(index), doc);
}

pub(super) fn output_message(tx: &mut Tx, m: OutputMessage) {
    let Some((sid, tid)) = tx.ids() else { return };
    let known = tx.active().is_some_and(|t| t.native.contains_key(&m.id));
    let Some((id, index)) = open_native(tx, &m.id, NativeKind::Message) else {
        return;
    };
    let at = |extra: Vec<(&str, Value)>| {
        let mut f = fields([
            ("item_id", json!(id)),
            ("output_index", json!(index)),
            ("content_index", json!(0)),
        ]);
        f.extend(extra.into_iter().map(|(k, v)| (k.to_owned(), v)));
        f
    };
    if !known {
        let opened = assistant_message_item(&id, &tid, "in_progress", phase_str(m.phase), None);
        if let Some(item) = tx.active().and_then(|t| t.native.get_mut(&m.id)) {
            item.phase = m.phase;
        }
        add_native(tx, &m.id, opened, &sid, &tid);
        let part = json!({ "type": "output_text", "text": "", "annotations": [] });
        tx.publish(turn_event(
            "agent.session.turn.content_part.added",
            &sid,
            &tid,
            at(vec![("part", part)]),
        ));
    }
    if m.status != MessageStatus::Completed {
        return;
    }
    let streamed = tx
        .active()
        .and_then(|t| t.native.get(&m.id))
        .map(|i| i.text.clone())
        .unwrap_or_default();
    // A message first seen complete (or never streamed) sends its whole text as one delta.
    if streamed.is_empty() && !m.text.is_empty() {
        tx.publish(turn_event(
            "agent.session.turn.output_text.delta",
            &sid,
            &tid,
            at(vec![("delta", json!(m.text))]),
        ));
    }
    tx.publish(turn_event(
        "agent.session.turn.output_text.done",
        &sid,
        &tid,
        at(vec![("text", json!(m.text))]),
    ));
    let part = json!({ "type": "output_text", "text": m.text, "annotations": [] });
    tx.publish(turn_event(
        "agent.session.turn.content_part.done",
        &sid,
        &tid,
        at(vec![("part", part)]),
    ));
    let done = assistant_message_item(&id, &tid, "completed", phase_str(m.phase), Some(&m.text));
    finish_native(tx, &m.id, done, &sid, &tid);
}

pub(super) fn command(tx: &mut Tx, c: CommandExecution) {
    let Some((sid, tid)) = tx.ids() else { return };
    let known = tx
        .active()
        .is_some_and(|t| t.native.contains_key(&c.item_id));
    let Some((id, index)) = open_native(tx, &c.item_id, NativeKind::Command) else {
        return;
    };
    if !known {
        let mut opened = command_execution_item(&id, &tid, &c.command, None, None, "in_progress");
        place(&mut opened, c.cwd.as_deref(), None);
        add_native(tx, &c.item_id, opened, &sid, &tid);
    }
    let status = match c.status {
        CommandStatus::InProgress => return,
        CommandStatus::Completed => "completed",
        CommandStatus::Failed | CommandStatus::Declined => "failed",
    };
    if let Some(output) = c.output.as_deref().filter(|o| !o.is_empty()) {
        tx.publish(turn_event(
            "agent.output.command_execution_output.delta",
            &sid,
            &tid,
            fields([
                ("item_id", json!(id)),
                ("output_index", json!(index)),
                ("delta", json!(output)),
            ]),
        ));
    }
    let mut done = command_execution_item(
        &id,
        &tid,
        &c.command,
        c.output.as_deref(),
        c.exit_code,
        status,
    );
    place(&mut done, c.cwd.as_deref(), c.duration_ms);
    finish_native(tx, &c.item_id, done, &sid, &tid);
}

/// A command Item's `cwd` and `duration_ms` (null when the harness does not report them).
fn place(item: &mut Value, cwd: Option<&str>, duration_ms: Option<u64>) {
    if let Some(item) = item.as_object_mut() {
        item.insert("cwd".into(), json!(cwd));
        item.insert("duration_ms".into(), json!(duration_ms));
    }
}

/// A native web search: `item.added` when first seen, `item.done` when it ends. A search first
/// seen finished gets both at once, so every output Item opens before it closes.
pub(super) fn web_search(tx: &mut Tx, w: WebSearchCall) {
    let Some((sid, tid)) = tx.ids() else { return };
    let known = tx
        .active()
        .is_some_and(|t| t.native.contains_key(&w.item_id));
    if tx
        .active()
        .and_then(|t| t.native.get(&w.item_id))
        .is_some_and(|i| i.done)
    {
        tracing::warn!(item = %w.item_id, "a web_search_call after its end is ignored");
        return;
    }
    let Some((id, _)) = open_native(tx, &w.item_id, NativeKind::WebSearch) else {
        return;
    };
    let mut action = serde_json::to_value(&w.action).unwrap_or(Value::Null);
    if action.is_null() {
        // An end that repeats no action keeps the one the start reported.
        if let Some(item) = tx.active().and_then(|t| t.native.get(&w.item_id)) {
            action = item.doc.get("action").cloned().unwrap_or(Value::Null);
        }
    }
    if !known {
        let opened = web_search_call_item(&id, &tid, action.clone(), "in_progress");
        add_native(tx, &w.item_id, opened, &sid, &tid);
    }
    let status = match w.status {
        WebSearchStatus::InProgress => return,
        WebSearchStatus::Completed => "completed",
        WebSearchStatus::Incomplete => "incomplete",
    };
    let done = web_search_call_item(&id, &tid, action, status);
    finish_native(tx, &w.item_id, done, &sid, &tid);
}

/// A native MCP call: `item.added` when first seen, `item.done` when it ends. A call first seen
/// finished gets both at once, so every output Item opens before it closes.
pub(super) fn mcp_call(tx: &mut Tx, call: switchboard_protocol::McpCall) {
    use switchboard_protocol::McpCallStatus;
    let Some((sid, tid)) = tx.ids() else { return };
    let seen = tx.active().and_then(|t| t.native.get(&call.item_id));
    if seen.is_some_and(|i| i.done) {
        tracing::warn!(item = %call.item_id, "an mcp_call after its end is ignored");
        return;
    }
    let known = seen.is_some();
    let Some((id, _)) = open_native(tx, &call.item_id, NativeKind::McpCall) else {
        return;
    };
    if !known {
        let opening = switchboard_protocol::McpCall {
            output: None,
            error: None,
            ..call.clone()
        };
        let opened = mcp_call_item(&id, &tid, &opening, "in_progress");
        add_native(tx, &call.item_id, opened, &sid, &tid);
    }
    let status = match call.status {
        McpCallStatus::InProgress => return,
        McpCallStatus::Completed => "completed",
        McpCallStatus::Failed => "failed",
    };
    let done = mcp_call_item(&id, &tid, &call, status);
    finish_native(tx, &call.item_id, done, &sid, &tid);
}
