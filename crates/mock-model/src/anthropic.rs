//! Anthropic Messages (`POST /v1/messages`), as Claude Code sends and accepts it
//! (harnesses.md §3.4–3.6).
//!
//! Parsing reads `messages` (string or block content; `tool_result` content as a string or as
//! blocks, including `tool_reference` blocks from `ToolSearch`; mid-conversation `system`
//! messages), `tools` (with Claude Code's `StructuredOutput` tool meaning a `--json-schema` run)
//! and `output_format`. Rendering emits `message_start`, `content_block_start|delta|stop`
//! (`text_delta`, `input_json_delta`), `message_delta` and `message_stop`, with the probe's ids:
//! `msg_fake_N`, `toolu_N` and `srvtoolu_N` (suffix `_K` for the K-th further answer block).
//! A provider-side search is a `server_tool_use` block (`web_search`) followed by its
//! `web_search_tool_result`, streamed whole.

use serde::Serialize;
use serde_json::{Value, json};

use crate::answer::{Answer, Block, id_suffix, split_deltas};
use crate::delivery::Rendered;
use crate::request::{
    AnswerSchema, Item, ItemKind, OfferedTool, Protocol, RequestView, ToolOutput, content_text,
    deferred_tool_names, is_deferred, optional_array, require_objects,
};
use crate::sse;
use crate::usage::count_members;

/// Members whose text counts as input tokens.
pub const PROMPT_MEMBERS: &[&str] = &["system", "messages", "tools"];

/// The tool Claude Code offers for `--json-schema`; calling it is the answer (§3.5).
const STRUCTURED_OUTPUT: &str = "StructuredOutput";

pub fn parse(body: &Value) -> Result<RequestView, String> {
    let mut view = RequestView::open(Protocol::Anthropic, body)?;

    let messages = match body.get("messages") {
        Some(Value::Array(messages)) => messages,
        Some(_) => return Err("messages: Input should be a valid list".into()),
        None => return Err("messages: Field required".into()),
    };
    require_objects(messages, "messages")?;
    for (index, message) in messages.iter().enumerate() {
        if !message.get("role").is_some_and(Value::is_string) {
            return Err(format!("messages.{index}.role: Field required"));
        }
        match message.get("content") {
            Some(Value::String(_)) => {}
            Some(Value::Array(blocks)) => require_objects(blocks, "content")?,
            _ => return Err(format!("messages.{index}.content: Field required")),
        }
    }

    // The turn opens at the last user message that is not a tool result.
    let turn_start = messages
        .iter()
        .rposition(|m| role(m) == "user" && tool_results(m).next().is_none());
    if let Some(start) = turn_start {
        view.last_user_text = Some(last_block_item(&messages[start]).text);
    }
    view.turn_outputs = messages[turn_start.map_or(0, |s| s + 1)..]
        .iter()
        .flat_map(tool_results)
        .map(tool_output)
        .collect();
    view.last = messages.last().map(last_item);
    view.deferred_tools = messages
        .iter()
        .flat_map(|m| deferred_tool_names(&content_text(m.get("content"))))
        .collect();

    let tools = optional_array(body, "tools")?;
    require_objects(tools, "tools")?;
    view.tools = tools
        .iter()
        .map(|tool| OfferedTool {
            name: tool
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            namespace: None,
            // Server tools (web search …) have a `type` and no schema: not callable here.
            schema: tool.get("input_schema").cloned(),
            deferred: is_deferred(tool),
        })
        .collect();

    view.answer_schema = match view.find_tool(STRUCTURED_OUTPUT) {
        Some(tool) => Some(AnswerSchema {
            schema: tool.schema.clone().unwrap_or_else(|| json!({})),
            via_tool: Some(STRUCTURED_OUTPUT.into()),
        }),
        None => body
            .get("output_format")
            .or_else(|| body.pointer("/output_config/format"))
            .filter(|f| f.get("type").and_then(Value::as_str) == Some("json_schema"))
            .map(|f| AnswerSchema {
                schema: f.get("schema").cloned().unwrap_or_else(|| json!({})),
                via_tool: None,
            }),
    };
    view.input_tokens = count_members(body, PROMPT_MEMBERS);
    Ok(view)
}

fn role(message: &Value) -> &str {
    message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn tool_results(message: &Value) -> impl Iterator<Item = &Value> {
    blocks(message)
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
}

/// A message's last item: its last tool result if it carries any (Claude Code may append
/// reminder text after them), else its last block.
fn last_item(message: &Value) -> Item {
    match tool_results(message).last() {
        Some(result) => Item {
            kind: ItemKind::ToolOutput,
            text: tool_output(result).text,
        },
        None => last_block_item(message),
    }
}

fn last_block_item(message: &Value) -> Item {
    let kind = ItemKind::from_role(role(message));
    match message.get("content") {
        Some(Value::Array(blocks)) => match blocks.last() {
            Some(block) if block.get("type").and_then(Value::as_str) == Some("tool_use") => Item {
                kind: ItemKind::ToolCall,
                text: block.get("input").map(Value::to_string).unwrap_or_default(),
            },
            Some(block) => Item {
                kind,
                text: block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            },
            None => Item {
                kind,
                text: String::new(),
            },
        },
        content => Item {
            kind,
            text: content_text(content),
        },
    }
}

/// A `tool_result` block's text; `tool_reference` blocks add the referenced tool's name.
fn tool_output(result: &Value) -> ToolOutput {
    let mut output = ToolOutput::default();
    match result.get("content") {
        Some(Value::String(text)) => output.text = text.clone(),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::new();
            for part in parts {
                if part.get("type").and_then(Value::as_str) == Some("tool_reference") {
                    if let Some(name) = part.get("tool_name").and_then(Value::as_str) {
                        output.references.push(name.to_owned());
                        texts.push(name);
                    }
                } else if let Some(text) = part.get("text").and_then(Value::as_str) {
                    texts.push(text);
                }
            }
            output.text = texts.join("\n");
        }
        _ => {}
    }
    output
}

