//! Claude Code's native Subagents, observed (core-contracts §3.5; issue 15's facts on claude
//! 2.1.332, read from its stream-json output).
//!
//! A multi-agent Session offers the native `Agent` tool (claude reports it as `Task` in its
//! `init`). With background tasks disabled ([`crate::flags::environment`]) every `Agent` call
//! runs its child inside the call, so the whole child is seen within the root's Turn:
//!
//! - the root's `tool_use` of `Agent` is the coordination call `create_subagent_call`, done at
//!   its `tool_result` (the child's hand-back);
//! - `system/task_started` (`task_type: local_agent`) opens the child: its `task_id` is the
//!   agent id every message of the child carries (`agent_id`), `prompt` its task,
//!   `subagent_type` its name, `parent_task_id` the child that spawned it (nested agents);
//!   the child runs one Turn, named by the `Agent` call's tool-use id;
//! - the child's `user`/`assistant` messages (`agent_id` set) are its Items: the task as a user
//!   message, finished texts and thinking, and its HTTP MCP calls (`mcp_call`);
//! - its calls of Session functions arrive as `tools/call` on the functions server like the
//!   root's; the tool-use id tells whose they are, and a child's is reported as a Subagent
//!   function call (a required action of the root Turn);
//! - `system/task_notification` ends the child's Turn (`completed`, `failed`, `stopped`), and the
//!   child: a finished foreground agent takes no more input (`SendMessage` is withheld), so it
//!   is closed. claude does not stream a foreground child's last message (it becomes the
//!   `Agent` call's result); it is read from the child's transcript, which the notification
//!   names (`output_file`), or, when it is not there (yet), taken from its `summary`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::McpCallStatus;
use switchboard_protocol::messages::Reasoning;
use switchboard_protocol::subagents::{
    ChildItem, ChildMessage, Coordination, CoordinationCall, CoordinationStatus, SubagentEvent,
    SubagentFunctionCall, SubagentItem, SubagentState, SubagentStatus, SubagentTurn,
    SubagentTurnStatus,
};

use crate::events::item_id;
use crate::mcp::McpCalls;

/// The native tool that runs a Subagent, as `--tools` names it.
pub const AGENT_TOOL: &str = "Agent";
/// Its older name, which claude 2.1.332 reports in `init` and may use in `tool_use`.
pub const TASK_TOOL: &str = "Task";

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn push(out: &mut Vec<AdapterEvent>, event: SubagentEvent) {
    out.push(AdapterEvent::Subagent(event));
}

/// A root `Agent` call not finished yet.
struct Spawn {
    prompt: String,
    model: Option<String>,
}

/// The children seen in one Turn.
pub struct Children {
    /// The root's `Agent` calls in flight, by tool-use id.
    spawns: HashMap<String, Spawn>,
    /// A child's agent id → its Turn's native id (the tool-use id of the call that runs it).
    turns: HashMap<String, String>,
    /// Tool uses of children → the agent that made them.
    tool_uses: HashMap<String, String>,
    /// The children's calls of declared MCP servers.
    mcp: McpCalls,
    /// Content blocks seen per Anthropic message id (claude sends a message's blocks one
    /// `assistant` message at a time).
    blocks: HashMap<String, usize>,
    /// `CLAUDE_CONFIG_DIR`, where the children's transcripts are: a transcript is read only
    /// from under it, whatever path a notification names.
    transcripts: PathBuf,
}

impl Children {
    pub fn new(mcp_names: Arc<HashMap<String, (String, String)>>, transcripts: PathBuf) -> Self {
        Children {
            spawns: HashMap::new(),
            turns: HashMap::new(),
            tool_uses: HashMap::new(),
            mcp: McpCalls::new(mcp_names),
            blocks: HashMap::new(),
            transcripts,
        }
    }

    fn is_agent_tool(name: &str) -> bool {
        name == AGENT_TOOL || name == TASK_TOOL
    }

    /// The child that made a tool use, if a child did.
    pub fn caller(&self, tool_use_id: &str) -> Option<&str> {
        self.tool_uses.get(tool_use_id).map(String::as_str)
    }

