//! A Session's state and the transaction every change goes through.
//!
//! [`Live`] is the whole state of one Session: its identity, its stored document
//! ([`SessionDoc`], which includes the active Turn), and the frozen configuration the Runtime
//! receives. Every operation (an input batch, a Runtime frame, a dispatch step) works on a
//! [`Tx`]: a copy of the state plus what the change must write, publish and send. The engine
//! commits a `Tx` under the Session lock: the write becomes durable first, then the copy
//! replaces the state, then the events are published and the frames sent. A rejected `Tx` is
//! dropped, so a rejected request changes nothing.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use switchboard_execution::{HarnessId, Placement};
use switchboard_protocol::configuration::SessionConfiguration;
use switchboard_protocol::content::InputPart;
use switchboard_protocol::messages::{MessagePhase, Usage};
use switchboard_store::{CallRecord, ItemRecord, SessionRecord, SessionWrite, TurnRecord};

use super::call::CallDoc;
use super::frozen_agent::FrozenAgent;
use super::objects::{RequiredAction, SessionStatus, Turn, fields, turn_event, usage_json};
use crate::json_text::{json_text, push_object_led_by};

/// Identity and list filters.
#[derive(Debug, Clone)]
pub struct SessionMeta {
    pub id: String,
    /// The Project the Session belongs to: only its keys reach it.
    pub project_id: String,
    pub created_at: i64,
    pub agent_id: Option<String>,
    pub metadata: Map<String, Value>,
}

/// The stored Session document (everything but identity and metadata).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionDoc {
    /// The resolved agent, model provider key sealed. Stored once, apart from the row
    /// ([`SessionRecord::agent`]), not in every rewrite of the document; a document written
    /// before it was kept apart still holds it, and reads as well ([`parse_record`]).
    ///
    /// [`parse_record`]: super::engine::parse_record
    #[serde(skip_serializing)]
    pub agent: FrozenAgent,
    pub harness: HarnessId,
    pub placement: Placement,
    pub environment: Value,
    pub status: SessionStatus,
    pub required_actions: Vec<RequiredAction>,
    pub last_active_at: i64,
    pub error: Option<String>,
    /// Sum of ended root Turns' usage; `None` once one ended with unknown usage.
    pub usage_sum: Option<Usage>,
    pub ended_turns: u64,
    pub vault_ids: Vec<String>,
    /// Each HTTP MCP server's frozen Vault credential (`session::credentials`).
    #[serde(default)]
    pub credentials: Vec<super::credentials::BoundCredential>,
    pub prompt_cache_options: Option<Value>,
    pub review: Option<String>,
    /// The root Turn that has not settled.
    pub active: Option<ActiveTurn>,
    /// The workspace of an Environment Session (`env` values sealed).
    #[serde(default)]
    pub workspace: Option<switchboard_protocol::Workspace>,
    /// Input waiting for the self-hosted Environment's Runtime to connect (core-contracts
    /// §6.8): the active Turn has not been admitted to a Runtime yet.
    #[serde(default)]
    pub reservation: Option<Reservation>,
    /// The managed Environment failed to prepare (`sandbox_error`): no new input is taken.
    #[serde(default)]
    pub environment_failed: bool,
    /// A multi-agent Session's Subagents (`session::subagents`).
    #[serde(default)]
    pub subagents: super::subagents::Subagents,
    /// The `seq` of the Session's last published event, where events are kept as rows for
    /// other replicas (PostgreSQL; `session::events`). In the document so that it survives a
    /// move to another replica; always 0 (and not written) on SQLite.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seq: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Pending input on an offline self-hosted Environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reservation {
    pub environment_id: String,
    /// The Session's initial input: its expiry fails the Session.
    pub initial: bool,
}

/// What kind of native item a Runtime item ID stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NativeKind {
    Message,
    Reasoning,
    Command,
    WebSearch,
    McpCall,
    /// A root coordination call (creating, messaging, waiting for or closing Subagents).
    Coordination,
}

