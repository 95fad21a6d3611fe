//! What the store tells a replica about other replicas' commits (PostgreSQL `LISTEN`).
//!
//! Only PostgreSQL deployments have several replicas; SQLite's store has no notifications
//! ([`crate::Store::listen`] is `None`). A notification says only *that* something changed: the
//! rows in the database stay the source of truth, and a lost connection is reported as
//! [`Notice::Resumed`] once listening again, so the reader re-reads what it may have missed.

use async_trait::async_trait;

/// The channel a Session write notifies, with the Session's ID as the payload (`deleted ` and
/// the ID when the Session was deleted).
pub const EVENTS_CHANNEL: &str = "switchboard_events";
/// The channel every key and Project change notifies, with the new keys epoch as the payload.
pub const KEYS_CHANNEL: &str = "switchboard_keys";

/// One notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A committed write of this Session added event rows.
    Events(String),
    /// This Session was deleted: its streams end.
    Deleted(String),
    /// Keys or Projects changed.
    Keys,
    /// Listening (again) after a start or a lost connection: notifications sent meanwhile are
    /// gone, so everything a reader follows must be re-read from the rows.
    Resumed,
}

/// A replica's one listening connection.
#[async_trait]
pub trait Notifications: Send {
    /// The next notification; reconnects by itself (then [`Notice::Resumed`]).
    async fn next(&mut self) -> Notice;
}
