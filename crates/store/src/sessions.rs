//! Session records: what Core persists about Sessions, Turns, Items, function calls and input
//! batches.
//!
//! Core owns the meaning of every document; the store only keeps them. Each record carries the
//! few columns a query needs (identity, ordering, filters) and the rest as a JSON document in a
//! TEXT column, written and read back byte for byte. Every change to one Session is one
//! [`SessionWrite`], committed atomically: a Turn, its user Item and the Session's new status
//! either all land or none do.

/// A Session: identity, list filters, and Core's document (snapshot, status, required actions,
/// usage, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: String,
    pub project_id: String,
    pub created_at: i64,
    /// The saved Agent the Session was created from; `sessions.list?agent_id=` filters on it.
    pub agent_id: Option<String>,
    /// The Session's metadata, a JSON object of strings (`metadata[k]=v` filters on it).
    pub metadata: String,
    /// The root Turn that has not settled yet, if any. Sessions with one are what a restarted
    /// Core must settle ([`crate::Store::unsettled_sessions`]).
    pub active_turn_id: Option<String>,
    pub doc: String,
    /// The Session's agent, JSON text, kept apart from the row (`session_agents`). It never
    /// changes after create, and the row is rewritten on every change to the Session (a dozen
    /// times a Turn), so the agent (instructions and tool schemas, often most of a Session's
    /// bytes) is written once and left out of `doc`. Writing `Some` stores it; `None` leaves
    /// the stored one. A Session written before it was kept apart reads `None` and keeps its
    /// agent in `doc`.
    pub agent: Option<String>,
}

/// Figures over every Session of every Project, for the metrics endpoint: how many are in
/// each `status` of Core's document, and how many `required_actions` they hold in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionGauges {
    pub by_status: Vec<(String, u64)>,
    pub required_actions: u64,
}

impl SessionGauges {
    /// Sums the grouped rows both engines' query gives: (status, Sessions, required actions).
    /// A document without a status counts its actions only.
    pub(crate) fn from_rows(rows: impl IntoIterator<Item = (Option<String>, i64, i64)>) -> Self {
        let mut gauges = SessionGauges::default();
        for (status, n, actions) in rows {
            gauges.required_actions += u64::try_from(actions).unwrap_or(0);
            if let Some(status) = status {
                gauges
                    .by_status
                    .push((status, u64::try_from(n).unwrap_or(0)));
            }
        }
        gauges
    }
}

/// A Turn of a Session, ordered by creation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRecord {
    pub id: String,
    pub session_id: String,
    pub doc: String,
}

/// An Item, ordered by first observation: an upsert keeps the position of the first insert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemRecord {
    pub id: String,
    pub session_id: String,
    pub turn_id: String,
    pub doc: String,
}

/// A function call the harness made, and the caller's result once one is admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRecord {
    pub session_id: String,
    pub call_id: String,
    pub turn_id: String,
    /// Core's document for the call (name, arguments, state, result, …).
    pub doc: String,
}

/// An admitted request under an `Idempotency-Key`: an input batch of one Session, or a Session
/// create (then `session_id` is the Session it created).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    /// The Project the key is scoped to (keys are per Project).
    pub project_id: String,
    pub session_id: String,
    pub key: String,
    /// A digest of the request; the same key with another digest is a conflict.
    pub fingerprint: String,
    pub created_at: i64,
}

/// One atomic change to a Session. Upserts replace the document (and the other columns) of an
/// existing row; Items and Turns keep their original position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionWrite {
    pub session: Option<SessionRecord>,
    pub turns: Vec<TurnRecord>,
    pub items: Vec<ItemRecord>,
    pub calls: Vec<CallRecord>,
    /// Inserted; a second record for the same (session, key) fails the whole write.
    pub idempotency: Option<IdempotencyRecord>,
    /// The key of the Session create this write commits. Inserted; a key already used fails the
    /// whole write with [`crate::StoreError::Conflict`], so the Session is not created.
    pub create_key: Option<IdempotencyRecord>,
    /// An Environment written in the same transaction (a Session create that makes its
    /// Environment), inserted or replaced as [`crate::Store::put_environment`] does.
    pub environment: Option<crate::EnvironmentRecord>,
    /// A multi-agent Session's Subagents, child Turns and child Items (upserts).
    pub subagents: Vec<crate::SubagentRecord>,
    pub child_turns: Vec<crate::ChildTurnRecord>,
    pub child_items: Vec<crate::ChildItemRecord>,
    /// The events this change publishes, kept as rows only where replicas read them
    /// ([`crate::Store::keeps_events`]: PostgreSQL); SQLite ignores them.
    pub events: Vec<EventRecord>,
    /// The claim this write is made under (replicas on PostgreSQL): the transaction checks it
    /// first and writes nothing when it is lost or stale ([`crate::StoreError::Fenced`]).
    /// `None` (SQLite, one process): unfenced. Not a change itself: [`Self::is_empty`] ignores it.
    pub fence: Option<crate::Fence>,
}

/// One published Session event, as replicas read it: the Session's `seq` orders them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord {
    pub session_id: String,
    /// The Session's event sequence number: 1, 2, … with no gap, kept in its document.
    pub seq: i64,
    pub project_id: String,
    /// The event's `type`.
    pub kind: String,
    /// The event exactly as streamed (its `event_id` included), JSON text.
    pub json: String,
    /// Seconds since the Unix epoch; rows older than the retention are swept.
    pub created_at: i64,
}

impl SessionWrite {
    pub fn is_empty(&self) -> bool {
        self.session.is_none()
            && self.turns.is_empty()
            && self.items.is_empty()
            && self.calls.is_empty()
            && self.idempotency.is_none()
            && self.create_key.is_none()
            && self.environment.is_none()
            && self.subagents.is_empty()
            && self.child_turns.is_empty()
            && self.child_items.is_empty()
            && self.events.is_empty()
    }
}

/// `sessions.list` filters: every given condition must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFilter {
    pub agent_id: Option<String>,
    /// `metadata[k]=v` pairs.
    pub metadata: Vec<(String, String)>,
}

/// A deleted Session whose Runtime-held state (its process, state directory and harness home,
/// and a managed workspace it created) is not yet confirmed gone. Only IDs: everything the
/// Session said is deleted with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletionRecord {
    pub session_id: String,
    /// The Session's Project.
    pub project_id: String,
    /// The self-hosted Environment whose enrolled Runtime ran the Session; `None`: the
    /// deployment Runtimes.
    pub environment_id: Option<String>,
    /// A managed workspace to remove with the Session.
    pub workspace_id: Option<String>,
    /// The deployment Runtime that workspace lives on, when it is bound to one.
    pub workspace_runtime: Option<String>,
    pub created_at: i64,
}
