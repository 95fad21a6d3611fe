//! Core against a scripted Runtime peer.
//!
//! These tests drive Core's side of the Core–Runtime protocol directly: the test holds the
//! Runtime end of a link and answers frames by hand. They cover what no pinned harness can be
//! made to do on demand (abandon a call, refuse a receipt, lose its link at an exact moment).
//! Everything a real harness does is tested against the real binaries in the SDK suite.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_core::secrets::SecretBox;
use switchboard_core::{AppState, CoreConfig, auth, router};
use switchboard_execution::{HarnessId, ModelProvider, ProviderProtocol};
use switchboard_protocol::capabilities::{Capabilities, HarnessAdvertisement, HarnessState};
use switchboard_protocol::configuration::HarnessId as WireHarness;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{
    Done, FunctionResult, Heartbeat, PreparationState, PreparationStatus, TurnOutcome,
};
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use switchboard_store::SqliteStore;
use tokio::sync::mpsc;

pub const KEY: &str = "sk-sb-peer-test-key";

pub struct Peer {
    pub base: String,
    pub state: Arc<AppState>,
    pub to_core: mpsc::Sender<Envelope<RuntimeToCore>>,
    pub from_core: mpsc::Receiver<Envelope<CoreToRuntime>>,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
    /// The state and link ends of Cores this peer restarted away from, kept open so that an
    /// old Core never sees its link close and never writes again (see [`Peer::restart_core`]).
    _retired: Vec<Box<dyn std::any::Any + Send>>,
}

/// Every capability on: the peer claims to run anything the codex declaration admits.
fn all_capabilities() -> Capabilities {
    let Value::Object(mut fields) = serde_json::to_value(Capabilities::default()).unwrap() else {
        unreachable!()
    };
    for v in fields.values_mut() {
        *v = json!(true);
    }
    serde_json::from_value(Value::Object(fields)).unwrap()
}

impl Peer {
    /// Core on an ephemeral port with no Runtime connected yet.
    pub async fn core_only() -> (Arc<AppState>, String, tempfile::TempDir) {
        Peer::core_only_with(switchboard_core::state::RESERVATION_DEADLINE).await
    }

    /// [`Peer::core_only`] whose reservations expire after `deadline`.
    pub async fn core_only_with(deadline: Duration) -> (Arc<AppState>, String, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let (state, base) = Peer::core_in_with(dir.path(), deadline).await;
        (state, base, dir)
    }

    /// Core on the store in `dir` (a new one, or the one an earlier Core left) on an ephemeral
    /// port, with no Runtime connected yet.
    async fn core_in(dir: &std::path::Path) -> (Arc<AppState>, String) {
        Peer::core_in_with(dir, switchboard_core::state::RESERVATION_DEADLINE).await
    }

    async fn core_in_with(dir: &std::path::Path, deadline: Duration) -> (Arc<AppState>, String) {
        let preparation = switchboard_core::state::PREPARATION_TIMEOUT;
        Peer::core_in_bounded(dir, deadline, preparation).await
    }

    /// Core with this peer attached and advertising codex, whose bound on a preparation is
    /// `preparation`.
    pub async fn start_with_preparation_timeout(preparation: Duration) -> Peer {
        let dir = tempfile::tempdir().unwrap();
        let deadline = switchboard_core::state::RESERVATION_DEADLINE;
        let (state, base) = Peer::core_in_bounded(dir.path(), deadline, preparation).await;
        let peer = Peer::attach(state, base, dir);
        peer.heartbeat().await;
        peer.wait_ready().await;
        peer
    }

