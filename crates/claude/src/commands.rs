//! Native shell commands of a Turn, as `command_execution` observations.
//!
//! On a workspace claude runs commands with its own `Bash` tool: the model's `tool_use` (input
//! `{command, …}`) opens the command, and the `tool_result` claude writes back closes it. The
//! result's text is the command's output. claude marks a command that exited non-zero with
//! `is_error` and a first line `Exit code N`; a result without `is_error` is a command that
//! exited 0. The tool-use id is the item id.

use std::collections::HashMap;

use serde_json::Value;
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::messages::CommandStatus;

/// claude's shell tool.
pub const BASH: &str = "Bash";

/// Commands started and not yet finished: tool-use id → command line.
#[derive(Default)]
pub struct Commands {
    open: HashMap<String, String>,
}

impl Commands {
    /// The blocks of a root `assistant` message.
    pub fn assistant(&mut self, message: &Value, out: &mut Vec<AdapterEvent>) {
        for block in blocks(message.get("content")) {
            let is_bash = block.get("type").and_then(Value::as_str) == Some("tool_use")
                && block.get("name").and_then(Value::as_str) == Some(BASH);
            let Some(id) = block.get("id").and_then(Value::as_str).filter(|_| is_bash) else {
                continue;
            };
            let command = block
                .pointer("/input/command")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            self.open.insert(id.to_owned(), command.clone());
            out.push(AdapterEvent::CommandExecution {
                item_id: id.to_owned(),
                command,
                status: CommandStatus::InProgress,
                exit_code: None,
                output: None,
                cwd: None,
                duration_ms: None,
            });
        }
    }

    /// The content of a root `user` message: the results of `Bash` calls.
    pub fn user(&mut self, content: &[Value], out: &mut Vec<AdapterEvent>) {
        for block in content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        {
            let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
                continue;
            };
            let Some(command) = self.open.remove(id) else {
                continue;
            };
            let output = result_text(block.get("content"));
            let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
            let (status, exit_code) = if failed {
                (CommandStatus::Failed, exit_code(&output))
            } else {
                (CommandStatus::Completed, Some(0))
            };
            out.push(AdapterEvent::CommandExecution {
                item_id: id.to_owned(),
                command,
                status,
                exit_code,
                output: Some(output),
                // claude's shell keeps its own directory (a `cd` persists) and reports neither
                // it nor the duration.
                cwd: None,
                duration_ms: None,
            });
        }
    }
}

fn blocks(content: Option<&Value>) -> &[Value] {
    content.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A tool result's text: the string content, or its text blocks joined with newlines.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `Exit code N` on the first line of a failed command's output.
fn exit_code(output: &str) -> Option<i64> {
    output
        .lines()
        .next()?
        .strip_prefix("Exit code ")?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn command(
        id: &str,
        status: CommandStatus,
        exit: Option<i64>,
        out: Option<&str>,
    ) -> AdapterEvent {
        AdapterEvent::CommandExecution {
            item_id: id.into(),
            command: "echo hi > a.txt".into(),
            status,
            exit_code: exit,
            output: out.map(str::to_owned),
            cwd: None,
            duration_ms: None,
        }
    }

    #[test]
    fn a_bash_call_opens_and_its_result_closes() {
        let mut c = Commands::default();
        let mut out = Vec::new();
        c.assistant(
            &json!({"content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                 "input": {"command": "echo hi > a.txt", "description": "d"}},
                {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}},
                {"type": "tool_use", "id": "toolu_3", "name": "Bash",
                 "input": {"command": "echo hi > a.txt"}}]}),
            &mut out,
        );
        c.user(
            &[
                json!({"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"}),
                json!({"type": "tool_result", "tool_use_id": "toolu_1",
                       "content": [{"type": "text", "text": "done"}]}),
                json!({"type": "tool_result", "tool_use_id": "toolu_3", "is_error": true,
                       "content": "Exit code 2\nno such file"}),
                json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "again"}),
            ],
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                command("toolu_1", CommandStatus::InProgress, None, None),
                command("toolu_3", CommandStatus::InProgress, None, None),
                command("toolu_1", CommandStatus::Completed, Some(0), Some("done")),
                command(
                    "toolu_3",
                    CommandStatus::Failed,
                    Some(2),
                    Some("Exit code 2\nno such file")
                ),
            ]
        );
    }
}
