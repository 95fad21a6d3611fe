//! Session claims across Core replicas (issue 16): which replica holds a loaded Session, the
//! fencing epoch its writes carry, the replicas' registry, and handover.
//!
//! Only PostgreSQL implements [`ClaimStore`] (several `serve` processes on one database); the
//! embedded SQLite store is one process and has no claims (`Store::claims` is `None`), so
//! nothing here runs there.

use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::{Result, SessionRecord};

/// The claim a Session write is made under: the PostgreSQL transaction checks that
/// `replica_id` still holds Session `session_id` with this `epoch`, else the write fails with
/// [`crate::StoreError::Fenced`] and writes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    pub session_id: String,
    pub replica_id: String,
    pub epoch: i64,
}

/// Whose claim row a successful claim replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Previous {
    /// No row: nobody held the Session.
    None,
    /// This replica's own row (it held the Session, or one was handed over to it).
    Own,
    /// Another replica's expired row: that replica is gone or lost its lease.
    Expired,
}

/// What [`ClaimStore::claim`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// The Session is this replica's now, under a new `epoch`.
    Claimed { epoch: i64, previous: Previous },
    /// Another replica holds an unexpired claim.
    Held(ReplicaRecord),
}

/// A live replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaRecord {
    pub id: String,
    /// Its internal base URL (`http://host:port`), where requests for its Sessions go.
    pub address: String,
    /// The Runtime routes its links serve, `deployment/<harness>` or
    /// `environment:<env_id>/<harness>`.
    pub routes: Vec<String>,
}

/// A Session with an unsettled Turn whose claim is absent or expired: its holder died (or
/// never claimed it), and a replica must claim it and settle it as after a restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    pub session_id: String,
    pub project_id: String,
}

/// Claims, the replica registry and handover. Times are the database's clock, lives in
/// milliseconds.
#[async_trait]
pub trait ClaimStore: Send + Sync + 'static {
    /// Registers or renews `replica` for `ttl_ms`, and renews every claim it holds for as long.
    async fn heartbeat(&self, replica: &ReplicaRecord, ttl_ms: i64) -> Result<()>;
    /// Removes the replica's row and its claims (a clean shutdown, after its Turns settled).
    async fn retire(&self, replica_id: &str) -> Result<()>;
    /// The replicas whose heartbeat has not expired, this one included.
    async fn live_replicas(&self) -> Result<Vec<ReplicaRecord>>;
    /// Claims a Session for `replica_id` for `ttl_ms`: inserts the row, or takes over this
    /// replica's own row or an expired one, with the epoch one higher. One conditional upsert,
    /// so of two replicas claiming at once exactly one wins.
    async fn claim(&self, session_id: &str, replica_id: &str, ttl_ms: i64) -> Result<ClaimOutcome>;
    /// Deletes the claim if it is still `fence`'s (a later claim is left alone).
    async fn release(&self, fence: &Fence) -> Result<()>;
    /// The live replica holding an unexpired claim on the Session, if any.
    async fn holder(&self, session_id: &str) -> Result<Option<ReplicaRecord>>;
    /// Moves the claim held under `from` to `to_replica` (epoch + 1) and notifies it, in one
    /// transaction. False when `from` no longer holds it (nothing changes).
    async fn hand_over(&self, from: &Fence, to_replica: &str, ttl_ms: i64) -> Result<bool>;
    /// Sessions with an unsettled Turn and no unexpired claim, oldest first.
    async fn orphans(&self) -> Result<Vec<Orphan>>;
    /// Sessions with an unsettled Turn that `replica_id` holds: a handover whose notification
    /// was missed is found here.
    async fn held_unsettled(&self, replica_id: &str) -> Result<Vec<String>>;
    /// The Session whose claim `replica_id` holds (of any Project): a handover's target loads it.
    async fn claimed_session(
        &self,
        session_id: &str,
        replica_id: &str,
    ) -> Result<Option<SessionRecord>>;
    /// Session IDs handed over to some replica, as they are notified (each replica checks
    /// whether the claim is its own). Re-opened by the caller when the channel ends.
    async fn handovers(&self) -> Result<mpsc::UnboundedReceiver<String>>;
}
