//! A Session's events across replicas (issue 16, design item 7).
//!
//! Where the store keeps events as rows ([`Store::keeps_events`]: PostgreSQL), every event a
//! change publishes gets the Session's next `seq` (kept in its document) and becomes a row in
//! the change's own store write, whose transaction also notifies the other replicas; the event
//! goes to this replica's streams only after that write (the commit rule). Other replicas
//! read the rows back ([`Engine::catch_up`], driven by `crate::replicas`) into their hubs,
//! which skip any `seq` they already published. A stream (`GET …/events`) on any replica
//! starts after the Session's last committed `seq` without loading the Session: it only reads.
//!
//! On SQLite none of this runs: events get an ID and go straight to the hub, as always.
//!
//! [`Store::keeps_events`]: switchboard_store::Store::keeps_events

use serde_json::{Value, json};
use switchboard_store::{EventRecord, SessionWrite};
use switchboard_wire::ids::{IdKind, new_id};

use super::engine::{Engine, Guard};
use super::error::SessionError;
use super::hub::{Published, Subscription};
use super::state::{Effect, Live, Tx};
use crate::json_text::json_text;
use crate::sync::lock;

impl Engine {
    /// Gives every event of `tx` its ID and, where events are kept as rows, its `seq` and row
    /// (the Session document then carries the new `seq` in the same write). The events in
    /// publish order.
    pub(super) fn stamp(&self, tx: &mut Tx) -> Vec<Published> {
        let keep = self.store.keeps_events();
        let mut out = Vec::new();
        for effect in &mut tx.effects {
            let published = match effect {
                Effect::Publish(event) => {
                    with_event_id(event);
                    Published::new(event)
                }
                Effect::PublishSession { kind, head } => {
                    let mut json = std::mem::take(head);
                    json.push_str(",\"event_id\":");
                    json.push_str(&json_text(&new_event_id()));
                    json.push('}');
                    Published::text(kind, json)
                }
                _ => continue,
            };
            if !keep {
                out.push(published);
                continue;
            }
            let (published, row) = stamped(&mut tx.live, published);
            tx.write.events.push(row);
            out.push(published);
        }
        if keep && !out.is_empty() {
            tx.touch();
        }
        out
    }

    /// Publishes an event that changes nothing stored (a text delta). Where events are kept
    /// as rows it is still written (its row, and the Session's `seq`) before it is published,
    /// so other replicas' streams see it too; a failed write drops it, logged.
    pub(super) async fn publish_unstored(&self, guard: &mut Guard, mut event: Value) {
        let Some(live) = guard.as_mut() else { return };
        with_event_id(&mut event);
        if !self.store.keeps_events() {
            self.hub.publish(&live.meta.id, Published::new(&event));
            return;
        }
        let before = live.doc.seq;
        let (published, row) = stamped(live, Published::new(&event));
        // Fenced like every Session write: a replica that lost the claim writes nothing (its
        // next commit drops the Session, `Engine::commit`).
        let fence = self.replica().and_then(|r| r.fence(&live.meta.id));
        let write = live.record().map(|session| SessionWrite {
            session: Some(session),
            events: vec![row],
            fence,
            ..Default::default()
        });
        let stored = match write {
            Ok(write) => self
                .store
                .write_session(write)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = stored {
            live.doc.seq = before;
            tracing::error!(error = %e, "could not store a Session event");
            return;
        }
        live.agent_stored = true;
        let id = live.meta.id.clone();
        self.before_publishing(&id, std::slice::from_ref(&published))
            .await;
        self.hub.publish(&id, published);
    }

    /// Called before a commit's events go to this replica's streams: if the streams are
    /// behind the first of them (the Session moved here while other replicas' rows were still
    /// unread), those rows are read first, so nothing falls between.
    pub(super) async fn before_publishing(&self, id: &str, events: &[Published]) {
        let first = events.first().and_then(|e| e.seq);
        if let (Some(first), Some(last)) = (first, self.hub.last(id))
            && last + 1 < first
        {
            self.catch_up(id).await;
        }
    }

    /// Reads a Session's event rows after the last `seq` its streams here got, and publishes
    /// them. Nothing to do when nobody here streams it.
    pub async fn catch_up(&self, id: &str) {
        let Some(last) = self.hub.last(id) else {
            return;
        };
        let after = i64::try_from(last).unwrap_or(i64::MAX);
        match self.store.events_after(id, after).await {
            Ok(rows) => {
                for row in rows {
                    let seq = u64::try_from(row.seq).unwrap_or_default();
                    self.hub
                        .publish(id, Published::stored(&row.kind, &row.json, seq));
                }
            }
            Err(e) => tracing::warn!(error = %e, session = %id, "could not read event rows"),
        }
    }

    /// `GET …/events` where events are kept as rows: a subscription after the Session's last
    /// committed `seq`, without loading it (no claim: it only reads). A Session loaded here
    /// gives its exact position under its lock; any other, the stored document's.
    pub(super) async fn subscribe_rows(
        &self,
        project: &str,
        id: &str,
    ) -> Result<Subscription, SessionError> {
        let slot = lock(&self.sessions).get(id).cloned();
        let loaded = match slot {
            Some(slot) => {
                let guard = slot.lock().await;
                match guard.as_ref() {
                    Some(live) if live.meta.project_id != project => {
                        return Err(SessionError::NotFound);
                    }
                    Some(live) => Some(self.hub.subscribe_after(id, live.doc.seq)),
                    None => None,
                }
            }
            None => None,
        };
        if let Some(subscription) = loaded {
            return Ok(subscription);
        }
        let Some(rec) = self.store.get_session(project, id).await? else {
            return Err(SessionError::NotFound);
        };
        let seq = serde_json::from_str::<Seq>(&rec.doc)?.seq;
        let subscription = self.hub.subscribe_after(id, seq);
        // Rows committed between the read and the subscription were notified while nobody
        // here followed the Session: read them now.
        self.catch_up(id).await;
        Ok(subscription)
    }

    /// A subscription after a loaded Session's last event (under its lock).
    pub(super) fn subscribe_live(&self, live: &Live) -> Subscription {
        self.hub.subscribe_after(&live.meta.id, live.doc.seq)
    }
}

/// The part of a stored Session document a stream needs.
#[derive(serde::Deserialize)]
struct Seq {
    #[serde(default)]
    seq: u64,
}

/// The next `seq` of `live` for `published`: the event as published and as its row.
fn stamped(live: &mut Live, published: Published) -> (Published, EventRecord) {
    live.doc.seq += 1;
    let seq = live.doc.seq;
    let published = Published {
        seq: Some(seq),
        ..published
    };
    let row = EventRecord {
        session_id: live.meta.id.clone(),
        seq: i64::try_from(seq).unwrap_or(i64::MAX),
        project_id: live.meta.project_id.clone(),
        kind: published.kind.to_string(),
        json: published.json.to_string(),
        created_at: crate::unix_now(),
    };
    (published, row)
}

/// Gives an event its `event_id`, once: every replica streams it with the same one.
pub(super) fn with_event_id(event: &mut Value) {
    if let Some(obj) = event.as_object_mut() {
        obj.insert("event_id".into(), new_event_id());
    }
}

/// A new `event_id`, for an event built as a `Value` or rendered as text.
fn new_event_id() -> Value {
    json!(new_id(IdKind::Event))
}
