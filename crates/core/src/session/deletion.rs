//! Deleting a Session forgets it everywhere: Core's rows at once, the Runtime's state once the
//! Runtime confirms.
//!
//! `DELETE /v1/agents/sessions/{id}` commits, in one transaction, the removal of every row of
//! the Session (Turns, Items, calls, idempotency records, the Environment it created; its
//! create key stays, naming no Session) and a deletion record that keeps only IDs
//! ([`DeletionRecord`]). The store then leaves none of the deleted content in its files.
//! What the Runtime holds goes next: every Runtime that may run the Session is sent
//! `execution_release` (it ends the process and removes the state directory with the harness
//! home and transcripts), then the managed workspace the Session created is removed. When all
//! of that is confirmed, the deletion record goes too.
//!
//! Against a Runtime that does not answer, a production server must neither hang the caller
//! nor give up on the content: the delete answers after at most [`ANSWER_WITHIN`] (the
//! Session is gone from the API at once: 404 afterwards), the release keeps waiting in the
//! background, and a deletion still unconfirmed is sent again whenever a Runtime that may hold
//! it connects (a restarted Core resends at its Runtimes' first connection). So the state is
//! removed by the next Runtime of the Session's placement that answers. Exceptions, by design:
//! a self-hosted Session's Environment is deleted with it, so its enrolled Runtime, if it is
//! not connected at the delete, can never connect again and is never told; its record is
//! dropped and the state stays on that machine (the user's, as the workspace directory is).
//! A deployment Runtime that never connects again keeps its state too.

use std::sync::Arc;
use std::time::Duration;

use switchboard_protocol::messages::ExecutionRelease;
use switchboard_store::DeletionRecord;

use super::engine::Engine;
use super::runtimes::Route;

/// How long a delete waits for the Runtime before it answers; the rest finishes in the
/// background.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(3);

/// How long a Runtime may take to confirm one release in the background.
const RELEASE_TIMEOUT: Duration = Duration::from_secs(10);

fn route(d: &DeletionRecord) -> Route<'_> {
    match &d.environment_id {
        Some(env) => Route::Environment(env),
        None => Route::Deployment,
    }
}

impl Engine {
    /// Finishes a committed deletion on the Runtimes, waiting at most [`ANSWER_WITHIN`].
    pub async fn forget_on_runtimes(self: &Arc<Self>, deletion: DeletionRecord) {
        let this = self.clone();
        let id = deletion.session_id.clone();
        let finishing = tokio::spawn(async move { this.finish_deletion(&deletion).await });
        if tokio::time::timeout(ANSWER_WITHIN, finishing)
            .await
            .is_err()
        {
            tracing::warn!(session = %id, "delete answered before the Runtime confirmed; it finishes in the background");
        }
    }

    /// A link connected: every unconfirmed deletion it may hold is sent to it again.
    pub fn resume_deletions(self: &Arc<Self>, link: u64) {
        let this = self.clone();
        tokio::spawn(async move {
            let pending = match this.store.pending_deletions().await {
                Ok(pending) => pending,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read unconfirmed deletions");
                    return;
                }
            };
            for d in pending
                .iter()
                .filter(|d| this.links.link_serves(link, route(d)))
            {
                this.finish_deletion(d).await;
            }
        });
    }

    /// Releases the Session on every link of its placement, then removes its managed workspace;
    /// drops the deletion record once all of it is confirmed.
    async fn finish_deletion(self: &Arc<Self>, d: &DeletionRecord) {
        let links = self.links.serving(route(d));
        let mut confirmed = !links.is_empty();
        for link in links {
            confirmed &= self.release_on(link, &d.session_id).await;
        }
        if let Some(workspace) = d.workspace_id.as_deref().filter(|_| confirmed) {
            confirmed = crate::environments::files::remove_managed(
                self,
                workspace,
                d.workspace_runtime.as_deref(),
            )
            .await;
        }
        // A self-hosted Environment that went with its Session: its Runtime can never connect
        // again.
        let unreachable = !confirmed
            && self
                .environment_gone(&d.project_id, d.environment_id.as_deref())
                .await;
        if unreachable {
            tracing::warn!(session = %d.session_id, "the self-hosted Runtime was not connected at the delete: its state stays on that machine");
        }
        if (confirmed || unreachable)
            && let Err(e) = self.store.finish_deletion(&d.session_id).await
        {
            tracing::warn!(session = %d.session_id, error = %e, "cannot drop a confirmed deletion");
        }
    }

    async fn environment_gone(&self, project: &str, environment_id: Option<&str>) -> bool {
        match environment_id {
            Some(env) => matches!(self.store.get_environment(project, env).await, Ok(None)),
            None => false,
        }
    }

    /// Asks one link to release the Session and waits (bounded) until it has ended the
    /// Session's process and removed its state, so that what comes next (removing its
    /// workspace) never races a harness still running in it. Whether it confirmed.
    async fn release_on(&self, link: u64, id: &str) -> bool {
        self.links.set_prepared(link, id, false);
        let released = self.links.expect_preparation(link, id);
        let release = ExecutionRelease {
            session_id: id.to_owned(),
        };
        if !self
            .links
            .send(link, Some(id.to_owned()), release.into())
            .await
        {
            return false;
        }
        match tokio::time::timeout(RELEASE_TIMEOUT, released.settled()).await {
            Ok(Some(_)) => true,
            _ => {
                tracing::warn!(session = %id, link, "release unconfirmed");
                false
            }
        }
    }
}
