//! Turn dispatch: binding the active Turn to a Runtime, preparing the Session there, starting
//! the Turn; the queue of Turns waiting for a Runtime; and recovery after a restart.

use std::sync::Arc;

use futures::future::BoxFuture;
use switchboard_protocol::messages::{
    ExecutionPrepare, ExecutionStart, PreparationState, PreparationStatus, PromptSteer,
};
use switchboard_protocol::workspace::WorkspacePlacement;
use switchboard_store::StoreError;
use switchboard_wire::ids::{IdKind, new_id};
use tracing::Instrument;

use super::configuration::snapshot;
use super::engine::Engine;
use super::objects::TurnStatus;
use super::runtimes::{PreparationWatch, Route, Unavailable};
use super::state::{ActiveTurn, Effect, Live, Tx};
use crate::environments::EnvironmentStatus;
use crate::sync::lock;

impl Engine {
    pub(super) fn kick_queued(self: &Arc<Self>) {
        let queued = std::mem::take(&mut *lock(&self.queued));
        for id in queued {
            let this = self.clone();
            tokio::spawn(async move { this.drive(id).await });
        }
    }

    /// Starts the Turn that `tx` just opened in the same change, when the Session is a
    /// deployment Session already prepared on a Runtime that still serves it (a later Turn):
    /// the admission, the binding and the start are one commit, with no dispatch task between
    /// them. Anything else (a first Turn, a workspace, a Runtime gone) is left to
    /// [`Self::drive`], which the opening queued.
    pub(super) fn start_prepared(&self, tx: &mut Tx) {
        let live = &tx.live;
        let Some(turn) = live.doc.active.as_ref() else {
            return;
        };
        if turn.started || turn.link.is_some() || live.config.workspace.is_some() {
            return;
        }
        let picked = self.links.pick_on(
            live.config.harness,
            &required_capabilities(live),
            &live.meta.id,
            Route::Deployment,
            None,
        );
        let Some(link) = picked
            .ok()
            .filter(|&l| self.links.is_prepared(l, &live.meta.id))
        else {
            return;
        };
        // The span a dispatch task would have run in, so the Turn's trace is the same.
        dispatch_span(live, turn).in_scope(|| {
            super::turns::bind(tx, link);
            start(tx, link);
        });
        tx.effects.retain(|e| !matches!(e, Effect::Drive));
    }

