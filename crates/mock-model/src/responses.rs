//! OpenAI Responses (`POST /v1/responses`), as Codex sends and accepts it (harnesses.md §2.3).
//!
//! Parsing reads `input` (a string or items: messages, `function_call`,
//! `function_call_output` with string or array output), `tools` (functions, and namespaces of
//! functions for MCP tools) and `text.format`. Rendering emits the event sequence the lab probe
//! proved with Codex (`response.created`, `response.output_item.added`,
//! `response.output_text.delta`, `response.output_item.done`, `response.completed` with usage)
//! plus the content-part and arguments events the real API also sends, which Codex ignores and
//! the `openai` SDK's stream accumulator needs. Ids follow the probe: `resp_N`, `msg_resp_N`,
//! `fc_resp_N`, `call_resp_N`, `ws_resp_N` (a suffix `_K` for the K-th further output item).
//! A provider-side search is a `web_search_call` output item with its `search` action.

use bytes::Bytes;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::answer::{Answer, Block, Call, id_suffix, split_deltas};
use crate::delivery::Rendered;
use crate::request::{
    AnswerSchema, Item, ItemKind, OfferedTool, Protocol, RequestView, content_text, is_deferred,
    optional_array, require_objects,
};
use crate::sse;
use crate::usage::count_members;

/// Members whose text counts as input tokens.
const PROMPT_MEMBERS: &[&str] = &["instructions", "input", "tools"];

/// Codex sends its environment description as a user message; it does not open a turn.
const ENVIRONMENT_CONTEXT: &str = "<environment_context>";

pub fn parse(body: &Value) -> Result<RequestView, String> {
    let mut view = RequestView::open(Protocol::Responses, body)?;

    let items: Vec<Item> = match body.get("input") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(text)) => vec![Item {
            kind: ItemKind::User,
            text: text.clone(),
        }],
        Some(Value::Array(items)) => {
            require_objects(items, "input")?;
            items.iter().map(item).collect()
        }
        Some(_) => return Err("'input' must be a string or an array of items".into()),
    };
    let turn_start = items
        .iter()
        .rposition(|i| i.kind == ItemKind::User && !i.text.starts_with(ENVIRONMENT_CONTEXT));
    view.set_items(&items, turn_start);

    let tools = optional_array(body, "tools")?;
    require_objects(tools, "tools")?;
    for tool in tools {
        match tool.get("type").and_then(Value::as_str) {
            Some("namespace") => {
                let namespace = tool.get("name").and_then(Value::as_str).map(str::to_owned);
                for inner in tool
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    view.tools.push(offered(inner, namespace.clone()));
                }
            }
            _ => view.tools.push(offered(tool, None)),
        }
    }

    let format = body.pointer("/text/format");
    if format.and_then(|f| f.get("type")).and_then(Value::as_str) == Some("json_schema") {
        view.answer_schema = Some(AnswerSchema {
            schema: format
                .and_then(|f| f.get("schema"))
                .cloned()
                .unwrap_or_else(|| json!({})),
            via_tool: None,
        });
    }
    view.input_tokens = count_members(body, PROMPT_MEMBERS);
    Ok(view)
}

