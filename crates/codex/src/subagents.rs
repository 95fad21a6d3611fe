//! Codex's native multi-agent feature, observed (core-contracts §3.5; issue 15's facts on
//! codex 0.171.0).
//!
//! With `features.multi_agent` on, the root's model coordinates children with the
//! `multi_agent_v1` tools, which the app-server reports as `collabAgentToolCall` items of the
//! root Turn (`spawnAgent`, `sendInput`, `wait`, `closeAgent`, …). Each child is a thread of its
//! own on the same connection: its `thread/started` names the parent (`parentThreadId`) and a
//! nickname, and its Turns and items arrive as notifications carrying the child's `threadId`.
//! A child's call of a Session function is an `item/tool/call` request of the child's thread
//! and Turn; it is answered through the root Turn's call table, so the root Run's
//! `TurnControl` takes its result.
//!
//! Children are known by their thread ids; what a child does is reported as
//! [`SubagentEvent`]s, and the root's coordination calls as [`CoordinationCall`]s.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::subagents::{
    ChildItem, ChildMessage, Coordination, CoordinationCall, CoordinationStatus, SubagentEvent,
    SubagentFunctionCall, SubagentState, SubagentStatus, SubagentTurn, SubagentTurnStatus,
};

use crate::dynamic_tools::ToolCallRequest;
use crate::events::{completed_observation, item_type};

/// The children of one root thread seen in this Turn, and the calls they made.
pub struct Children {
    root_thread: String,
    threads: HashSet<String>,
    /// A child's pending function calls: thread id → JSON-RPC request ids.
    calls: HashMap<String, Vec<Value>>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn push(out: &mut Vec<AdapterEvent>, event: SubagentEvent) {
    out.push(AdapterEvent::Subagent(event));
}

impl Children {
    pub fn new(root_thread: &str) -> Self {
        Children {
            root_thread: root_thread.to_owned(),
            threads: HashSet::new(),
            calls: HashMap::new(),
        }
    }

    pub fn is_child(&self, thread_id: &str) -> bool {
        self.threads.contains(thread_id)
    }

    /// The native parent of a thread: null for the root.
    fn parent(&self, thread: &str) -> Option<String> {
        (thread != self.root_thread).then(|| thread.to_owned())
    }

    fn known(&self, thread: &str) -> bool {
        thread == self.root_thread || self.threads.contains(thread)
    }

    /// Opens a child (first sight), with what is known of it.
    fn open(
        &mut self,
        thread: &str,
        parent: Option<String>,
        name: Option<String>,
        instructions: Option<String>,
        out: &mut Vec<AdapterEvent>,
    ) {
        self.threads.insert(thread.to_owned());
        push(
            out,
            SubagentEvent::Status(SubagentStatus {
                subagent_id: thread.to_owned(),
                parent_id: parent,
                name,
                instructions,
                state: SubagentState::Active,
            }),
        );
    }

    fn state(&self, thread: &str, state: SubagentState, out: &mut Vec<AdapterEvent>) {
        push(
            out,
            SubagentEvent::Status(SubagentStatus {
                subagent_id: thread.to_owned(),
                parent_id: None,
                name: None,
                instructions: None,
                state,
            }),
        );
    }

    /// `thread/started` of a thread spawned by one we know: a child opens.
    pub fn thread_started(&mut self, params: &Value, out: &mut Vec<AdapterEvent>) {
        let Some(thread) = params.get("thread") else {
            return;
        };
        let (Some(id), Some(parent)) = (text(thread, "id"), text(thread, "parentThreadId")) else {
            return;
        };
        if !self.known(&parent) {
            return;
        }
        let parent = self.parent(&parent);
        self.open(&id, parent, text(thread, "agentNickname"), None, out);
    }