    /// Moves the active Turn forward: bind it to a Runtime, prepare the Session there if
    /// needed, start the Turn and send the messages that joined it meanwhile.
    ///
    /// Boxed: a commit can start a drive, and a drive commits.
    pub fn drive(self: Arc<Self>, id: String) -> BoxFuture<'static, ()> {
        Box::pin(self.drive_turn(id))
    }

    /// One attempt runs in a `turn.dispatch` span under the Turn's; `execution_start` carries
    /// its `traceparent`, so the Runtime's spans join the Turn's trace.
    async fn drive_turn(self: Arc<Self>, id: String) {
        let span = match self.lock(&id).await {
            Ok(guard) => guard.as_ref().and_then(|live| {
                let turn = live.doc.active.as_ref().filter(|turn| !turn.started)?;
                Some(dispatch_span(live, turn))
            }),
            Err(_) => None,
        };
        let Some(span) = span else { return };
        self.dispatch_turn(id).instrument(span).await
    }

    async fn dispatch_turn(self: Arc<Self>, id: String) {
        let Ok(mut guard) = self.lock(&id).await else {
            return;
        };
        let Some(live) = guard.as_ref() else { return };
        let Some(turn) = &live.doc.active else { return };
        if turn.started {
            return;
        }
        let config = live.config.clone();
        let link = match turn.link {
            Some(link) => link,
            None => {
                let required = required_capabilities(live);
                let workspace = config.workspace.as_ref();
                let route = match workspace {
                    Some(w) if w.placement == WorkspacePlacement::SelfHosted => {
                        Route::Environment(&w.environment_id)
                    }
                    _ => Route::Deployment,
                };
                // A managed workspace lives on the Runtime that made it.
                let host = match workspace {
                    Some(w) if w.placement == WorkspacePlacement::Managed => {
                        self.managed_host(&live.meta.project_id, &w.environment_id)
                            .await
                    }
                    _ => None,
                };
                match self
                    .links
                    .pick_on(config.harness, &required, &id, route, host.as_deref())
                {
                    Ok(link) => {
                        if let Some(w) = workspace.filter(|_| host.is_none())
                            && w.placement == WorkspacePlacement::Managed
                        {
                            self.bind_managed_host(&live.meta.project_id, &w.environment_id, link)
                                .await;
                        }
                        let mut tx = Tx::new(live);
                        super::turns::bind(&mut tx, link);
                        // Already prepared there (a later Turn): bound and started in one
                        // commit, one store write less on the way to the harness.
                        if self.links.is_prepared(link, &id) {
                            start(&mut tx, link);
                            return self.commit_logged(&mut guard, tx).await;
                        }
                        self.commit_logged(&mut guard, tx).await;
                        link
                    }
                    // The harness's install failed everywhere it was advertised: the Turn
                    // cannot start, so it fails (the reason is logged, never shown).
                    Err(Unavailable::Failed(reason)) => {
                        let mut tx = Tx::new(live);
                        super::turns::fail(&mut tx, "harness_unavailable", &reason);
                        return self.commit_logged(&mut guard, tx).await;
                    }
                    // No Runtime here can run it, while another replica's can: that replica
                    // takes the Session (its claim, epoch + 1) and drives the Turn.
                    Err(Unavailable::Harness | Unavailable::Capability(_))
                        if self
                            .hand_over(
                                &mut guard,
                                &super::replica::route_key(route, config.harness.as_str()),
                            )
                            .await =>
                    {
                        return;
                    }
                    // No Runtime yet, or one is installing the harness: wait for a heartbeat.
                    Err(_) => {
                        lock(&self.queued).push(id);
                        return;
                    }
                }
            }
        };
        // The Vault bindings frozen at create; their bearers are opened only into the
        // preparation (never into the Session's state), rechecked each time.
        let (vault_ids, bound, project) = match guard.as_ref() {
            Some(live) => (
                live.doc.vault_ids.clone(),
                live.doc.credentials.clone(),
                live.meta.project_id.clone(),
            ),
            None => return,
        };
        drop(guard);

        if !self.links.is_prepared(link, &id) {
            let mut configuration = (*config).clone();
            if !bound.is_empty() {
                let bearers = super::credentials::resolve_bearers(
                    self.store.as_ref(),
                    &self.secrets,
                    &project,
                    &vault_ids,
                    &bound,
                    crate::unix_now(),
                )
                .await;
                match bearers {
                    Ok(bearers) => {
                        for (label, bearer) in bearers {
                            // An environment-origin server carries it too, and the
                            // Runtime refuses it there: never anonymous instead.
                            if let Some(server) = configuration
                                .mcp_servers
                                .iter_mut()
                                .chain(configuration.mcp_environment_servers.iter_mut())
                                .find(|s| s.server_label == label)
                            {
                                server.bearer = Some(bearer.0);
                            }
                        }
                    }
                    // Never anonymous instead: the work fails with the reason.
                    Err(e) => {
                        return self
                            .fail_unstarted(&id, link, "mcp_credential_unavailable", &e.to_string())
                            .await;
                    }
                }
            }
            let outcome = self.links.expect_preparation(link, &id);
            let prepare = ExecutionPrepare {
                session_id: id.clone(),
                configuration,
            };
            let sent = self
                .links
                .send(link, Some(id.clone()), prepare.into())
                .await;
            let status = match self.preparation_outcome(outcome).await {
                Some(status) if sent => status,
                _ => {
                    return self
                        .fail_unstarted(
                            &id,
                            link,
                            "preparation_timeout",
                            "no answer to execution_prepare",
                        )
                        .await;
                }
            };
            if status.state != PreparationState::Ready {
                let code = status
                    .error_code
                    .unwrap_or_else(|| "preparation_failed".into());
                let message = status.error.unwrap_or_default();
                return self.fail_unstarted(&id, link, &code, &message).await;
            }
            self.links.set_prepared(link, &id, true);
            // A managed workspace is ready once a Runtime prepared it (files written, setup
            // commands run); a self-hosted one is ready when its Runtime advertises.
            if let Some(w) = config
                .workspace
                .as_ref()
                .filter(|w| w.placement == WorkspacePlacement::Managed)
            {
                self.environment_changed(&project, &w.environment_id, EnvironmentStatus::Ready)
                    .await;
            }
        }

        let Ok(mut guard) = self.lock(&id).await else {
            return;
        };
        let Some(live) = guard.as_ref() else { return };
        let mut tx = Tx::new(live);
        let Some(turn) = tx.active() else { return };
        if turn.started || turn.link != Some(link) {
            return;
        }
        start(&mut tx, link);
        self.commit_logged(&mut guard, tx).await;
    }

    /// How a preparation settled; `None` when it took too long or its link was lost. The bound
    /// ([`EngineSettings::preparation_timeout`](super::engine::EngineSettings)) covers the
    /// preparation itself: it restarts at each `preparing`, and while the Runtime reports the
    /// preparation `queued` (waiting for a harness process slot that a running Turn holds) it
    /// waits unbounded, as a queued Turn does: a queued first Turn waits, never fails.
    async fn preparation_outcome(&self, mut watch: PreparationWatch) -> Option<PreparationStatus> {
        let bound = self.settings.preparation_timeout;
        let mut deadline = Some(tokio::time::Instant::now() + bound);
        loop {
            let status = match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, watch.next()).await.ok()?,
                None => watch.next().await,
            }?;
            match status.state {
                PreparationState::Queued => deadline = None,
                PreparationState::Preparing => {
                    deadline = Some(tokio::time::Instant::now() + bound);
                }
                _ => return Some(status),
            }
        }
    }

    /// The deployment Runtime a managed Environment is bound to, if any.
    async fn managed_host(&self, project: &str, environment_id: &str) -> Option<String> {
        match crate::environments::load(self.store.as_ref(), project, environment_id).await {
            Ok(env) => env.doc.runtime_id,
            Err(e) => {
                tracing::warn!(environment = environment_id, error = %e, "cannot read an Environment");
                None
            }
        }
    }

    /// Binds a managed Environment to the Runtime of `link`, its first host.
    pub async fn bind_managed_host(&self, project: &str, environment_id: &str, link: u64) {
        let Some(runtime_id) = self.links.runtime_id(link) else {
            return;
        };
        let Ok(mut env) =
            crate::environments::load(self.store.as_ref(), project, environment_id).await
        else {
            return;
        };
        if env.doc.runtime_id.is_some() {
            return;
        }
        env.doc.runtime_id = Some(runtime_id);
        let stored = match env.record() {
            Ok(rec) => self
                .store
                .put_environment(&rec)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = stored {
            tracing::error!(environment = environment_id, error = %e, "cannot bind an Environment to its Runtime");
        }
    }

    async fn fail_unstarted(self: &Arc<Self>, id: &str, link: u64, code: &str, message: &str) {
        let Ok(mut guard) = self.lock(id).await else {
            return;
        };
        let Some(live) = guard.as_ref() else { return };
        let mut tx = Tx::new(live);
        if tx
            .active()
            .is_some_and(|t| !t.started && t.link == Some(link))
        {
            if code == "sandbox_error" {
                self.environment_failed(&mut tx, message).await;
            }
            super::turns::fail(&mut tx, code, message);
            self.commit_logged(&mut guard, tx).await;
        }
    }

    /// agents-api-wire §11: a workspace that failed to prepare publishes
    /// `environment.failed`, then `error{environment_error, sandbox_error}`; the Turn's
    /// failure then publishes `session.failed`, and new input is refused.
    async fn environment_failed(&self, tx: &mut Tx, message: &str) {
        let Some(w) = tx.live.doc.workspace.clone() else {
            return;
        };
        let error = serde_json::json!({
            "type": "environment_error", "code": "sandbox_error", "message": message,
        });
        let sid = tx.id().to_owned();
        let tid = tx.live.doc.active.as_ref().map(|t| t.turn.id.clone());
        let kind = match w.placement {
            WorkspacePlacement::Managed => "openai_hosted",
            WorkspacePlacement::SelfHosted => "self_hosted",
        };
        tx.publish(super::reservations::environment_event(
            &sid,
            tid.as_deref(),
            &w.environment_id,
            kind,
            EnvironmentStatus::Failed,
            Some(error.clone()),
        ));
        let mut public = error;
        public["param"] = serde_json::Value::Null;
        tx.publish(serde_json::json!({ "type": "error", "session_id": sid, "error": public }));
        tx.live.doc.environment_failed = w.placement == WorkspacePlacement::Managed;
        tx.touch();
        if let Ok(mut env) = crate::environments::load(
            self.store.as_ref(),
            &tx.live.meta.project_id,
            &w.environment_id,
        )
        .await
        {
            env.doc.status = EnvironmentStatus::Failed;
            match env.record() {
                Ok(rec) => tx.write.environment = Some(rec),
                Err(e) => tracing::error!(error = %e, "cannot store an Environment"),
            }
        }
    }

    /// After a restart, no Runtime holds a started Turn any more: those fail without replay;
    /// Turns that never started wait for a Runtime (core-contracts §6.7).
    ///
    /// On replicas, only the Sessions no live replica holds are this one's to settle: the
    /// sweep claims them (the others' Turns are running there).
    pub async fn recover(self: &Arc<Self>) -> Result<(), StoreError> {
        if self.replica().is_some() {
            self.sweep().await;
            return Ok(());
        }
        for rec in self.store.unsettled_sessions().await? {
            let Ok(mut guard) = self.lock_in(&rec.project_id, &rec.id).await else {
                continue;
            };
            self.settle_orphan(&mut guard).await;
        }
        Ok(())
    }
}

