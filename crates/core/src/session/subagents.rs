//! A multi-agent Turn's children (agents-api-wire §3, §7, §8; core-contracts §3.5): the
//! Runtime's Subagent frames as public Subagents, child Turns and child Items, and the root's
//! coordination Items.
//!
//! A child is known by the harness's identity for it; its public ID is given on first sight and
//! kept in the Session document, so a later frame (in this Turn or another) finds it. Child
//! Turns and Items go to their own tables and never to the Session stream: the stream carries
//! only `agent.session.subagent.{created, active, closed}` and the root's coordination Items
//! (a child's function call is the one exception, in `calls::register_child`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use switchboard_protocol::subagents::{
    ChildItem, Coordination, CoordinationCall, CoordinationStatus, SubagentItem, SubagentState,
    SubagentStatus, SubagentTurn, SubagentTurnStatus,
};
use switchboard_store::{ChildItemRecord, ChildTurnRecord, SubagentRecord};
use switchboard_wire::ids::{IdKind, new_id};

use super::native_items;
use super::objects::{
    Turn, TurnStatus, assistant_message_item, command_execution_item, mcp_call_item,
    reasoning_item, user_message_item, web_search_call_item,
};
use super::state::{NativeKind, Tx};
use crate::clock::unix_now;

/// The Session's Subagents, as the Session document keeps them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Subagents {
    pub children: Vec<Child>,
}

/// One Subagent: its harness identity, its public document, and its Turns.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Child {
    pub native_id: String,
    pub id: String,
    pub parent_agent_id: String,
    pub name: Option<String>,
    pub instructions: Option<String>,
    pub state: SubagentState,
    pub opened_at: i64,
    pub closed_at: Option<i64>,
    pub turns: Vec<ChildTurn>,
}

/// A child Turn, and the public Items its native items became.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildTurn {
    pub native_id: String,
    pub turn: Turn,
    pub items: HashMap<String, String>,
}

impl Subagents {
    pub fn by_native(&self, native_id: &str) -> Option<&Child> {
        self.children.iter().find(|c| c.native_id == native_id)
    }

    fn by_native_mut(&mut self, native_id: &str) -> Option<&mut Child> {
        self.children.iter_mut().find(|c| c.native_id == native_id)
    }

    /// The public ID of the Subagent that runs a (still open) child Turn.
    pub fn subagent_of_turn(&self, turn_id: &str) -> Option<String> {
        self.children
            .iter()
            .find(|c| c.turns.iter().any(|t| t.turn.id == turn_id))
            .map(|c| c.id.clone())
    }

    /// The public ID of a child Turn, by native identities.
    pub fn turn_id(&self, subagent: &str, turn: &str) -> Option<String> {
        self.by_native(subagent)?
            .turns
            .iter()
            .find(|t| t.native_id == turn)
            .map(|t| t.turn.id.clone())
    }
}

impl Child {
    /// The public Subagent object.
    pub fn to_json(&self, session_id: &str) -> Value {
        let instructions = self
            .instructions
            .as_ref()
            .map(|t| json!([{ "type": "output_text", "text": t, "annotations": [] }]));
        json!({
            "id": self.id,
            "object": "agent.session.subagent",
            "session_id": session_id,
            "parent_agent_id": self.parent_agent_id,
            "name": self.name,
            "status": self.state,
            "opened_at": self.opened_at,
            "closed_at": self.closed_at,
            "instructions": instructions,
        })
    }
}

/// The root agent's public identity in coordination Items and `parent_agent_id`: the saved
/// Agent's ID, or the Session's for an inline agent (which has none).
fn root_agent_id(tx: &Tx) -> String {
    tx.live
        .meta
        .agent_id
        .clone()
        .unwrap_or_else(|| tx.live.meta.id.clone())
}

/// An agent's public identity: the root for `None`, a known child's ID, or (for a child not
/// reported yet) a new Subagent.
fn agent_id(tx: &mut Tx, native: Option<&str>) -> String {
    match native {
        None => root_agent_id(tx),
        Some(native) => ensure(tx, native, None),
    }
}