    /// A `collabAgentToolCall` item of the root Turn, started or completed: the coordination
    /// Item, and the children it opens or closes. Returns the calls to abandon (closed or
    /// interrupted children's pending requests).
    pub fn collab(&mut self, item: &Value, out: &mut Vec<AdapterEvent>) -> Vec<Value> {
        let Some(id) = text(item, "id") else {
            return Vec::new();
        };
        let sender = text(item, "senderThreadId").unwrap_or_else(|| self.root_thread.clone());
        let receivers: Vec<String> = item
            .get("receiverThreadIds")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let first = receivers.first().cloned();
        let prompt = text(item, "prompt").unwrap_or_default();
        let status = match item.get("status").and_then(Value::as_str) {
            Some("inProgress") => CoordinationStatus::InProgress,
            Some("completed") => CoordinationStatus::Completed,
            _ => CoordinationStatus::Failed,
        };
        let done = status != CoordinationStatus::InProgress;
        let tool = item.get("tool").and_then(Value::as_str).unwrap_or_default();
        let mut abandoned = Vec::new();
        let call = match tool {
            "spawnAgent" => {
                if done {
                    for r in &receivers {
                        if !self.threads.contains(r) {
                            let parent = self.parent(&sender);
                            self.open(r, parent, None, Some(prompt.clone()), out);
                        } else {
                            // Known from its thread/started: the spawn message is its task.
                            push(
                                out,
                                SubagentEvent::Status(SubagentStatus {
                                    subagent_id: r.clone(),
                                    parent_id: self.parent(&sender),
                                    name: None,
                                    instructions: Some(prompt.clone()),
                                    state: SubagentState::Active,
                                }),
                            );
                        }
                    }
                }
                Coordination::CreateSubagent {
                    agent_id: first,
                    content: prompt,
                    model: text(item, "model"),
                    reasoning_effort: text(item, "reasoningEffort"),
                }
            }
            "sendInput" | "sendMessage" | "followupTask" => match first {
                Some(recipient_id) => Coordination::SendSubagentInput {
                    recipient_id,
                    content: prompt,
                },
                None => return abandoned,
            },
            "resumeAgent" => match first {
                Some(recipient_id) => {
                    if done && status == CoordinationStatus::Completed {
                        self.threads.insert(recipient_id.clone());
                        self.state(&recipient_id, SubagentState::Active, out);
                    }
                    Coordination::ResumeSubagent { recipient_id }
                }
                None => return abandoned,
            },
            "closeAgent" | "interruptAgent" => match first {
                Some(recipient_id) => {
                    if done {
                        abandoned.extend(self.calls.remove(&recipient_id).unwrap_or_default());
                    }
                    if tool == "closeAgent" {
                        if done && status == CoordinationStatus::Completed {
                            self.state(&recipient_id, SubagentState::Closed, out);
                        }
                        Coordination::CloseSubagent { recipient_id }
                    } else {
                        Coordination::InterruptSubagent { recipient_id }
                    }
                }
                None => return abandoned,
            },
            "wait" => Coordination::WaitForSubagents {
                recipient_ids: receivers,
            },
            // `listAgents` changes nothing and has no Item.
            _ => return abandoned,
        };
        push(
            out,
            SubagentEvent::Coordination(CoordinationCall {
                item_id: id,
                sender_id: self.parent(&sender),
                status,
                call,
            }),
        );
        abandoned
    }