/// The capabilities a Runtime needs to run the Session's Turns.
fn required_capabilities(live: &Live) -> Vec<switchboard_harness::Capability> {
    let snap = snapshot(
        &live.doc.agent,
        live.meta.agent_id.clone(),
        live.doc.placement.clone(),
        live.doc.harness,
    );
    switchboard_harness::required_capabilities(&snap)
}

/// The span one attempt to dispatch the Turn runs in, under the Turn's.
fn dispatch_span(live: &Live, turn: &ActiveTurn) -> tracing::Span {
    tracing::info_span!(
        parent: &turn.span,
        "turn.dispatch",
        session.id = %live.meta.id,
        turn.id = %turn.turn.id,
        harness = live.doc.harness.as_str(),
    )
}

/// Starts the bound active Turn on `link`: `execution_start` with its opening message (its
/// `traceparent` from the current span), then the messages that joined it before it started. A
/// Turn cancelled before it started settles as cancelled instead.
fn start(tx: &mut Tx, link: u64) {
    let session_id = tx.id().to_owned();
    let Some(turn) = tx.active() else { return };
    if turn.cancel_requested {
        super::turns::settle(tx, TurnStatus::Cancelled, None);
        return;
    }
    turn.started = true;
    let run_id = turn.run_id.clone();
    let start = ExecutionStart {
        session_id,
        run_id: run_id.clone(),
        turn_id: turn.turn.id.clone(),
        input: turn.start_input.clone(),
        traceparent: switchboard_telemetry::traceparent(&tracing::Span::current()),
    };
    let steers = std::mem::take(&mut turn.pending_steers);
    tx.touch();
    tx.send(link, run_id.clone(), start.into());
    for input in steers {
        let steer = PromptSteer {
            input_id: new_id(IdKind::Item),
            input,
        };
        tx.send(link, run_id.clone(), steer.into());
    }
}