/// The child's public ID, opening it (`created`) on first sight.
fn ensure(tx: &mut Tx, native: &str, parent: Option<&str>) -> String {
    if let Some(child) = tx.live.doc.subagents.by_native(native) {
        return child.id.clone();
    }
    let parent_agent_id = agent_id_known(tx, parent);
    let child = Child {
        native_id: native.to_owned(),
        id: new_id(IdKind::Subagent),
        parent_agent_id,
        name: None,
        instructions: None,
        state: SubagentState::Active,
        opened_at: unix_now(),
        closed_at: None,
        turns: Vec::new(),
    };
    let id = child.id.clone();
    tx.live.doc.subagents.children.push(child);
    tx.touch();
    write_and_publish(tx, native, "agent.session.subagent.created");
    id
}

/// A parent's public ID without opening anything: an unknown parent is the root.
fn agent_id_known(tx: &Tx, native: Option<&str>) -> String {
    native
        .and_then(|n| tx.live.doc.subagents.by_native(n))
        .map(|c| c.id.clone())
        .unwrap_or_else(|| root_agent_id(tx))
}

/// Stores the child's document and publishes it under `kind` (or only stores it).
fn write_and_publish(tx: &mut Tx, native: &str, kind: &str) {
    let sid = tx.id().to_owned();
    let Some(child) = tx.live.doc.subagents.by_native(native) else {
        return;
    };
    let doc = child.to_json(&sid);
    tx.write.subagents.retain(|s| s.id != child.id);
    tx.write.subagents.push(SubagentRecord {
        id: child.id.clone(),
        session_id: sid,
        doc: crate::json_text::json_text(&doc),
    });
    if !kind.is_empty() {
        tx.publish(json!({ "type": kind, "subagent": doc }));
    }
}

/// A child opened, became active again, or closed.
pub fn status(tx: &mut Tx, s: SubagentStatus) {
    let known = tx.live.doc.subagents.by_native(&s.subagent_id).is_some();
    if !known {
        ensure(tx, &s.subagent_id, s.parent_id.as_deref());
    }
    let now = unix_now();
    let Some(child) = tx.live.doc.subagents.by_native_mut(&s.subagent_id) else {
        return;
    };
    let mut changed = false;
    if child.name.is_none() && s.name.is_some() {
        child.name = s.name.clone();
        changed = true;
    }
    if child.instructions.is_none() && s.instructions.is_some() {
        child.instructions = s.instructions.clone();
        changed = true;
    }
    let kind = match (child.state, s.state) {
        (SubagentState::Active, SubagentState::Closed) => {
            child.state = SubagentState::Closed;
            child.closed_at = Some(now);
            "agent.session.subagent.closed"
        }
        (SubagentState::Closed, SubagentState::Active) => {
            // Resuming keeps `opened_at` and clears `closed_at` (the SDK's Subagent docs).
            child.state = SubagentState::Active;
            child.closed_at = None;
            "agent.session.subagent.active"
        }
        _ => "",
    };
    if changed || !kind.is_empty() {
        tx.touch();
        write_and_publish(tx, &s.subagent_id, kind);
    }
}

fn put_child_turn(tx: &mut Tx, subagent_id: &str, turn: &Turn) {
    tx.write.child_turns.retain(|t| t.id != turn.id);
    tx.write.child_turns.push(ChildTurnRecord {
        id: turn.id.clone(),
        session_id: tx.live.meta.id.clone(),
        subagent_id: subagent_id.to_owned(),
        doc: crate::json_text::json_text(&turn.to_json()),
    });
}

/// The child Turn's public ID, opening it (`in_progress`) on first sight.
fn ensure_turn(tx: &mut Tx, subagent: &str, native_turn: &str) -> Option<(String, String)> {
    let subagent_id = ensure(tx, subagent, None);
    if let Some(id) = tx.live.doc.subagents.turn_id(subagent, native_turn) {
        return Some((subagent_id, id));
    }
    let sid = tx.id().to_owned();
    let agent = tx.live.meta.agent_id.clone();
    let now = unix_now();
    let mut turn = Turn::new(new_id(IdKind::Turn), sid, agent, now);
    turn.subagent_id = Some(subagent_id.clone());
    turn.status = TurnStatus::InProgress;
    turn.started_at = Some(now);
    put_child_turn(tx, &subagent_id, &turn);
    let id = turn.id.clone();
    let child = tx.live.doc.subagents.by_native_mut(subagent)?;
    child.turns.push(ChildTurn {
        native_id: native_turn.to_owned(),
        turn,
        items: HashMap::new(),
    });
    tx.touch();
    Some((subagent_id, id))
}