/// A Runtime item seen in this Turn, and the public Item it became.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NativeItem {
    pub public_id: String,
    pub output_index: u64,
    pub kind: NativeKind,
    /// Text streamed so far (messages).
    pub text: String,
    pub phase: Option<MessagePhase>,
    pub done: bool,
    /// The Item as last written.
    pub doc: Value,
}

/// The root Turn being run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ActiveTurn {
    pub turn: Turn,
    pub run_id: String,
    /// The message that opened the Turn, sent with `execution_start`.
    pub start_input: Vec<InputPart>,
    /// Messages that joined before the Turn started: sent as steers once it has.
    pub pending_steers: Vec<Vec<InputPart>>,
    /// `execution_start` went out: the Runtime owns the Turn now.
    pub started: bool,
    /// The Runtime link the Turn is bound to.
    pub link: Option<u64>,
    pub cancel_requested: bool,
    /// The Runtime refused an admitted result: the Turn fails when it settles.
    pub fail_on_done: bool,
    pub next_output_index: u64,
    pub native: HashMap<String, NativeItem>,
    /// Calls in the order the harness made them: `(call_id, call)`.
    pub calls: Vec<(String, CallDoc)>,
    /// Deliveries awaiting their receipt: delivery ID → call ID.
    pub deliveries: HashMap<String, String>,
    pub usage: Option<Usage>,
    /// The native error behind a failure (logged and kept; never public).
    pub engine_error: Option<(String, String)>,
    /// When this process queued the Turn, for the queue-wait histogram (a Turn loaded from
    /// the store falls back to its `created_at`).
    #[serde(skip)]
    pub queued_at: Option<std::time::Instant>,
    /// Each open call's span, by call ID (not stored: a restart ends the trace).
    #[serde(skip)]
    pub call_spans: HashMap<String, tracing::Span>,
    /// The Turn's span ([`switchboard_telemetry::TURN_SPAN`]), open until the Turn is settled.
    /// Last, so it ends after the call spans when the Turn is dropped.
    #[serde(skip, default = "tracing::Span::none")]
    pub span: tracing::Span,
}

impl ActiveTurn {
    pub fn call(&self, call_id: &str) -> Option<&CallDoc> {
        self.calls
            .iter()
            .find(|(id, _)| id == call_id)
            .map(|(_, c)| c)
    }

    pub fn call_mut(&mut self, call_id: &str) -> Option<&mut CallDoc> {
        self.calls
            .iter_mut()
            .find(|(id, _)| id == call_id)
            .map(|(_, c)| c)
    }

    /// The next `output_index` of this Turn.
    pub fn take_output_index(&mut self) -> u64 {
        let i = self.next_output_index;
        self.next_output_index += 1;
        i
    }
}

/// One Session's whole state.
#[derive(Debug, Clone)]
pub struct Live {
    pub meta: SessionMeta,
    pub doc: SessionDoc,
    /// The frozen configuration, model provider key open.
    pub config: Arc<SessionConfiguration>,
    /// Whether the store holds the agent apart from the row; until it does, every write of
    /// the row carries it ([`Live::record`]). False for a new Session, and for a row written
    /// before the agent was kept apart.
    pub agent_stored: bool,
}

impl Live {
    /// The public status follows the active Turn (agents-api-wire §11).
    pub fn derive_status(&self) -> SessionStatus {
        match &self.doc.active {
            Some(turn) => {
                let awaiting = turn.calls.iter().any(|(_, c)| c.state.awaits_result())
                    || self.doc.reservation.is_some();
                if awaiting && !turn.cancel_requested {
                    SessionStatus::RequiresAction
                } else {
                    SessionStatus::InProgress
                }
            }
            None if self.doc.error.is_some() => SessionStatus::Failed,
            None => SessionStatus::Idle,
        }
    }

    /// The public AgentSession object.
    pub fn to_json(&self) -> Value {
        session_json(&self.meta, &self.doc)
    }

