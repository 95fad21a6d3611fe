//! OpenAI Chat Completions (`POST /v1/chat/completions`).
//!
//! Parsing reads `messages` (a `tool` role message is a tool output, an assistant message with
//! `tool_calls` is a tool call), `tools` (`{"type": "function", "function": {...}}`) and
//! `response_format`. Rendering gives a `chat.completion` object, or `chat.completion.chunk`
//! frames (`data:` only) ending in `data: [DONE]`; usage comes in the final chunk when
//! `stream_options.include_usage` asks for it, as the real API does. Ids: `chatcmpl-N`,
//! tool calls `call_N` (suffix `_K` for the K-th further call).

use serde::Serialize;
use serde_json::{Value, json};

use crate::answer::{Answer, Call, id_suffix, split_deltas};
use crate::delivery::Rendered;
use crate::request::{
    AnswerSchema, Item, ItemKind, OfferedTool, Protocol, RequestView, content_text, optional_array,
    require_objects,
};
use crate::sse;
use crate::usage::count_members;

/// Members whose text counts as input tokens.
const PROMPT_MEMBERS: &[&str] = &["messages", "tools"];

pub fn parse(body: &Value) -> Result<RequestView, String> {
    let mut view = RequestView::open(Protocol::Chat, body)?;
    view.include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);

    let messages = match body.get("messages") {
        Some(Value::Array(messages)) => messages,
        Some(_) => return Err("'messages' must be an array".into()),
        None => return Err("missing required parameter: 'messages'".into()),
    };
    require_objects(messages, "messages")?;
    let items: Vec<Item> = messages
        .iter()
        .enumerate()
        .map(|(index, m)| item(m).ok_or_else(|| format!("'messages[{index}].role' is required")))
        .collect::<Result<_, _>>()?;
    let turn_start = items.iter().rposition(|i| i.kind == ItemKind::User);
    view.set_items(&items, turn_start);

    let tools = optional_array(body, "tools")?;
    require_objects(tools, "tools")?;
    view.tools = tools
        .iter()
        .map(|tool| {
            let function = tool.get("function");
            OfferedTool {
                name: function
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                namespace: None,
                deferred: false,
                schema: function.map(|f| {
                    f.get("parameters")
                        .cloned()
                        .unwrap_or_else(|| json!({"type": "object"}))
                }),
            }
        })
        .collect();

    let format = body.get("response_format");
    if format.and_then(|f| f.get("type")).and_then(Value::as_str) == Some("json_schema") {
        view.answer_schema = Some(AnswerSchema {
            schema: format
                .and_then(|f| f.pointer("/json_schema/schema"))
                .cloned()
                .unwrap_or_else(|| json!({})),
            via_tool: None,
        });
    }
    view.input_tokens = count_members(body, PROMPT_MEMBERS);
    Ok(view)
}

fn item(message: &Value) -> Option<Item> {
    let role = message.get("role")?.as_str()?;
    let has_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .is_some_and(|calls| !calls.is_empty());
    let kind = if role == "assistant" && has_calls {
        ItemKind::ToolCall
    } else {
        ItemKind::from_role(role)
    };
    Some(Item {
        kind,
        text: content_text(message.get("content")),
    })
}

/// A content delta chunk, typed because a long answer has many (see `sse`).
#[derive(Serialize)]
struct ContentChunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u32,
    model: &'a str,
    choices: [ContentChoice<'a>; 1],
}

#[derive(Serialize)]
struct ContentChoice<'a> {
    index: u32,
    delta: ContentDelta<'a>,
    /// Always `null`.
    logprobs: Option<()>,
    finish_reason: Option<&'a str>,
}

#[derive(Serialize)]
struct ContentDelta<'a> {
    content: &'a str,
}

/// The completion id for request number `n`.
pub fn completion_id(n: u64) -> String {
    format!("chatcmpl-{n}")
}

pub fn render(answer: &Answer, view: &RequestView, n: u64) -> Rendered {
    let id = completion_id(n);
    let text: String = answer.texts().collect();
    let output_tokens = answer.output_tokens();
    let usage = json!({"prompt_tokens": view.input_tokens, "completion_tokens": output_tokens,
                       "total_tokens": view.input_tokens + output_tokens});
    let finish_reason = if answer.has_calls() {
        "tool_calls"
    } else {
        "stop"
    };
    let calls: Vec<(String, &Call)> = answer
        .calls()
        .enumerate()
        .map(|(index, call)| {
            let id = call.id.clone();
            (
                id.unwrap_or_else(|| format!("call_{n}{}", id_suffix(index))),
                call,
            )
        })
        .collect();

    if !view.stream {
        let mut message = json!({"role": "assistant",
            "content": if text.is_empty() && !calls.is_empty() { Value::Null } else { json!(text) },
            "refusal": null});
        if !calls.is_empty() {
            message["tool_calls"] = calls
                .iter()
                .map(|(id, call)| {
                    json!({"id": id, "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_text()}})
                })
                .collect();
        }
        return Rendered::json(
            &id,
            json!({
                "id": id, "object": "chat.completion", "created": 0, "model": view.model,
                "choices": [{"index": 0, "message": message, "logprobs": null,
                             "finish_reason": finish_reason}],
                "usage": usage,
            }),
        );
    }

    let chunk = |delta: Value, finish: Option<&str>| {
        sse::unnamed(&json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": view.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        }))
    };
    let mut frames = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for content in split_deltas(&text, answer.deltas) {
        frames.push(sse::unnamed(&ContentChunk {
            id: &id,
            object: "chat.completion.chunk",
            created: 0,
            model: &view.model,
            choices: [ContentChoice {
                index: 0,
                delta: ContentDelta { content },
                logprobs: None,
                finish_reason: None,
            }],
        }));
    }
    for (index, (call_id, call)) in calls.iter().enumerate() {
        frames.push(chunk(
            json!({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                   "function": {"name": call.name, "arguments": ""}}]}),
            None,
        ));
        frames.push(chunk(
            json!({"tool_calls": [{"index": index,
                                   "function": {"arguments": call.arguments_text()}}]}),
            None,
        ));
    }
    frames.push(chunk(json!({}), Some(finish_reason)));
    if view.include_usage {
        frames.push(sse::unnamed(&json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": view.model,
            "choices": [], "usage": usage,
        })));
    }
    frames.push(sse::done());
    Rendered::stream(&id, frames)
}