fn item(value: &Value) -> Item {
    let kind = value.get("type").and_then(Value::as_str);
    match kind {
        Some("message") | None => Item {
            kind: value
                .get("role")
                .and_then(Value::as_str)
                .map_or(ItemKind::Other, ItemKind::from_role),
            text: content_text(value.get("content")),
        },
        Some("function_call" | "custom_tool_call") => Item {
            kind: ItemKind::ToolCall,
            text: value
                .get("arguments")
                .or_else(|| value.get("input"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        },
        // `output` is a string for dynamic tools and exec_command, an array of `input_text`
        // parts for MCP tools (harnesses.md §2.3).
        Some(t) if t.ends_with("_output") => Item {
            kind: ItemKind::ToolOutput,
            text: content_text(value.get("output")),
        },
        Some(_) => Item {
            kind: ItemKind::Other,
            text: String::new(),
        },
    }
}

fn offered(tool: &Value, namespace: Option<String>) -> OfferedTool {
    let is_function = tool.get("type").and_then(Value::as_str) == Some("function");
    OfferedTool {
        name: tool
            .get("name")
            .or_else(|| tool.get("type"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        namespace,
        deferred: is_deferred(tool),
        schema: is_function.then(|| {
            tool.get("parameters")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"}))
        }),
    }
}

/// The response id for request number `n`.
pub fn response_id(n: u64) -> String {
    format!("resp_{n}")
}

pub fn render(answer: &Answer, view: &RequestView, n: u64) -> Rendered {
    let rid = response_id(n);
    let usage = usage(view.input_tokens, answer.output_tokens());
    let output: Vec<Value> = answer
        .blocks
        .iter()
        .enumerate()
        .map(|(index, block)| done_item(&rid, index, block))
        .collect();
    let response = |status: &str, output: Vec<Value>, usage: Option<&Value>| {
        let mut r = json!({
            "id": rid, "object": "response", "created_at": 0, "status": status,
            "error": null, "incomplete_details": null, "model": view.model, "output": output,
        });
        if let Some(usage) = usage {
            r["usage"] = usage.clone();
        }
        r
    };
    if !view.stream {
        return Rendered::json(&rid, response("completed", output, Some(&usage)));
    }

    let mut events = Events::default();
    events.push(
        json!({"type": "response.created", "response": response("in_progress", Vec::new(), None)}),
    );
    for (index, (block, item)) in answer.blocks.iter().zip(&output).enumerate() {
        match block {
            Block::Text(text) => events.text(index, item, text, answer.deltas),
            Block::Call(call) => events.call(index, item, call),
            Block::Search(_) => events.search(index, item),
        }
    }
    events.push(json!({"type": "response.completed", "response": response("completed", output, Some(&usage))}));
    Rendered::stream(&rid, events.frames)
}

fn done_item(rid: &str, index: usize, block: &Block) -> Value {
    match block {
        Block::Text(text) => json!({
            "type": "message", "role": "assistant", "id": format!("msg_{rid}{}", id_suffix(index)),
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }),
        Block::Call(call) => {
            let mut item = json!({
                "type": "function_call", "id": format!("fc_{rid}{}", id_suffix(index)),
                "call_id": call.id.clone().unwrap_or_else(|| format!("call_{rid}{}", id_suffix(index))),
                "name": call.name, "arguments": call.arguments_text(), "status": "completed",
            });
            if let Some(namespace) = &call.namespace {
                item["namespace"] = json!(namespace);
            }
            item
        }
        Block::Search(search) => {
            let mut action = json!({"type": "search", "query": search.query});
            if !search.sources.is_empty() {
                action["sources"] = search
                    .sources
                    .iter()
                    .map(|s| json!({"type": "url", "url": s.url}))
                    .collect();
            }
            json!({
                "type": "web_search_call", "id": format!("ws_{rid}{}", id_suffix(index)),
                "status": "completed", "action": action,
            })
        }
    }
}

fn usage(input: u64, output: u64) -> Value {
    json!({
        "input_tokens": input, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + output,
    })
}

const TEXT_DELTA: &str = "response.output_text.delta";

/// `response.output_text.delta`, typed: a long answer has many, and building each as a
/// `Value` map would make the mock slower than the harness it serves.
#[derive(Serialize)]
struct TextDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    item_id: &'a str,
    output_index: usize,
    content_index: u32,
    delta: &'a str,
    sequence_number: usize,
}

/// Builds the SSE frames, numbering events as the real API does (`sequence_number`).
#[derive(Default)]
struct Events {
    frames: Vec<Bytes>,
}

impl Events {
    fn push(&mut self, mut event: Value) {
        event["sequence_number"] = json!(self.frames.len());
        self.frames.push(sse::event(&event));
    }

    fn text(&mut self, index: usize, item: &Value, text: &str, deltas: u32) {
        let id = &item["id"];
        let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
        self.push(
            json!({"type": "response.output_item.added", "output_index": index,
            "item": in_progress(item, "content", json!([]))}),
        );
        self.push(json!({"type": "response.content_part.added", "item_id": id,
            "output_index": index, "content_index": 0, "part": part("")}));
        let item_id = id.as_str().unwrap_or_default();
        for delta in split_deltas(text, deltas) {
            let event = TextDelta {
                kind: TEXT_DELTA,
                item_id,
                output_index: index,
                content_index: 0,
                delta,
                sequence_number: self.frames.len(),
            };
            self.frames.push(sse::named(TEXT_DELTA, &event));
        }
        self.push(json!({"type": "response.output_text.done", "item_id": id,
            "output_index": index, "content_index": 0, "text": text}));
        self.push(json!({"type": "response.content_part.done", "item_id": id,
            "output_index": index, "content_index": 0, "part": part(text)}));
        self.push(
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }

    fn call(&mut self, index: usize, item: &Value, call: &Call) {
        let id = &item["id"];
        let arguments = call.arguments_text();
        self.push(
            json!({"type": "response.output_item.added", "output_index": index,
            "item": in_progress(item, "arguments", json!(""))}),
        );
        self.push(
            json!({"type": "response.function_call_arguments.delta", "item_id": id,
            "output_index": index, "delta": arguments}),
        );
        self.push(
            json!({"type": "response.function_call_arguments.done", "item_id": id,
            "output_index": index, "arguments": arguments}),
        );
        self.push(
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
}

impl Events {
    /// A provider-side search: the item opens, the real API's progress events, the item closes.
    fn search(&mut self, index: usize, item: &Value) {
        let id = &item["id"];
        let mut opened = item.clone();
        opened["status"] = json!("in_progress");
        self.push(
            json!({"type": "response.output_item.added", "output_index": index, "item": opened}),
        );
        for stage in ["in_progress", "searching", "completed"] {
            self.push(json!({"type": format!("response.web_search_call.{stage}"),
                "item_id": id, "output_index": index}));
        }
        self.push(
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
}

/// The item as `output_item.added` shows it: in progress, with `member` still empty.
fn in_progress(item: &Value, member: &str, empty: Value) -> Value {
    let mut item: Map<String, Value> = item.as_object().cloned().unwrap_or_default();
    item.insert("status".into(), json!("in_progress"));
    item.insert(member.into(), empty);
    Value::Object(item)
}