    /// The store record of the Session row.
    pub fn record(&self) -> Result<SessionRecord, serde_json::Error> {
        Ok(SessionRecord {
            id: self.meta.id.clone(),
            project_id: self.meta.project_id.clone(),
            created_at: self.meta.created_at,
            agent_id: self.meta.agent_id.clone(),
            metadata: serde_json::to_string(&self.meta.metadata)?,
            active_turn_id: self.doc.active.as_ref().map(|t| t.turn.id.clone()),
            doc: serde_json::to_string(&self.doc)?,
            agent: match self.agent_stored {
                true => None,
                false => Some(serde_json::to_string(&self.doc.agent)?),
            },
        })
    }
}

/// The public AgentSession object of a Session's identity and document.
pub fn session_json(meta: &SessionMeta, doc: &SessionDoc) -> Value {
    let fields = doc.agent.public_fields();
    let mut agent = Map::with_capacity(fields.len() + 1);
    agent.insert("id".into(), json!(meta.agent_id));
    agent.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
    let mut obj = session_fields(meta, doc);
    // The key is there already: it keeps its place.
    obj.insert("agent".into(), Value::Object(agent));
    Value::Object(obj)
}

/// The opening of a Session event's JSON text, `{"type":kind,"session":{…}`, the Session
/// object as [`session_json`] shows it but with the agent's fields spliced in as the text
/// [`FrozenAgent`] rendered once (an agent's instructions and tools are most of a snapshot).
/// `session::events` closes it with the event's `event_id`.
pub fn session_event_head(kind: &str, meta: &SessionMeta, doc: &SessionDoc) -> String {
    let public = doc.agent.public_text();
    // Room for the rest of the Session object and the `event_id` that closes it.
    let mut head = String::with_capacity(public.len() + 2048);
    head.push_str("{\"type\":");
    head.push_str(&json_text(&json!(kind)));
    head.push_str(",\"session\":{");
    for (n, (key, value)) in session_fields(meta, doc).iter().enumerate() {
        if n > 0 {
            head.push(',');
        }
        head.push_str(&json_text(&json!(key)));
        head.push(':');
        if key != "agent" {
            head.push_str(&json_text(value));
            continue;
        }
        let id = ["\"id\":", &json_text(&json!(meta.agent_id))];
        // `public` is a map's text, so always an object; were it not, the agent would show its
        // `id` alone.
        let _ =
            push_object_led_by(&mut head, &id, public) || push_object_led_by(&mut head, &id, "{}");
    }
    head.push('}');
    head
}

/// The Session object's members in their order, `agent` only a placeholder (`null`).
fn session_fields(meta: &SessionMeta, doc: &SessionDoc) -> Map<String, Value> {
    let usage = match (&doc.active, &doc.usage_sum) {
        (None, Some(sum)) if doc.ended_turns > 0 => usage_json(sum),
        _ => Value::Null,
    };
    let mut obj = Map::new();
    obj.insert("id".into(), json!(meta.id));
    obj.insert("object".into(), json!("agent.session"));
    obj.insert("created_at".into(), json!(meta.created_at));
    obj.insert("last_active_at".into(), json!(doc.last_active_at));
    obj.insert("metadata".into(), Value::Object(meta.metadata.clone()));
    obj.insert("vault_ids".into(), json!(doc.vault_ids));
    obj.insert("status".into(), json!(doc.status));
    obj.insert("required_actions".into(), json!(doc.required_actions));
    obj.insert("agent".into(), Value::Null);
    obj.insert("environment".into(), doc.environment.clone());
    obj.insert("error".into(), json!(doc.error));
    obj.insert("usage".into(), usage);
    if let Some(p) = &doc.prompt_cache_options {
        obj.insert("prompt_cache_options".into(), p.clone());
    }
    if let Some(r) = &doc.review {
        obj.insert("review".into(), json!(r));
    }
    let mut x = doc.agent.public_x_agents_core().clone();
    if let Some(x) = x.as_object_mut() {
        x.insert("harness".into(), json!(doc.harness));
    }
    obj.insert("x_agents_core".into(), x);
    obj
}

