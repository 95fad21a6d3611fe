//! The ACP [`SessionExecutor`]: one Session, at most one agent process, one Turn at a time.
//!
//! Preparing starts the Session's `functions` server (when it has functions: on the host's
//! loopback, or on the placement's loopback bridge in a sandbox without network), then the agent:
//! `initialize`, `session/new` with the working directory (the workspace, or the state dir's
//! own on `environment: none`) and the MCP servers, and the model selection when the agent
//! offers it. After an eviction the next Turn starts a new process and reopens the same session
//! with `session/load` when the agent advertised `loadSession` (its history replay is drained,
//! not republished); an agent without it starts a new session, whose history is empty.

use std::path::PathBuf;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_adapter_kit::adapter::Launch;
use switchboard_adapter_kit::cpu::Cpus;
use switchboard_adapter_kit::executor::{ProcessSlot, SlotGuard};
use switchboard_adapter_kit::process::{self, NativeProcess};
use switchboard_adapter_kit::state_dir::StateDir;
use switchboard_adapter_kit::turn::INTERRUPT_GRACE;
use switchboard_protocol::{
    AdapterError, ProcessPlacement, SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest,
};
use tokio::sync::mpsc;

use crate::functions::{CallRoute, FunctionsHost, SERVER_LABEL};
use crate::profile::{Profile, ProviderSetup};
use crate::provider::minimax_model_option;
use crate::rpc::{Connection, Inbound};
use crate::turn::{self, CONTROL_TIMEOUT, TurnStart, rpc_error};

/// The file in the state directory that keeps the agent's session id across evictions.
pub const SESSION_ID_FILE: &str = "acp-session-id";

type AcpProcess = NativeProcess<Connection, Inbound>;

struct Inner {
    profile: Profile,
    binary: PathBuf,
    state: StateDir,
    config: SessionConfiguration,
    placement: Option<ProcessPlacement>,
    turn_deadline: Duration,
    functions: Option<FunctionsHost>,
    route: Arc<CallRoute>,
    slot: ProcessSlot<Connection, Inbound>,
    session_id: StdMutex<Option<String>>,
}

/// One Session on an ACP agent.
pub struct AcpExecutor {
    inner: Arc<Inner>,
}

impl AcpExecutor {
    pub async fn prepare(profile: Profile, launch: Launch) -> Result<Self, AdapterError> {
        let state = StateDir::new(launch.state_dir, "acp");
        let route = Arc::new(CallRoute::default());
        let functions = if launch.configuration.function_tools.is_empty() {
            None
        } else {
            let bridge = launch.placement.as_ref().and_then(|p| p.loopback.as_ref());
            let host =
                FunctionsHost::start(&launch.configuration.function_tools, route.clone(), bridge)
                    .await
                    .map_err(|e| AdapterError::Launch(format!("the functions server: {e}")))?;
            Some(host)
        };
        let session_id = state.read_id(SESSION_ID_FILE);
        let inner = Arc::new(Inner {
            profile,
            binary: launch.binary,
            state,
            config: launch.configuration,
            placement: launch.placement,
            turn_deadline: launch.turn_deadline,
            functions,
            route,
            slot: ProcessSlot::default(),
            session_id: StdMutex::new(session_id),
        });
        inner.ensure_resident(&mut inner.slot.lock().await).await?;
        Ok(AcpExecutor { inner })
    }
}

