//! Opening the Session's codex thread: `thread/start` the first time, `thread/resume` after.
//!
//! Codex persists a thread in its rollout under `CODEX_HOME/sessions/`, including the dynamic
//! tools, instructions, model and sandbox it was started with. So an evicted Session needs only
//! its thread id and the same launch overrides (the provider is not in the rollout) to come
//! back: `thread/resume{threadId, excludeTurns}` restores history and tools, and codex rejects
//! any attempt to change the tool set there, which keeps the Session's functions frozen.
//! `outputSchema` is not part of the thread: the Turn sends it on every `turn/start`.
//!
//! The thread id is also written to the state directory, so a Runtime that restarts can resume a
//! Session it prepared before.

use serde_json::{Value, json};
use switchboard_protocol::{AdapterError, ProcessPlacement, SessionConfiguration};

use crate::dynamic_tools::dynamic_tool_specs;
use crate::jsonrpc::{Connection, RpcError};
use crate::launch::{CONTROL_TIMEOUT, StateLayout, THREAD_ID_FILE};
use crate::turn::rpc_error;
use crate::workspace::place_params;

/// `thread/start` parameters for a new Session thread: the place ([`place_params`]: the
/// working directory, codex's sandbox and approvals), the model and the frozen tools.
pub fn thread_start_params(
    config: &SessionConfiguration,
    layout: &StateLayout,
    placement: Option<&ProcessPlacement>,
) -> Value {
    let mut params = place_params(layout, placement);
    params["model"] = json!(config.model);
    // The rollout must persist: resume after eviction reads it.
    params["ephemeral"] = json!(false);
    params["dynamicTools"] = dynamic_tool_specs(&config.function_tools);
    if let Some(instructions) = &config.instructions {
        // Developer instructions sit beside codex's own base instructions, which stay in place.
        params["developerInstructions"] = Value::String(instructions.clone());
    }
    params
}

/// `thread/resume` parameters. On a workspace the place is sent again, so a cold resume
/// works in the same directory under the same sandbox as the start.
pub fn thread_resume_params(
    thread_id: &str,
    layout: &StateLayout,
    placement: Option<&ProcessPlacement>,
) -> Value {
    let mut params = match placement {
        Some(_) => place_params(layout, placement),
        None => json!({}),
    };
    params["threadId"] = json!(thread_id);
    params["excludeTurns"] = json!(true);
    params
}

/// Opens the thread on a fresh process and returns its id.
pub async fn open_thread(
    connection: &Connection,
    config: &SessionConfiguration,
    layout: &StateLayout,
    placement: Option<&ProcessPlacement>,
    known_thread: Option<&str>,
) -> Result<String, AdapterError> {
    let thread_id = match known_thread {
        Some(thread_id) => {
            let params = thread_resume_params(thread_id, layout, placement);
            match connection
                .request("thread/resume", params, CONTROL_TIMEOUT)
                .await
            {
                Ok(result) => thread_id_of(&result).unwrap_or_else(|| thread_id.to_owned()),
                Err(error) if never_ran(&error) => {
                    start_thread(connection, config, layout, placement).await?
                }
                Err(error) => return Err(rpc_error(error)),
            }
        }
        None => start_thread(connection, config, layout, placement).await?,
    };
    Ok(thread_id)
}

/// Codex writes a thread's rollout with its first Turn, so a thread evicted before any Turn
/// (the Runtime evicts idle prepared Sessions to bound its processes) cannot be resumed; it
/// has no history either, so a new thread loses nothing.
fn never_ran(error: &RpcError) -> bool {
    matches!(error, RpcError::Rejected { method, message, .. }
        if method == "thread/resume" && message.contains("no rollout found"))
}

async fn start_thread(
    connection: &Connection,
    config: &SessionConfiguration,
    layout: &StateLayout,
    placement: Option<&ProcessPlacement>,
) -> Result<String, AdapterError> {
    let params = thread_start_params(config, layout, placement);
    let result = connection
        .request("thread/start", params, CONTROL_TIMEOUT)
        .await
        .map_err(rpc_error)?;
    let thread_id = thread_id_of(&result)
        .ok_or_else(|| AdapterError::Launch("thread/start returned no thread id".into()))?;
    save_thread_id(layout, &thread_id)?;
    Ok(thread_id)
}

/// The thread id in a `thread/start` or `thread/resume` answer.
pub(crate) fn thread_id_of(result: &Value) -> Option<String> {
    result
        .pointer("/thread/id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

pub fn load_thread_id(layout: &StateLayout) -> Option<String> {
    layout.read_id(THREAD_ID_FILE)
}

fn save_thread_id(layout: &StateLayout, thread_id: &str) -> Result<(), AdapterError> {
    layout
        .write_id(THREAD_ID_FILE, thread_id)
        .map_err(|e| AdapterError::Launch(format!("cannot record the thread id: {e}")))
}