    /// A child's call of a Session function: a call of the root Turn, made by the child.
    pub fn function_call(
        &self,
        agent: &str,
        call_id: String,
        name: String,
        arguments: String,
        out: &mut Vec<AdapterEvent>,
    ) {
        let turn_id = self.turns.get(agent).cloned().unwrap_or_default();
        push(
            out,
            SubagentEvent::FunctionCall(SubagentFunctionCall {
                subagent_id: agent.to_owned(),
                turn_id,
                call_id,
                name,
                arguments,
            }),
        );
    }

    /// A root `assistant` message: its `Agent` calls start coordination calls.
    pub fn root_assistant(&mut self, message: &Value, out: &mut Vec<AdapterEvent>) {
        for block in message["content"].as_array().into_iter().flatten() {
            let (Some("tool_use"), Some(id), Some(name)) = (
                block["type"].as_str(),
                block["id"].as_str(),
                block["name"].as_str(),
            ) else {
                continue;
            };
            if !Self::is_agent_tool(name) {
                continue;
            }
            let input = &block["input"];
            let spawn = Spawn {
                prompt: text(input, "prompt").unwrap_or_default(),
                model: text(input, "model"),
            };
            coordination(id, &spawn, None, CoordinationStatus::InProgress, out);
            self.spawns.insert(id.to_owned(), spawn);
        }
    }

    /// A root `user` message: the hand-back of an `Agent` call ends its coordination call.
    pub fn root_user(&mut self, blocks: &[Value], out: &mut Vec<AdapterEvent>) {
        for block in blocks.iter().filter(|b| b["type"] == "tool_result") {
            let Some(id) = block["tool_use_id"].as_str() else {
                continue;
            };
            let Some(spawn) = self.spawns.remove(id) else {
                continue;
            };
            let agent = self
                .turns
                .iter()
                .find_map(|(agent, turn)| (turn == id).then(|| agent.clone()));
            let status = if block["is_error"].as_bool() == Some(true) {
                CoordinationStatus::Failed
            } else {
                CoordinationStatus::Completed
            };
            coordination(id, &spawn, agent, status, out);
        }
    }

    /// A `system` message: a child opened or ended.
    pub fn system(&mut self, message: &Value, out: &mut Vec<AdapterEvent>) {
        match message["subtype"].as_str() {
            Some("task_started") if message["task_type"] == "local_agent" => {
                let (Some(agent), Some(turn)) =
                    (text(message, "task_id"), text(message, "tool_use_id"))
                else {
                    return;
                };
                push(
                    out,
                    SubagentEvent::Status(SubagentStatus {
                        subagent_id: agent.clone(),
                        parent_id: text(message, "parent_task_id"),
                        name: text(message, "subagent_type"),
                        instructions: text(message, "prompt"),
                        state: SubagentState::Active,
                    }),
                );
                push(
                    out,
                    SubagentEvent::Turn(SubagentTurn {
                        subagent_id: agent.clone(),
                        turn_id: turn.clone(),
                        status: SubagentTurnStatus::InProgress,
                    }),
                );
                self.turns.insert(agent, turn);
            }
            Some("task_notification") => {
                let Some(agent) = text(message, "task_id") else {
                    return;
                };
                let Some(turn) = self.turns.get(&agent).cloned() else {
                    return;
                };
                self.unstreamed(&agent, &turn, message, out);
                let status = match message["status"].as_str() {
                    Some("completed") => SubagentTurnStatus::Completed,
                    Some("stopped" | "killed" | "cancelled") => SubagentTurnStatus::Cancelled,
                    _ => SubagentTurnStatus::Failed,
                };
                push(
                    out,
                    SubagentEvent::Turn(SubagentTurn {
                        subagent_id: agent.clone(),
                        turn_id: turn,
                        status,
                    }),
                );
                push(
                    out,
                    SubagentEvent::Status(SubagentStatus {
                        subagent_id: agent,
                        parent_id: None,
                        name: None,
                        instructions: None,
                        state: SubagentState::Closed,
                    }),
                );
            }
            _ => {}
        }
    }