/// What a change does once committed, besides writing.
#[derive(Debug)]
pub enum Effect {
    /// Publish an event on the Session's streams.
    Publish(Value),
    /// Publish a Session event (`agent.session.<status>`), rendered when the change made it
    /// ([`session_event_head`]); its `event_id` closes it when it is stamped.
    PublishSession { kind: &'static str, head: String },
    /// Move the active Turn forward on a Runtime (prepare, start, steer).
    Drive,
    /// Send a frame on a Runtime link.
    Send {
        link: u64,
        id: String,
        message: Box<switchboard_protocol::CoreToRuntime>,
    },
}

/// A change in progress: a copy of the state and everything the change will do.
pub struct Tx {
    /// Boxed: a change is held by value at every level of a commit's futures, and the state
    /// is most of its size.
    pub live: Box<Live>,
    pub write: SessionWrite,
    /// Call documents to write, `(turn_id, call_id, doc)`: serialized when the change commits.
    calls: Vec<(String, String, CallDoc)>,
    pub effects: Vec<Effect>,
    /// Whether the Session document changed and must be written.
    pub touched: bool,
}

impl Tx {
    pub fn new(live: &Live) -> Tx {
        Tx {
            live: Box::new(live.clone()),
            write: SessionWrite::default(),
            calls: Vec::new(),
            effects: Vec::new(),
            touched: false,
        }
    }

    pub fn id(&self) -> &str {
        &self.live.meta.id
    }

    pub fn active(&mut self) -> Option<&mut ActiveTurn> {
        self.live.doc.active.as_mut()
    }

    pub fn publish(&mut self, event: Value) {
        self.effects.push(Effect::Publish(event));
    }

    pub fn send(&mut self, link: u64, id: String, message: switchboard_protocol::CoreToRuntime) {
        self.effects.push(Effect::Send {
            link,
            id,
            message: Box::new(message),
        });
    }

    /// Marks the Session row for writing.
    pub fn touch(&mut self) {
        self.touched = true;
    }

    pub fn put_item(&mut self, turn_id: &str, doc: &Value) {
        let id = doc["id"].as_str().unwrap_or_default().to_owned();
        self.write.items.retain(|i| i.id != id);
        self.write.items.push(ItemRecord {
            id,
            session_id: self.live.meta.id.clone(),
            turn_id: turn_id.to_owned(),
            doc: crate::json_text::json_text(doc),
        });
    }

    pub fn put_turn(&mut self, turn: &Turn) {
        self.write.turns.retain(|t| t.id != turn.id);
        self.write.turns.push(TurnRecord {
            id: turn.id.clone(),
            session_id: self.live.meta.id.clone(),
            doc: crate::json_text::json_text(&turn.to_json()),
        });
    }

    pub fn put_call(&mut self, turn_id: &str, call_id: &str, doc: &CallDoc) {
        self.calls.retain(|(_, c, _)| c != call_id);
        self.calls
            .push((turn_id.to_owned(), call_id.to_owned(), doc.clone()));
    }

    /// Everything the change writes, in one store write: the Session row when touched, and
    /// every row put.
    pub fn take_write(&mut self) -> Result<SessionWrite, serde_json::Error> {
        let mut write = std::mem::take(&mut self.write);
        if self.touched {
            write.session = Some(self.live.record()?);
            // Once this write commits, the row holds the agent: this copy becomes the state.
            self.live.agent_stored = true;
        }
        for (turn_id, call_id, doc) in std::mem::take(&mut self.calls) {
            write.calls.push(CallRecord {
                session_id: self.live.meta.id.clone(),
                call_id,
                turn_id,
                doc: serde_json::to_string(&doc)?,
            });
        }
        Ok(write)
    }

    /// The Session and active Turn IDs.
    pub fn ids(&mut self) -> Option<(String, String)> {
        let sid = self.id().to_owned();
        let tid = self.active()?.turn.id.clone();
        Some((sid, tid))
    }

    /// Publishes an Item event (`item.added`, `item.done`) of the active Turn.
    pub fn publish_item(
        &mut self,
        kind: &str,
        sid: &str,
        tid: &str,
        index: Option<u64>,
        item: Value,
    ) {
        self.publish(turn_event(
            kind,
            sid,
            tid,
            fields([("output_index", json!(index)), ("item", item)]),
        ));
    }