/// A child Turn started or ended.
pub fn turn(tx: &mut Tx, t: SubagentTurn) {
    let Some((subagent_id, _)) = ensure_turn(tx, &t.subagent_id, &t.turn_id) else {
        return;
    };
    let status = match t.status {
        SubagentTurnStatus::InProgress => return,
        SubagentTurnStatus::Completed => TurnStatus::Completed,
        SubagentTurnStatus::Failed => TurnStatus::Failed,
        SubagentTurnStatus::Cancelled => TurnStatus::Cancelled,
    };
    let Some(turn) = child_turn_mut(tx, &t.subagent_id, &t.turn_id) else {
        return;
    };
    if turn.turn.status.is_terminal() {
        return;
    }
    turn.turn.status = status;
    turn.turn.completed_at = Some(unix_now());
    let public = turn.turn.clone();
    put_child_turn(tx, &subagent_id, &public);
    tx.touch();
}

fn child_turn_mut<'a>(tx: &'a mut Tx, subagent: &str, turn: &str) -> Option<&'a mut ChildTurn> {
    tx.live
        .doc
        .subagents
        .by_native_mut(subagent)?
        .turns
        .iter_mut()
        .find(|t| t.native_id == turn)
}

/// The public Item ID of a child's native item (the same one each time it is reported).
fn child_item_id(tx: &mut Tx, subagent: &str, turn: &str, native_item: &str) -> Option<String> {
    let turn = child_turn_mut(tx, subagent, turn)?;
    Some(
        turn.items
            .entry(native_item.to_owned())
            .or_insert_with(|| new_id(IdKind::Item))
            .clone(),
    )
}

/// Stores one Item of a child Turn (never published).
pub fn put_child_item(tx: &mut Tx, subagent_id: &str, turn_id: &str, doc: &Value) {
    let id = doc["id"].as_str().unwrap_or_default().to_owned();
    tx.write.child_items.retain(|i| i.id != id);
    tx.write.child_items.push(ChildItemRecord {
        id,
        session_id: tx.live.meta.id.clone(),
        subagent_id: subagent_id.to_owned(),
        turn_id: turn_id.to_owned(),
        doc: crate::json_text::json_text(doc),
    });
}

/// An Item of a child Turn.
pub fn item(tx: &mut Tx, i: SubagentItem) {
    let Some((subagent_id, tid)) = ensure_turn(tx, &i.subagent_id, &i.turn_id) else {
        return;
    };
    let native = match &i.item {
        ChildItem::UserMessage(m) | ChildItem::AssistantMessage(m) => &m.item_id,
        ChildItem::Reasoning(r) => &r.item_id,
        ChildItem::CommandExecution(c) => &c.item_id,
        ChildItem::WebSearchCall(w) => &w.item_id,
        ChildItem::McpCall(m) => &m.item_id,
    };
    let Some(id) = child_item_id(tx, &i.subagent_id, &i.turn_id, native) else {
        return;
    };
    let doc = match &i.item {
        ChildItem::UserMessage(m) => user_message_item(
            &id,
            &tid,
            vec![json!({ "type": "input_text", "text": m.text })],
        ),
        ChildItem::AssistantMessage(m) => {
            assistant_message_item(&id, &tid, "completed", None, Some(&m.text))
        }
        ChildItem::Reasoning(r) => reasoning_item(&id, &tid, Some(&r.text), "completed"),
        ChildItem::CommandExecution(c) => {
            use switchboard_protocol::messages::CommandStatus as S;
            let status = match c.status {
                S::InProgress => "in_progress",
                S::Completed => "completed",
                S::Failed | S::Declined => "failed",
            };
            let mut doc = command_execution_item(
                &id,
                &tid,
                &c.command,
                c.output.as_deref(),
                c.exit_code,
                status,
            );
            if let Some(obj) = doc.as_object_mut() {
                obj.insert("cwd".into(), json!(c.cwd));
                obj.insert("duration_ms".into(), json!(c.duration_ms));
            }
            doc
        }
        ChildItem::WebSearchCall(w) => {
            use switchboard_protocol::messages::WebSearchStatus as S;
            let status = match w.status {
                S::InProgress => "in_progress",
                S::Completed => "completed",
                S::Incomplete => "incomplete",
            };
            let action = serde_json::to_value(&w.action).unwrap_or(Value::Null);
            web_search_call_item(&id, &tid, action, status)
        }
        ChildItem::McpCall(m) => {
            use switchboard_protocol::McpCallStatus as S;
            let status = match m.status {
                S::InProgress => "in_progress",
                S::Completed => "completed",
                S::Failed => "failed",
            };
            mcp_call_item(&id, &tid, m, status)
        }
    };
    put_child_item(tx, &subagent_id, &tid, &doc);
}

