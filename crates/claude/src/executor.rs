//! The Claude Code [`SessionExecutor`]: one Session, at most one process, one Turn at a time.
//!
//! The process is started at preparation (so a configuration claude cannot run fails there)
//! and may be evicted whenever no Turn runs; the next Turn then launches a new process with the
//! same flags that resumes the native session ([`crate::resume`]). Turns on a resident process
//! are further `user` lines. The bookkeeping (busy, resident, the hand-back of the process when
//! a Turn settles) is the adapter kit's [`ProcessSlot`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use switchboard_adapter_kit::adapter::Launch;
use switchboard_adapter_kit::executor::{ProcessSlot, SlotGuard};
use switchboard_protocol::{
    AdapterError, ProcessPlacement, SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest,
};
use tokio::sync::mpsc;

use crate::flags::ToolProfile;
use crate::input::user_content;
use crate::inventory::Inventory;
use crate::launch::launch;
use crate::layout::StateLayout;
use crate::mcp::McpPlan;
use crate::resume::{native_session, session_id};
use crate::stream::{Connection, Inbound};
use crate::turn::{self, TurnSetup, stream_error};

struct Inner {
    binary: PathBuf,
    layout: StateLayout,
    config: SessionConfiguration,
    /// Where every launch of the process runs (`None`: `environment: none`).
    placement: Option<ProcessPlacement>,
    /// The Session's MCP servers as the inventory at preparation left them.
    mcp: Arc<McpPlan>,
    /// The built-in tools every native turn must report at its `init`.
    inventory: Arc<Inventory>,
    session_id: String,
    turn_deadline: Duration,
    slot: ProcessSlot<Connection, Inbound>,
}

/// One Session on claude.
pub struct ClaudeExecutor {
    inner: Arc<Inner>,
}

impl ClaudeExecutor {
    /// Prepares the Session: chooses (or reads back) its native id and starts claude.
    pub async fn prepare(launch: Launch) -> Result<Self, AdapterError> {
        let layout = StateLayout::new(launch.state_dir);
        let session_id = session_id(&layout)
            .map_err(|e| AdapterError::Launch(format!("cannot record the session id: {e}")))?;
        let mcp = Arc::new(McpPlan::prepare(&launch.configuration).await?);
        let inventory = Arc::new(Inventory::of(
            &launch.configuration,
            ToolProfile::at(launch.placement.as_ref()),
        ));
        let inner = Arc::new(Inner {
            binary: launch.binary,
            layout,
            mcp,
            inventory,
            config: launch.configuration,
            placement: launch.placement,
            session_id,
            turn_deadline: launch.turn_deadline,
            slot: ProcessSlot::default(),
        });
        inner.ensure_resident(&mut inner.slot.lock().await).await?;
        Ok(ClaudeExecutor { inner })
    }
}

impl Inner {
    async fn ensure_resident(
        &self,
        slot: &mut SlotGuard<'_, Connection, Inbound>,
    ) -> Result<(), AdapterError> {
        // A process that died while idle is replaced now rather than failing the next Turn.
        slot.discard_exited().await;
        if slot.has_process() {
            return Ok(());
        }
        let session = native_session(&self.layout, &self.session_id);
        self.mcp.check_required().await?;
        let process = launch(
            &self.binary,
            &self.layout,
            &self.config,
            self.placement.as_ref(),
            &self.mcp,
            session,
        )
        .await
        .map_err(|e| AdapterError::Launch(e.to_string()))?;
        if let Err(error) = self.mcp.check_required_stdio(&process.connection).await {
            process.shutdown().await;
            return Err(error);
        }
        slot.install(process);
        Ok(())
    }
}

/// Empties what arrived between Turns: late records of the previous Turn (lifecycle reports
/// after its result) are not this Turn's. A function call cannot belong to a Turn that is not
/// running, so it is answered with an error rather than left waiting.
async fn drain_idle(connection: &Connection, inbound: &mut mpsc::UnboundedReceiver<Inbound>) {
    while let Ok(stale) = inbound.try_recv() {
        if let Inbound::Call {
            control_request_id,
            call,
        } = stale
        {
            let reply = json!({"mcp_response": {"jsonrpc": "2.0", "id": call.mcp_id, "result": {
                "content": [{"type": "text", "text": "No Turn is running to answer this call."}],
                "isError": true,
            }}});
            let _ = connection.respond(&control_request_id, reply).await;
        }
    }
}

#[async_trait]
impl SessionExecutor for ClaudeExecutor {
    async fn start_turn(&self, turn: TurnRequest) -> Result<TurnHandle, AdapterError> {
        let inner = &self.inner;
        let content = user_content(&turn.input)?;
        let mut slot = inner.slot.lock().await;
        slot.ensure_idle()?;
        inner.ensure_resident(&mut slot).await?;
        let (connection, mut inbound) = slot.checkout()?;
        drain_idle(&connection, &mut inbound).await;

        let input_uuid = uuid::Uuid::new_v4().to_string();
        if let Err(error) = connection.send_user(&input_uuid, content).await {
            slot.discard().await;
            return Err(stream_error(error));
        }

        Ok(slot.begin_turn(inbound, |io| {
            turn::spawn(TurnSetup {
                connection,
                io,
                input_uuid,
                structured: inner.config.execution_controls.output_format.is_some(),
                mcp_names: Arc::new(inner.mcp.names.clone()),
                inventory: inner.inventory.clone(),
                deadline: inner.turn_deadline,
                config_dir: inner.layout.config_dir(),
            })
        }))
    }

    async fn evict(&self) -> Result<(), AdapterError> {
        self.inner.slot.evict().await
    }

    fn is_resident(&self) -> bool {
        self.inner.slot.is_resident()
    }

    fn native_session_id(&self) -> Option<String> {
        Some(self.inner.session_id.clone())
    }
}