impl Inner {
    fn session_id(&self) -> Option<String> {
        self.session_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn data_dir(&self) -> PathBuf {
        self.state.join("agent-data")
    }

    /// The working directory as the agent sees it.
    fn cwd(&self) -> PathBuf {
        match &self.placement {
            Some(placement) => placement.work_dir.clone(),
            None => self.state.work_dir(),
        }
    }

    /// `session/new`'s `mcpServers`: `functions` first, then the Session's own HTTP servers.
    fn mcp_servers(&self) -> Value {
        let mut servers: Vec<Value> = self
            .functions
            .iter()
            .map(FunctionsHost::acp_entry)
            .collect();
        servers.extend(self.config.mcp_servers.iter().map(|server| {
            let headers: Vec<Value> = server
                .headers
                .iter()
                .map(|(name, value)| json!({"name": name, "value": value.as_str().unwrap_or("")}))
                .collect();
            json!({"type": "http", "name": server.server_label, "url": server.server_url, "headers": headers})
        }));
        Value::Array(servers)
    }

    fn allowed_servers(&self) -> Vec<String> {
        self.functions
            .iter()
            .map(|_| SERVER_LABEL.to_owned())
            .chain(
                self.config
                    .mcp_servers
                    .iter()
                    .map(|s| s.server_label.clone()),
            )
            .collect()
    }

    async fn ensure_resident(
        &self,
        slot: &mut SlotGuard<'_, Connection, Inbound>,
    ) -> Result<(), AdapterError> {
        if slot.has_process() {
            return Ok(());
        }
        let process = self.launch().await?;
        match self.open_session(&process).await {
            Ok(()) => {
                self.route.set(process.connection.clone());
                slot.install(process);
                Ok(())
            }
            Err(error) => {
                process.shutdown().await;
                Err(error)
            }
        }
    }

    async fn launch(&self) -> Result<AcpProcess, AdapterError> {
        let launch_error = |e: String| AdapterError::Launch(format!("{}: {e}", self.profile.name));
        let data_dir = self.data_dir();
        self.state
            .create_dirs(std::slice::from_ref(&data_dir))
            .map_err(|e| launch_error(e.to_string()))?;
        let setup = ProviderSetup {
            config: &self.config,
            data_dir: &data_dir,
            placement: self.placement.as_ref(),
        };
        let plan = (self.profile.configure)(&setup).map_err(|e| launch_error(e.to_string()))?;
        let spawned = process::spawn(
            &self.binary,
            &self.state,
            self.placement.as_ref(),
            Cpus::Any,
            |c| {
                c.args(&plan.args);
                c.envs(plan.env.iter().map(|(k, v)| (k, v)));
            },
        )
        .map_err(|e| launch_error(e.to_string()))?;
        let (connection, inbound) = Connection::start(spawned.stdin, spawned.stdout);
        Ok(NativeProcess {
            child: spawned.child,
            connection,
            inbound,
        })
    }

    /// `initialize`, then `session/load` of the known session or `session/new`.
    async fn open_session(&self, process: &AcpProcess) -> Result<(), AdapterError> {
        let connection = &process.connection;
        let init = json!({
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
            "clientInfo": {"name": "switchboard", "version": env!("CARGO_PKG_VERSION")},
        });
        let initialized = connection
            .request("initialize", init, CONTROL_TIMEOUT)
            .await
            .map_err(rpc_error)?;
        let can_load = initialized
            .pointer("/agentCapabilities/loadSession")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let cwd = self.cwd().display().to_string();
        let servers = self.mcp_servers();
        let known = self.session_id().filter(|_| can_load);
        let (session_id, opened) = match known {
            Some(session_id) => {
                let params = json!({"sessionId": session_id, "cwd": cwd, "mcpServers": servers});
                let loaded = connection
                    .request("session/load", params, CONTROL_TIMEOUT)
                    .await
                    .map_err(rpc_error)?;
                (session_id, loaded)
            }
            None => {
                let params = json!({"cwd": cwd, "mcpServers": servers});
                let created = connection
                    .request("session/new", params, CONTROL_TIMEOUT)
                    .await
                    .map_err(rpc_error)?;
                let session_id = created
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        AdapterError::Launch("session/new returned no sessionId".into())
                    })?
                    .to_owned();
                (session_id, created)
            }
        };
        self.select_model(connection, &session_id, &opened).await?;
        let _ = self.state.write_id(SESSION_ID_FILE, &session_id);
        *self.session_id.lock().unwrap_or_else(|e| e.into_inner()) = Some(session_id);
        Ok(())
    }

    /// Selects the Session's model when the agent offers it as a `model` config option
    /// (MiniMax Code's custom provider); an agent configured on its command line has none.
    async fn select_model(
        &self,
        connection: &Connection,
        session_id: &str,
        opened: &Value,
    ) -> Result<(), AdapterError> {
        let value = minimax_model_option(&self.config.model);
        let offered = opened
            .get("configOptions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|o| o.get("id").and_then(Value::as_str) == Some("model"))
            .any(|o| o.to_string().contains(&value));
        if !offered {
            return Ok(());
        }
        let params = json!({"sessionId": session_id, "configId": "model", "value": value});
        connection
            .request("session/set_config_option", params, CONTROL_TIMEOUT)
            .await
            .map(|_| ())
            .map_err(rpc_error)
    }
}

/// Drops what the agent sent outside a Turn (a `session/load` replays the history as updates).
fn drain(inbound: &mut mpsc::UnboundedReceiver<Inbound>) {
    while inbound.try_recv().is_ok() {}
}

#[async_trait]
impl SessionExecutor for AcpExecutor {
    async fn start_turn(&self, turn: TurnRequest) -> Result<TurnHandle, AdapterError> {
        let inner = &self.inner;
        let mut slot = inner.slot.lock().await;
        slot.ensure_idle()?;
        slot.discard_exited().await;
        inner.ensure_resident(&mut slot).await?;
        let session_id = inner.session_id().ok_or(AdapterError::Exited)?;
        let (connection, mut inbound) = slot.checkout()?;
        drain(&mut inbound);
        let params = json!({"sessionId": session_id, "prompt": turn::prompt(&turn.input)});
        // The Turn loop keeps the deadline; the request only must not outlive it.
        connection.prompt(params, inner.turn_deadline + INTERRUPT_GRACE * 2);
        let start = TurnStart {
            connection,
            session_id,
            steer_method: inner.profile.steer_method,
            allowed_servers: inner.allowed_servers(),
            native_tools: inner.placement.is_some(),
        };
        let deadline = inner.turn_deadline;
        Ok(slot.begin_turn(inbound, |io| turn::spawn(start, io, deadline)))
    }

    async fn evict(&self) -> Result<(), AdapterError> {
        self.inner.slot.evict().await
    }

    fn is_resident(&self) -> bool {
        self.inner.slot.is_resident()
    }

    fn native_session_id(&self) -> Option<String> {
        self.inner.session_id()
    }
}
