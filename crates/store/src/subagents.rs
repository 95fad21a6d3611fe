//! Subagent records: a multi-agent Session's children, their Turns and their Items, kept apart
//! from the root's Turns and Items (a Session's own lists never show them). Written in the
//! Session's [`crate::SessionWrite`], so a child Item and the root's change that observed it
//! land together.

use async_trait::async_trait;

use crate::{Page, PageQuery, Result};

/// A Subagent, ordered by first observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentRecord {
    pub id: String,
    pub session_id: String,
    pub doc: String,
}

/// A child Turn of one Subagent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildTurnRecord {
    pub id: String,
    pub session_id: String,
    pub subagent_id: String,
    pub doc: String,
}

/// An Item of a child Turn; an upsert keeps its first position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildItemRecord {
    pub id: String,
    pub session_id: String,
    pub subagent_id: String,
    pub turn_id: String,
    pub doc: String,
}

/// Reads of a Session's Subagents. Every read is scoped to the Project, the Session (and the
/// Subagent): an ID of another Project, Session or Subagent is absent.
#[async_trait]
pub trait SubagentStore: Send + Sync {
    async fn get_subagent(
        &self,
        project: &str,
        session_id: &str,
        id: &str,
    ) -> Result<Option<SubagentRecord>>;
    async fn list_subagents(
        &self,
        project: &str,
        session_id: &str,
        q: &PageQuery,
    ) -> Result<Page<SubagentRecord>>;
    async fn get_child_turn(
        &self,
        project: &str,
        session_id: &str,
        subagent_id: &str,
        turn_id: &str,
    ) -> Result<Option<ChildTurnRecord>>;
    async fn list_child_turns(
        &self,
        project: &str,
        session_id: &str,
        subagent_id: &str,
        q: &PageQuery,
    ) -> Result<Page<ChildTurnRecord>>;
    /// Items of a Subagent, or of one of its Turns.
    async fn list_child_items(
        &self,
        project: &str,
        session_id: &str,
        subagent_id: &str,
        turn_id: Option<&str>,
        q: &PageQuery,
    ) -> Result<Page<ChildItemRecord>>;
}
