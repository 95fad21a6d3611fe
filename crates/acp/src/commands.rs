//! The agent's native shell commands as `command_execution` Items: on a workspace placement the
//! agent's own tools run (`crate::turn`), and a tool call of kind `execute` is a command. Its
//! first report opens the Item `in_progress`; the update that completes or fails it closes it.
//! ACP reports no exit code, and no working directory beyond the session's.

use std::collections::HashMap;

use agent_client_protocol::v1::schema::{ToolCall, ToolCallStatus, ToolKind};
use serde_json::Value;
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::messages::CommandStatus;

/// The commands of one Turn still running, by the agent's tool call id.
#[derive(Default)]
pub struct Commands {
    running: HashMap<String, String>,
}

impl Commands {
    /// The agent reported a tool call: a command opens its Item (and closes it when the report
    /// is already final).
    pub fn reported(&mut self, call: &ToolCall, out: &mut Vec<AdapterEvent>) {
        if call.kind != ToolKind::Execute {
            return;
        }
        let id = call.tool_call_id.0.to_string();
        let command = command_of(call.raw_input.as_ref(), &call.title);
        out.push(event(&id, &command, CommandStatus::InProgress, None));
        self.running.insert(id.clone(), command);
        if matches!(
            call.status,
            ToolCallStatus::Completed | ToolCallStatus::Failed
        ) {
            let failed = call.status == ToolCallStatus::Failed;
            self.ended(&id, failed, call.raw_output.as_ref(), out);
        }
    }

    /// A later report of a running command may carry its command line first (claude-agent-acp
    /// opens it titled `Terminal`, with empty input).
    pub fn updated(&mut self, id: &str, raw_input: Option<&Value>, title: Option<&str>) {
        let Some(command) = self.running.get_mut(id) else {
            return;
        };
        let has_command = raw_input.is_some_and(|i| i.get("command").is_some());
        if has_command || title.is_some() {
            *command = command_of(raw_input, title.unwrap_or(command.as_str()));
        }
    }

    /// A tool call ended: a running command's Item closes.
    pub fn ended(
        &mut self,
        id: &str,
        failed: bool,
        raw_output: Option<&Value>,
        out: &mut Vec<AdapterEvent>,
    ) {
        let Some(command) = self.running.remove(id) else {
            return;
        };
        let status = if failed {
            CommandStatus::Failed
        } else {
            CommandStatus::Completed
        };
        out.push(event(id, &command, status, output_of(raw_output)));
    }
}

fn event(id: &str, command: &str, status: CommandStatus, output: Option<String>) -> AdapterEvent {
    AdapterEvent::CommandExecution {
        item_id: id.to_owned(),
        command: command.to_owned(),
        status,
        exit_code: None,
        output,
        cwd: None,
        duration_ms: None,
    }
}

/// The command line: `rawInput.command` as a string (claude-agent-acp) or argv (codex-acp),
/// else the call's title.
fn command_of(raw_input: Option<&Value>, title: &str) -> String {
    match raw_input.and_then(|i| i.get("command")) {
        Some(Value::String(command)) => command.clone(),
        Some(Value::Array(argv)) => argv
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        _ => title.trim_matches('`').to_owned(),
    }
}

/// What the command printed, when the agent reports it as text.
fn output_of(raw_output: Option<&Value>) -> Option<String> {
    match raw_output? {
        Value::String(text) => Some(text.clone()),
        Value::Object(fields) => ["formatted_output", "aggregated_output", "output", "stdout"]
            .iter()
            .find_map(|k| fields.get(*k).and_then(Value::as_str))
            .map(str::to_owned),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_command_is_the_agents_argv_or_string() {
        assert_eq!(
            command_of(Some(&json!({"command": ["bash", "-lc", "pwd"]})), "t"),
            "bash -lc pwd"
        );
        assert_eq!(command_of(Some(&json!({"command": "pwd"})), "t"), "pwd");
        assert_eq!(command_of(None, "`pwd`"), "pwd");
    }
}