    /// Recomputes the Session status; publishes the matching Session event when it changed
    /// (`in_progress`, `requires_action`), with the snapshot as of this change.
    pub fn refresh_status(&mut self) {
        let status = self.live.derive_status();
        self.live.doc.required_actions = match &self.live.doc.active {
            Some(turn) if !turn.cancel_requested => turn
                .calls
                .iter()
                .filter(|(_, c)| c.state.is_required_action())
                .map(|(id, c)| {
                    RequiredAction::function_call(&turn.turn.id, id, &c.name, &c.arguments)
                })
                .chain(self.live.doc.reservation.as_ref().map(|r| {
                    RequiredAction::EnvironmentConnection {
                        environment_id: r.environment_id.clone(),
                    }
                }))
                .collect(),
            _ => Vec::new(),
        };
        self.touch();
        if status == self.live.doc.status {
            return;
        }
        self.live.doc.status = status;
        let kind = match status {
            SessionStatus::InProgress => "agent.session.in_progress",
            SessionStatus::RequiresAction => "agent.session.requires_action",
            SessionStatus::Idle => "agent.session.idle",
            SessionStatus::Failed => "agent.session.failed",
        };
        let head = session_event_head(kind, &self.live.meta, &self.live.doc);
        self.effects.push(Effect::PublishSession { kind, head });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::objects::session_event;

    /// A Session with an agent that has instructions (escapes and all), tools and metadata.
    fn session(agent_id: Option<&str>, agent: &str) -> (SessionMeta, SessionDoc) {
        let meta = SessionMeta {
            id: "sess_1".into(),
            project_id: "proj_1".into(),
            created_at: 1_700_000_000,
            agent_id: agent_id.map(str::to_owned),
            metadata: json!({"team": "é \"quoted\""})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        };
        let doc = SessionDoc {
            agent: serde_json::from_str(agent).expect("an agent"),
            harness: HarnessId::Codex,
            placement: Placement::None,
            environment: json!({"type": "none"}),
            status: SessionStatus::RequiresAction,
            required_actions: vec![RequiredAction::function_call(
                "turn_1",
                "call_1",
                "get_weather",
                r#"{"city":"Paris"}"#,
            )],
            last_active_at: 1_700_000_100,
            error: None,
            usage_sum: Some(Usage::default()),
            ended_turns: 2,
            vault_ids: vec!["vault_1".into()],
            credentials: Vec::new(),
            prompt_cache_options: Some(json!({"ttl": "30m"})),
            review: Some("none".into()),
            active: None,
            workspace: None,
            reservation: None,
            environment_failed: false,
            subagents: Default::default(),
            seq: 0,
        };
        (meta, doc)
    }

    /// The spliced text is byte for byte the event built as a `Value` and serialized.
    #[test]
    fn a_session_event_reads_as_its_value_would() {
        let agent = r#"{"name":"w","model":"gpt-test","instructions":"Line one.\nSay \"hi\" </script> é 🌍","tools":[{"type":"function","name":"get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"defer_loading":false,"async":null}],"text":{"format":{"type":"text"},"verbosity":"medium"},"reasoning":{"effort":null,"summary":null},"service_tier":"auto","multi_agent":{"enabled":false,"max_concurrent_subagents":null},"compaction":null,"x_agents_core":{"harness":null,"model_provider":null,"harness_config":null}}"#;
        for agent_id in [Some("agent_1"), None] {
            let (meta, doc) = session(agent_id, agent);
            let head = session_event_head("agent.session.requires_action", &meta, &doc);
            let text = format!(r#"{head},"event_id":"evt_1"}}"#);
            let mut event =
                session_event("agent.session.requires_action", session_json(&meta, &doc));
            if let Some(obj) = event.as_object_mut() {
                obj.insert("event_id".into(), json!("evt_1"));
            }
            assert_eq!(text, event.to_string());
        }
    }
}