const BLOCK_DELTA: &str = "content_block_delta";

/// A `text_delta` event, typed because a long answer has many (see `sse`).
#[derive(Serialize)]
struct BlockDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    index: usize,
    delta: TextDelta<'a>,
}

#[derive(Serialize)]
struct TextDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// The message id for request number `n`.
pub fn message_id(n: u64) -> String {
    format!("msg_fake_{n}")
}

fn usage(input: u64, output: u64) -> Value {
    json!({"input_tokens": input, "output_tokens": output,
           "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

pub fn render(answer: &Answer, view: &RequestView, n: u64) -> Rendered {
    let id = message_id(n);
    let searches = answer.searches().count();
    let stop_reason = if answer.has_calls() {
        "tool_use"
    } else {
        "end_turn"
    };
    let output_tokens = answer.output_tokens();
    // A search is two blocks (the server tool use and its result), so blocks are numbered
    // as they are laid out.
    let mut content: Vec<Value> = Vec::new();
    // The `input_json_delta` text of each tool-use block, as streamed.
    let mut input_json: Vec<Option<String>> = Vec::new();
    for (index, block) in answer.blocks.iter().enumerate() {
        match block {
            Block::Text(text) => {
                content.push(json!({"type": "text", "text": text}));
                input_json.push(None);
            }
            Block::Call(call) => {
                content.push(json!({
                    "type": "tool_use",
                    "id": call.id.clone().unwrap_or_else(|| format!("toolu_{n}{}", id_suffix(index))),
                    "name": call.name, "input": call.input(),
                }));
                input_json.push(Some(call.arguments_text()));
            }
            Block::Search(search) => {
                let id = format!("srvtoolu_{n}{}", id_suffix(index));
                let input = json!({"query": search.query});
                input_json.push(Some(input.to_string()));
                content.push(json!({"type": "server_tool_use", "id": id,
                    "name": "web_search", "input": input}));
                let results: Vec<Value> = search
                    .sources
                    .iter()
                    .map(|s| {
                        json!({"type": "web_search_result", "url": s.url,
                        "title": s.title.clone().unwrap_or_default(),
                        "encrypted_content": "", "page_age": null})
                    })
                    .collect();
                content.push(json!({"type": "web_search_tool_result", "tool_use_id": id,
                    "content": results}));
                input_json.push(None);
            }
        }
    }
    let usage = |input, output| {
        let mut usage = usage(input, output);
        if searches > 0 {
            usage["server_tool_use"] = json!({"web_search_requests": searches});
        }
        usage
    };
    if !view.stream {
        return Rendered::json(
            &id,
            json!({
                "id": id, "type": "message", "role": "assistant", "model": view.model,
                "content": content, "stop_reason": stop_reason, "stop_sequence": null,
                "usage": usage(view.input_tokens, output_tokens),
            }),
        );
    }

    let mut frames = vec![sse::event(&json!({"type": "message_start", "message": {
        "id": id, "type": "message", "role": "assistant", "model": view.model, "content": [],
        "stop_reason": null, "stop_sequence": null, "usage": usage(view.input_tokens, 1),
    }}))];
    for (index, (done, input_json)) in content.iter().zip(&input_json).enumerate() {
        match done["type"].as_str() {
            Some("text") => {
                let text = done["text"].as_str().unwrap_or_default();
                frames.push(sse::event(
                    &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "text", "text": ""}}),
                ));
                for text in split_deltas(text, answer.deltas) {
                    let event = BlockDelta {
                        kind: BLOCK_DELTA,
                        index,
                        delta: TextDelta {
                            kind: "text_delta",
                            text,
                        },
                    };
                    frames.push(sse::named(BLOCK_DELTA, &event));
                }
            }
            Some(kind @ ("tool_use" | "server_tool_use")) => {
                frames.push(sse::event(&json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": kind, "id": done["id"], "name": done["name"], "input": {}}})));
                frames.push(sse::event(
                    &json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": input_json}}),
                ));
            }
            // A search result arrives whole, as the real API sends it.
            _ => frames.push(sse::event(
                &json!({"type": "content_block_start", "index": index, "content_block": done}),
            )),
        }
        frames.push(sse::event(
            &json!({"type": "content_block_stop", "index": index}),
        ));
    }
    let mut delta_usage = json!({"output_tokens": output_tokens});
    if searches > 0 {
        delta_usage["server_tool_use"] = json!({"web_search_requests": searches});
    }
    frames.push(sse::event(&json!({"type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": delta_usage})));
    frames.push(sse::event(&json!({"type": "message_stop"})));
    Rendered::stream(&id, frames)
}