    async fn core_in_bounded(
        dir: &std::path::Path,
        deadline: Duration,
        preparation: Duration,
    ) -> (Arc<AppState>, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let root = format!("http://{}", listener.local_addr().unwrap());
        let store = SqliteStore::open(&dir.join("core.sqlite")).await.unwrap();
        auth::bootstrap(&store, Some(KEY), 0).await.unwrap();
        let provider = ModelProvider {
            protocol: ProviderProtocol::Responses,
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key: "k".into(),
            context_window: None,
            max_output_tokens: None,
        };
        let state = Arc::new(AppState::new(
            Arc::new(store),
            SecretBox::from_key(&[7u8; 32]).unwrap(),
            CoreConfig {
                data_dir: dir.to_owned(),
                default_harness: HarnessId::Codex,
                runtime_token: None,
                public_url: root.clone(),
                reservation_deadline: deadline,
                preparation_timeout: preparation,
            },
            Some(provider),
        ));
        let base = format!("{root}/v1");
        let app = router(state.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (state, base)
    }

    /// Core restarts on the same store: a new Core runs the start-up recovery, and this peer,
    /// as a new Runtime, links to it and advertises. The old Core stays in memory, idle: its
    /// link is kept open, so it never notices the restart.
    pub async fn restart_core(mut self) -> Peer {
        let (state, base) = Peer::core_in(self._dir.path()).await;
        state.engine.recover().await.unwrap();
        let dir = self._dir;
        let mut retired = std::mem::take(&mut self._retired);
        retired.push(Box::new((self.state, self.to_core, self.from_core)));
        let mut peer = Peer::attach(state, base, dir);
        peer._retired = retired;
        peer.heartbeat().await;
        peer.wait_ready().await;
        peer
    }

    /// Core with this peer attached and advertising codex.
    pub async fn start() -> Peer {
        let (state, base, dir) = Peer::core_only().await;
        let peer = Peer::attach(state, base, dir);
        peer.heartbeat().await;
        peer.wait_ready().await;
        peer
    }

    pub fn attach(state: Arc<AppState>, base: String, dir: tempfile::TempDir) -> Peer {
        Peer::attach_as(state, base, dir, None)
    }

    /// A remote Runtime enrolled for the self-hosted Environment `environment` of the first
    /// Project, [`KEY`]'s (not advertising yet).
    pub async fn attach_environment(
        state: Arc<AppState>,
        base: String,
        dir: tempfile::TempDir,
        environment: &str,
    ) -> Peer {
        let project = auth::first_project(state.store.as_ref(), 0).await.unwrap();
        Peer::attach_as(state, base, dir, Some((environment.to_owned(), project)))
    }

    /// The Project of [`KEY`].
    pub async fn project(&self) -> String {
        auth::first_project(self.state.store.as_ref(), 0)
            .await
            .unwrap()
    }

    fn attach_as(
        state: Arc<AppState>,
        base: String,
        dir: tempfile::TempDir,
        environment: Option<(String, String)>,
    ) -> Peer {
        let (to_runtime, from_core) = mpsc::channel(64);
        let (to_core, from_runtime) = mpsc::channel(64);
        let local = environment.is_none();
        state
            .engine
            .attach("peer".into(), local, environment, to_runtime, from_runtime);
        Peer {
            base,
            state,
            to_core,
            from_core,
            http: reqwest::Client::new(),
            _dir: dir,
            _retired: Vec::new(),
        }
    }

    /// The Runtime goes away: its end of the link closes.
    pub fn disconnect(&mut self) {
        self.to_core = mpsc::channel(1).0;
        self.from_core = mpsc::channel(1).1;
    }

    /// A new Runtime link on the same Core (not advertising yet).
    pub fn reconnect(&mut self) {
        let (to_runtime, from_core) = mpsc::channel(64);
        let (to_core, from_runtime) = mpsc::channel(64);
        self.state
            .engine
            .attach("peer".into(), true, None, to_runtime, from_runtime);
        self.to_core = to_core;
        self.from_core = from_core;
    }

    pub async fn ready(&self, session_id: &str) {
        self.preparation(session_id, PreparationState::Ready).await;
    }

    /// Reports the Session's preparation in `state`.
    pub async fn preparation(&self, session_id: &str, state: PreparationState) {
        let status = PreparationStatus {
            session_id: session_id.to_owned(),
            state,
            error_code: None,
            error: None,
        };
        self.to_core
            .send(Envelope::new(Some(session_id.to_owned()), status.into()))
            .await
            .unwrap();
    }

    pub async fn heartbeat(&self) {
        self.heartbeat_state(HarnessState::Available).await;
    }

    /// A heartbeat advertising codex in `state`.
    pub async fn heartbeat_state(&self, state: HarnessState) {
        let beat = Heartbeat {
            supported_harnesses: vec![HarnessAdvertisement::new(
                WireHarness::Codex,
                state,
                Some("0.171.0".into()),
                all_capabilities(),
            )],
        };
        self.to_core
            .send(Envelope::new(None, beat.into()))
            .await
            .unwrap();
    }

    async fn wait_ready(&self) {
        self.until(|| async { self.state.engine.links.local_ready() })
            .await;
    }

    /// Polls a condition with a deadline (a condition, never a fixed sleep).
    pub async fn until<F, Fut>(&self, mut f: F)
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !f().await {
            assert!(
                tokio::time::Instant::now() < deadline,
                "condition not reached in 10 s"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// `GET /readyz`: (status, body).
    pub async fn readyz(&self) -> (u16, Value) {
        let root = self.base.trim_end_matches("/v1");
        let resp = self
            .http
            .get(format!("{root}/readyz"))
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap())
    }

    pub async fn request(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        api(&self.base, method, path, body).await
    }

    pub async fn session(&self, id: &str) -> Value {
        self.request("GET", &format!("/agents/sessions/{id}"), None)
            .await
            .1
    }

    pub async fn until_status(&self, id: &str, status: &str) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let session = self.session(id).await;
            if session["status"] == status {
                return session;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "status {status} not reached: {session}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// The next frame Core sends.
    pub async fn next_frame(&mut self) -> Envelope<CoreToRuntime> {
        tokio::time::timeout(Duration::from_secs(10), self.from_core.recv())
            .await
            .expect("a frame from Core within 10 s")
            .expect("the link is open")
    }

    pub async fn send(&self, run_id: &str, message: RuntimeToCore) {
        self.to_core
            .send(Envelope::new(Some(run_id.to_owned()), message))
            .await
            .unwrap();
    }

    /// Creates a Session with one function and plays the Runtime until the Turn started.
    /// Returns (session_id, run_id, turn_id).
    pub async fn started_turn(&mut self) -> (String, String, String) {
        let (status, session) = self
            .request(
                "POST",
                "/agents/sessions",
                Some(json!({
                    "environment": {"type": "none"},
                    "agent": {"model": "m", "tools": [{
                        "type": "function", "name": "lookup", "description": "d",
                        "parameters": {"type": "object", "properties": {}}
                    }]},
                    "input": "go",
                })),
            )
            .await;
        assert_eq!(status, 201, "{session}");
        let id = session["id"].as_str().unwrap().to_owned();
        let CoreToRuntime::ExecutionPrepare(prepare) = self.next_frame().await.message else {
            panic!("expected execution_prepare first")
        };
        assert_eq!(prepare.session_id, id);
        self.ready(&id).await;
        let CoreToRuntime::ExecutionStart(start) = self.next_frame().await.message else {
            panic!("expected execution_start after ready")
        };
        (id, start.run_id, start.turn_id)
    }

    /// Plays a function call of the running Turn and waits until it is a required action.
    pub async fn call(&mut self, id: &str, run_id: &str, call_id: &str) {
        let call = switchboard_protocol::messages::FunctionCall {
            call_id: call_id.into(),
            name: "lookup".into(),
            arguments: "{}".into(),
        };
        self.send(run_id, call.into()).await;
        self.until_status(id, "requires_action").await;
    }

    /// Posts a user message to the Session: the status and the body.
    pub async fn message(&self, id: &str, text: &str) -> (u16, Value) {
        self.request(
            "POST",
            &format!("/agents/sessions/{id}/events"),
            Some(json!({"events": [{"type": "agent.session.input.message", "input": text}]})),
        )
        .await
    }

    pub async fn tool_result(
        &self,
        id: &str,
        turn_id: &str,
        call_id: &str,
        output: &str,
    ) -> (u16, Value) {
        self.request(
            "POST",
            &format!("/agents/sessions/{id}/events"),
            Some(json!({"events": [{
                "type": "agent.session.input.tool_result",
                "turn_id": turn_id, "call_id": call_id, "success": true, "output": output,
            }]})),
        )
        .await
    }

    /// Ends the Run with `done{outcome}` (no usage).
    pub async fn done(&self, run_id: &str, outcome: TurnOutcome) {
        let done = Done {
            outcome,
            usage: None,
        };
        self.send(run_id, done.into()).await;
    }

    /// Posts a result Core must admit (202) and returns the `function_result` frame it sent.
    pub async fn admitted_result(
        &mut self,
        id: &str,
        turn_id: &str,
        call_id: &str,
        output: &str,
    ) -> FunctionResult {
        let (status, body) = self.tool_result(id, turn_id, call_id, output).await;
        assert_eq!(status, 202, "{body}");
        match self.next_frame().await.message {
            CoreToRuntime::FunctionResult(result) => result,
            other => panic!("expected function_result, got {other:?}"),
        }
    }
}

/// A Project API request with the test key to the Core at `base`: the status and the JSON body
/// (null when empty).
pub async fn api(base: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .request(method.parse().unwrap(), format!("{base}{path}"))
        .header("authorization", format!("Bearer {KEY}"))
        .header("openai-beta", "agents=v1");
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}
