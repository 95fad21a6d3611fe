//! [`SubagentStore`] on SQLite: the `subagents`, `subagent_turns` and `subagent_items` tables,
//! and the statements a [`crate::SessionWrite`] adds for them.

use async_trait::async_trait;

use super::{Cond, Listing, SqliteStore, of_session};
use crate::rows::{child_item, child_turn, subagent};
use crate::sql;
use crate::subagents::{ChildItemRecord, ChildTurnRecord, SubagentRecord, SubagentStore};
use crate::writer::Bind;
use crate::{Page, PageQuery, Result};

/// One Subagent's rows of a Session.
fn of_subagent(project: &str, session_id: &str, subagent_id: &str) -> Vec<Cond> {
    let mut scope = of_session(project, session_id);
    scope.push(Cond::new(
        "subagent_id = ?",
        [Bind::Text(subagent_id.to_owned())],
    ));
    scope
}

#[async_trait]
impl SubagentStore for SqliteStore {
    async fn get_subagent(
        &self,
        project: &str,
        session_id: &str,
        id: &str,
    ) -> Result<Option<SubagentRecord>> {
        self.one(sql::one::SUBAGENT, &[session_id, id, project], subagent)
            .await
    }

    async fn list_subagents(
        &self,
        project: &str,
        session_id: &str,
        q: &PageQuery,
    ) -> Result<Page<SubagentRecord>> {
        self.page(
            Listing {
                table: "subagents",
                columns: "*",
                scope: of_session(project, session_id),
                filter: vec![],
                row: subagent,
            },
            q,
        )
        .await
    }

    async fn get_child_turn(
        &self,
        project: &str,
        session_id: &str,
        subagent_id: &str,
        turn_id: &str,
    ) -> Result<Option<ChildTurnRecord>> {
        self.one(
            sql::one::CHILD_TURN,
            &[session_id, subagent_id, turn_id, project],
            child_turn,
        )
        .await
    }

    async fn list_child_turns(
        &self,
        project: &str,
        session_id: &str,
        subagent_id: &str,
        q: &PageQuery,
    ) -> Result<Page<ChildTurnRecord>> {
        self.page(
            Listing {
                table: "subagent_turns",
                columns: "*",
                scope: of_subagent(project, session_id, subagent_id),
                filter: vec![],
                row: child_turn,
            },
            q,
        )
        .await
    }

    async fn list_child_items(
        &self,
        project: &str,
        session_id: &str,
        subagent_id: &str,
        turn_id: Option<&str>,
        q: &PageQuery,
    ) -> Result<Page<ChildItemRecord>> {
        let filter = turn_id
            .map(|t| Cond::new("turn_id = ?", [Bind::Text(t.to_owned())]))
            .into_iter()
            .collect();
        self.page(
            Listing {
                table: "subagent_items",
                columns: "*",
                scope: of_subagent(project, session_id, subagent_id),
                filter,
                row: child_item,
            },
            q,
        )
        .await
    }
}