/// A coordination call of the root Turn: `item.added` when first seen, `item.done` when it
/// ends, like any native output Item.
pub fn coordination(tx: &mut Tx, c: CoordinationCall) {
    let Some((sid, tid)) = tx.ids() else { return };
    let sender = agent_id(tx, c.sender_id.as_deref());
    let text = |t: &str| json!([{ "type": "output_text", "text": t, "annotations": [] }]);
    let mut fields = serde_json::Map::new();
    let kind = match &c.call {
        Coordination::CreateSubagent {
            agent_id: _,
            content,
            model,
            reasoning_effort,
        } => {
            fields.insert("agent_id".into(), json!(sender));
            fields.insert("content".into(), text(content));
            fields.insert("model".into(), json!(model));
            fields.insert("reasoning_effort".into(), json!(reasoning_effort));
            "create_subagent_call"
        }
        Coordination::SendSubagentInput {
            recipient_id,
            content,
        } => {
            let recipient = agent_id(tx, Some(recipient_id));
            fields.insert("sender_agent_id".into(), json!(sender));
            fields.insert("recipient_agent_id".into(), json!(recipient));
            fields.insert("content".into(), text(content));
            "send_subagent_input_call"
        }
        Coordination::ResumeSubagent { recipient_id }
        | Coordination::InterruptSubagent { recipient_id }
        | Coordination::CloseSubagent { recipient_id } => {
            let recipient = agent_id(tx, Some(recipient_id));
            fields.insert("sender_agent_id".into(), json!(sender));
            fields.insert("recipient_agent_id".into(), json!(recipient));
            match c.call {
                Coordination::ResumeSubagent { .. } => "resume_subagent_call",
                Coordination::InterruptSubagent { .. } => "interrupt_subagent_call",
                _ => "close_subagent_call",
            }
        }
        Coordination::WaitForSubagents { recipient_ids } => {
            let recipients: Vec<String> = recipient_ids
                .iter()
                .map(|r| agent_id(tx, Some(r)))
                .collect();
            fields.insert("sender_agent_id".into(), json!(sender));
            fields.insert("recipient_agent_ids".into(), json!(recipients));
            "wait_for_subagents_call"
        }
    };
    let seen = tx.active().and_then(|t| t.native.get(&c.item_id));
    if seen.is_some_and(|i| i.done) {
        tracing::warn!(item = %c.item_id, "a coordination call after its end is ignored");
        return;
    }
    let known = seen.is_some();
    let Some((id, _)) = native_items::open_native(tx, &c.item_id, NativeKind::Coordination) else {
        return;
    };
    let doc = |status: &str| {
        let mut doc = serde_json::Map::new();
        doc.insert("id".into(), json!(id));
        doc.insert("type".into(), json!(kind));
        doc.insert("turn_id".into(), json!(tid));
        doc.extend(fields.clone());
        doc.insert("status".into(), json!(status));
        Value::Object(doc)
    };
    if !known {
        native_items::add_native(tx, &c.item_id, doc("in_progress"), &sid, &tid);
    }
    let status = match c.status {
        CoordinationStatus::InProgress => return,
        CoordinationStatus::Completed => "completed",
        CoordinationStatus::Failed => "failed",
    };
    native_items::finish_native(tx, &c.item_id, doc(status), &sid, &tid);
}

/// The root Turn ended: a child Turn still open ends with it (cancelled, or failed when the
/// root failed), since no Runtime reports it any more.
pub fn settle_children(tx: &mut Tx, root: TurnStatus) {
    let status = match root {
        TurnStatus::Failed => TurnStatus::Failed,
        _ => TurnStatus::Cancelled,
    };
    let now = unix_now();
    let mut ended = Vec::new();
    for child in tx.live.doc.subagents.children.iter_mut() {
        for turn in child.turns.iter_mut() {
            if !turn.turn.status.is_terminal() {
                turn.turn.status = status;
                turn.turn.completed_at = Some(now);
                ended.push((child.id.clone(), turn.turn.clone()));
            }
        }
        // Only open Turns need their native identities after the root Turn.
        child.turns.retain(|t| !t.turn.status.is_terminal());
    }
    for (subagent_id, turn) in ended {
        put_child_turn(tx, &subagent_id, &turn);
    }
}