    /// The threads a completed `spawnAgent` opened.
    pub fn spawned(item: &Value) -> Vec<String> {
        let completed = item.get("tool").and_then(Value::as_str) == Some("spawnAgent")
            && item.get("status").and_then(Value::as_str) == Some("completed");
        if !completed {
            return Vec::new();
        }
        item.get("receiverThreadIds")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A child's name, learnt after it opened.
    pub fn named(&self, thread: &str, name: String, out: &mut Vec<AdapterEvent>) {
        push(
            out,
            SubagentEvent::Status(SubagentStatus {
                subagent_id: thread.to_owned(),
                parent_id: None,
                name: Some(name),
                instructions: None,
                state: SubagentState::Active,
            }),
        );
    }

    /// A child's `item/tool/call`: a call of the root Turn, made by the child.
    pub fn function_call(
        &mut self,
        call: ToolCallRequest,
        request_id: Value,
        out: &mut Vec<AdapterEvent>,
    ) {
        self.calls
            .entry(call.thread_id.clone())
            .or_default()
            .push(request_id);
        push(
            out,
            SubagentEvent::FunctionCall(SubagentFunctionCall {
                subagent_id: call.thread_id,
                turn_id: call.turn_id,
                call_id: call.call_id,
                name: call.tool,
                arguments: call.arguments,
            }),
        );
    }

    /// A notification of a child's thread: its Turns and finished items.
    pub fn notification(&mut self, method: &str, params: &Value, out: &mut Vec<AdapterEvent>) {
        let Some(thread) = text(params, "threadId") else {
            return;
        };
        match method {
            "turn/started" | "turn/completed" => {
                let Some(turn) = params.get("turn") else {
                    return;
                };
                let Some(turn_id) = text(turn, "id") else {
                    return;
                };
                let status = match (method, turn.get("status").and_then(Value::as_str)) {
                    ("turn/started", _) => SubagentTurnStatus::InProgress,
                    (_, Some("completed")) => SubagentTurnStatus::Completed,
                    (_, Some("interrupted")) => SubagentTurnStatus::Cancelled,
                    _ => SubagentTurnStatus::Failed,
                };
                push(
                    out,
                    SubagentEvent::Turn(SubagentTurn {
                        subagent_id: thread,
                        turn_id,
                        status,
                    }),
                );
            }
            "item/completed" => {
                let (Some(turn_id), Some(item)) = (text(params, "turnId"), params.get("item"))
                else {
                    return;
                };
                if let Some(item) = child_item(item) {
                    push(
                        out,
                        SubagentEvent::Item(switchboard_protocol::subagents::SubagentItem {
                            subagent_id: thread,
                            turn_id,
                            item,
                        }),
                    );
                }
            }
            _ => {}
        }
    }

    /// The child's call was answered or dropped: no longer pending.
    pub fn forget_call(&mut self, request_id: &Value) {
        for ids in self.calls.values_mut() {
            ids.retain(|r| r != request_id);
        }
    }
}

/// A finished child item as a Subagent Item; `None` for what has no public Item.
fn child_item(item: &Value) -> Option<ChildItem> {
    let id = text(item, "id")?;
    match item_type(item)? {
        "userMessage" => {
            let text = item
                .get("content")
                .and_then(Value::as_array)
                .map(|parts| {
                    parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            Some(ChildItem::UserMessage(ChildMessage { item_id: id, text }))
        }
        "agentMessage" => Some(ChildItem::AssistantMessage(ChildMessage {
            item_id: id,
            text: text(item, "text").unwrap_or_default(),
        })),
        _ => match completed_observation(item)? {
            AdapterEvent::Reasoning { item_id, text } => Some(ChildItem::Reasoning(
                switchboard_protocol::messages::Reasoning { item_id, text },
            )),
            AdapterEvent::CommandExecution {
                item_id,
                command,
                status,
                exit_code,
                output,
                cwd,
                duration_ms,
            } => Some(ChildItem::CommandExecution(
                switchboard_protocol::messages::CommandExecution {
                    item_id,
                    command,
                    status,
                    exit_code,
                    output,
                    cwd,
                    duration_ms,
                },
            )),
            AdapterEvent::WebSearchCall {
                item_id,
                status,
                action,
            } => Some(ChildItem::WebSearchCall(
                switchboard_protocol::messages::WebSearchCall {
                    item_id,
                    status,
                    action,
                },
            )),
            AdapterEvent::McpCall(call) => Some(ChildItem::McpCall(call)),
            _ => None,
        },
    }
}