    /// The child's assistant texts claude recorded but did not stream (its last message).
    fn unstreamed(&mut self, agent: &str, turn: &str, notice: &Value, out: &mut Vec<AdapterEvent>) {
        let transcript = notice["output_file"]
            .as_str()
            .and_then(|path| self.transcript(path))
            .unwrap_or_default();
        let mut found = false;
        for record in transcript
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|r| r["type"] == "assistant" && r["agentId"] == agent)
        {
            let Some(message_id) = record.pointer("/message/id").and_then(Value::as_str) else {
                continue;
            };
            if self.blocks.contains_key(message_id) {
                continue;
            }
            let blocks = record.pointer("/message/content").and_then(Value::as_array);
            for (index, block) in blocks.into_iter().flatten().enumerate() {
                if let Some(t) = block["text"].as_str().filter(|_| block["type"] == "text") {
                    push_text(
                        agent,
                        turn,
                        item_id(message_id, index as u64),
                        t.to_owned(),
                        out,
                    );
                    found = true;
                }
            }
            self.blocks.insert(message_id.to_owned(), 0);
        }
        // The transcript may not hold the last message yet (claude writes it asynchronously).
        if !found
            && notice["status"] == "completed"
            && let Some(summary) = text(notice, "summary").filter(|s| !s.is_empty())
        {
            push_text(agent, turn, format!("{turn}_answer"), summary, out);
        }
    }

    /// The transcript a notification names (a link into the config directory), if it is there.
    fn transcript(&self, path: &str) -> Option<String> {
        let real = std::fs::canonicalize(path).ok()?;
        let root = std::fs::canonicalize(&self.transcripts).ok()?;
        if !real.starts_with(&root) {
            tracing::warn!(
                path,
                "a Subagent transcript outside the config directory is not read"
            );
            return None;
        }
        std::fs::read_to_string(real).ok()
    }

    /// A message of a child (`agent_id` set): its Items. Returns the tool results in it, for
    /// the receipts of the child's function calls.
    pub fn child_message(&mut self, message: &Value, out: &mut Vec<AdapterEvent>) -> Vec<Value> {
        let Some(agent) = text(message, "agent_id") else {
            return Vec::new();
        };
        let Some(turn) = self.turns.get(&agent).cloned() else {
            return Vec::new();
        };
        let item = |out: &mut Vec<AdapterEvent>, item: ChildItem| {
            push(
                out,
                SubagentEvent::Item(SubagentItem {
                    subagent_id: agent.clone(),
                    turn_id: turn.clone(),
                    item,
                }),
            );
        };
        let body = &message["message"];
        let blocks: Vec<Value> = match &body["content"] {
            Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        match message["type"].as_str() {
            Some("user") => {
                let results: Vec<Value> = blocks
                    .iter()
                    .filter(|b| b["type"] == "tool_result")
                    .cloned()
                    .collect();
                if results.is_empty() {
                    let texts: Vec<&str> =
                        blocks.iter().filter_map(|b| b["text"].as_str()).collect();
                    if let Some(uuid) = text(message, "uuid") {
                        item(
                            out,
                            ChildItem::UserMessage(ChildMessage {
                                item_id: uuid,
                                text: texts.join("\n"),
                            }),
                        );
                    }
                    return results;
                }
                let mut calls = Vec::new();
                self.mcp.user(&results, &mut calls);
                for call in calls {
                    if let AdapterEvent::McpCall(call) = call
                        && call.status != McpCallStatus::InProgress
                    {
                        item(out, ChildItem::McpCall(call));
                    }
                }
                results
            }
            Some("assistant") => {
                let Some(message_id) = body["id"].as_str() else {
                    return Vec::new();
                };
                let mut ignored = Vec::new();
                self.mcp.assistant(body, &mut ignored);
                for block in &blocks {
                    let counter = self.blocks.entry(message_id.to_owned()).or_default();
                    let id = item_id(message_id, *counter as u64);
                    *counter += 1;
                    match block["type"].as_str() {
                        Some("text") => item(
                            out,
                            ChildItem::AssistantMessage(ChildMessage {
                                item_id: id,
                                text: text(block, "text").unwrap_or_default(),
                            }),
                        ),
                        Some("thinking") => {
                            if let Some(t) = text(block, "thinking").filter(|t| !t.is_empty()) {
                                item(
                                    out,
                                    ChildItem::Reasoning(Reasoning {
                                        item_id: id,
                                        text: t,
                                    }),
                                );
                            }
                        }
                        Some("tool_use") => {
                            if let Some(tool_use) = block["id"].as_str() {
                                self.tool_uses.insert(tool_use.to_owned(), agent.clone());
                            }
                        }
                        _ => {}
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}

fn push_text(agent: &str, turn: &str, item_id: String, text: String, out: &mut Vec<AdapterEvent>) {
    push(
        out,
        SubagentEvent::Item(SubagentItem {
            subagent_id: agent.to_owned(),
            turn_id: turn.to_owned(),
            item: ChildItem::AssistantMessage(ChildMessage { item_id, text }),
        }),
    );
}

fn coordination(
    id: &str,
    spawn: &Spawn,
    agent: Option<String>,
    status: CoordinationStatus,
    out: &mut Vec<AdapterEvent>,
) {
    push(
        out,
        SubagentEvent::Coordination(CoordinationCall {
            item_id: id.to_owned(),
            sender_id: None,
            status,
            call: Coordination::CreateSubagent {
                agent_id: agent,
                content: spawn.prompt.clone(),
                model: spawn.model.clone(),
                reasoning_effort: None,
            },
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events(out: Vec<AdapterEvent>) -> Vec<SubagentEvent> {
        out.into_iter()
            .map(|e| match e {
                AdapterEvent::Subagent(s) => s,
                other => panic!("not a Subagent event: {other:?}"),
            })
            .collect()
    }

    /// A foreground child as claude 2.1.332 reported it (trimmed): the root's `Agent` call,
    /// `task_started`, the child's task and its function call, `task_notification`, the
    /// hand-back.
    #[test]
    fn a_foreground_child_is_observed_from_start_to_hand_back() {
        let mut children = Children::new(Arc::new(HashMap::new()), PathBuf::from("/nonexistent"));
        let mut out = Vec::new();
        children.root_assistant(
            &json!({"id": "msg_1", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Agent",
                "input": {"description": "d", "prompt": "CHILD TASK", "subagent_type": "general-purpose"}}]}),
            &mut out,
        );
        children.system(
            &json!({"type": "system", "subtype": "task_started", "task_id": "a1", "tool_use_id": "toolu_1",
                "subagent_type": "general-purpose", "task_type": "local_agent", "prompt": "CHILD TASK"}),
            &mut out,
        );
        let user = json!({"type": "user", "agent_id": "a1", "parent_tool_use_id": "toolu_1", "uuid": "u1",
            "message": {"role": "user", "content": [{"type": "text", "text": "CHILD TASK"}]}});
        assert!(children.child_message(&user, &mut out).is_empty());
        let call = json!({"type": "assistant", "agent_id": "a1", "parent_tool_use_id": "toolu_1",
            "message": {"id": "msg_2", "content": [{"type": "tool_use", "id": "toolu_2",
                "name": "mcp__functions__get_weather", "input": {}}]}});
        children.child_message(&call, &mut out);
        assert_eq!(children.caller("toolu_2"), Some("a1"));
        assert_eq!(children.caller("toolu_1"), None);
        children.function_call(
            "a1",
            "toolu_2".into(),
            "get_weather".into(),
            "{}".into(),
            &mut out,
        );
        // No transcript to read (none under the config directory): the summary is the
        // child's answer.
        children.system(
            &json!({"type": "system", "subtype": "task_notification", "task_id": "a1",
                "tool_use_id": "toolu_1", "status": "completed", "summary": "FINAL",
                "output_file": "/etc/hostname"}),
            &mut out,
        );
        children.root_user(
            &[json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "report"})],
            &mut out,
        );
        let create = |status, agent_id: Option<&str>| {
            SubagentEvent::Coordination(CoordinationCall {
                item_id: "toolu_1".into(),
                sender_id: None,
                status,
                call: Coordination::CreateSubagent {
                    agent_id: agent_id.map(str::to_owned),
                    content: "CHILD TASK".into(),
                    model: None,
                    reasoning_effort: None,
                },
            })
        };
        let status = |state, name: Option<&str>, instructions: Option<&str>| {
            SubagentEvent::Status(SubagentStatus {
                subagent_id: "a1".into(),
                parent_id: None,
                name: name.map(str::to_owned),
                instructions: instructions.map(str::to_owned),
                state,
            })
        };
        let turn = |status| {
            SubagentEvent::Turn(SubagentTurn {
                subagent_id: "a1".into(),
                turn_id: "toolu_1".into(),
                status,
            })
        };
        let item = |item| {
            SubagentEvent::Item(SubagentItem {
                subagent_id: "a1".into(),
                turn_id: "toolu_1".into(),
                item,
            })
        };
        assert_eq!(
            events(out),
            vec![
                create(CoordinationStatus::InProgress, None),
                status(
                    SubagentState::Active,
                    Some("general-purpose"),
                    Some("CHILD TASK")
                ),
                turn(SubagentTurnStatus::InProgress),
                item(ChildItem::UserMessage(ChildMessage {
                    item_id: "u1".into(),
                    text: "CHILD TASK".into()
                })),
                SubagentEvent::FunctionCall(SubagentFunctionCall {
                    subagent_id: "a1".into(),
                    turn_id: "toolu_1".into(),
                    call_id: "toolu_2".into(),
                    name: "get_weather".into(),
                    arguments: "{}".into(),
                }),
                item(ChildItem::AssistantMessage(ChildMessage {
                    item_id: "toolu_1_answer".into(),
                    text: "FINAL".into()
                })),
                turn(SubagentTurnStatus::Completed),
                status(SubagentState::Closed, None, None),
                create(CoordinationStatus::Completed, Some("a1")),
            ]
        );
    }

    /// The child's last message is read from its transcript, through the link claude names,
    /// when the transcript is under the config directory; a message already streamed is not
    /// read twice.
    #[test]
    fn the_unstreamed_answer_comes_from_the_transcript_under_the_config_directory() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("claude-config");
        std::fs::create_dir_all(config.join("subagents")).unwrap();
        let transcript = config.join("subagents/agent-a1.jsonl");
        let record = |id: &str, text: &str| {
            json!({"type": "assistant", "agentId": "a1",
                "message": {"id": id, "content": [{"type": "text", "text": text}]}})
            .to_string()
        };
        std::fs::write(
            &transcript,
            format!(
                "{}\n{}\n",
                record("msg_1", "streamed"),
                record("msg_2", "the answer")
            ),
        )
        .unwrap();
        let link = dir.path().join("a1.output");
        std::os::unix::fs::symlink(&transcript, &link).unwrap();

        let mut children = Children::new(Arc::new(HashMap::new()), config);
        let mut out = Vec::new();
        children.system(
            &json!({"subtype": "task_started", "task_id": "a1", "tool_use_id": "t1",
                "task_type": "local_agent"}),
            &mut out,
        );
        children.child_message(
            &json!({"type": "assistant", "agent_id": "a1",
                "message": {"id": "msg_1", "content": [{"type": "text", "text": "streamed"}]}}),
            &mut out,
        );
        out.clear();
        children.system(
            &json!({"subtype": "task_notification", "task_id": "a1", "status": "completed",
                "summary": "not this", "output_file": link.to_str().unwrap()}),
            &mut out,
        );
        let texts: Vec<(String, String)> = events(out)
            .into_iter()
            .filter_map(|e| match e {
                SubagentEvent::Item(SubagentItem {
                    item: ChildItem::AssistantMessage(m),
                    ..
                }) => Some((m.item_id, m.text)),
                _ => None,
            })
            .collect();
        assert_eq!(texts, vec![("msg_2".to_owned(), "the answer".to_owned())]);
    }
}
