//! claude's stream-json output → adapter events, for one Turn.
//!
//! Three pieces of state live here:
//!
//! - **Assistant messages.** With `--include-partial-messages`, text streams as raw Anthropic
//!   events (`stream_event`: `message_start`, `content_block_start`, `text_delta`), and each
//!   finished content block then arrives whole as an `assistant` message. A text block is one
//!   message item, id'd by its Anthropic message id (`<msg id>_b<index>` for a later block of the
//!   same message). Its phase is decided like Codex's: a completed text is held, published as
//!   `commentary` when anything else follows it, or as `final_answer` when the Turn completes
//!   with it last. Messages claude invents (`model: "<synthetic>"`, e.g. an "API Error: …" text)
//!   and Subagent output (`parent_tool_use_id` set) are not the model's answer and are skipped.
//! - **Usage.** Each `result` carries the usage of its native turn, the sum of what the provider
//!   reported for every request of it, side requests included (checked against the mock
//!   model's own counts); the Turn's usage is the sum over its results.
//! - **Failure codes.** A `result` with `is_error` (claude says `subtype: "success"` even for an
//!   API failure) maps onto the protocol's native error codes.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::messages::{MessagePhase, Usage};

/// A `tool_use` block the model produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUse {
    pub id: String,
    pub name: String,
}

/// The assistant messages of a Turn, with phase resolution.
#[derive(Default)]
pub struct Messages {
    /// The Anthropic message being streamed.
    streaming: Option<String>,
    /// Items started from the stream and not completed yet: item id → text so far.
    open: HashMap<String, String>,
    open_order: Vec<String>,
    /// Streamed Anthropic messages the model finished: their `message_delta` carried a
    /// `stop_reason`. claude also records a block cut off by an interrupt as an `assistant`
    /// message (and closes its stream with a null `stop_reason`), so a streamed text is
    /// finished only when its message is.
    finished: HashSet<String>,
    /// The Anthropic message of the held item, when it was streamed.
    held_message: Option<String>,
    /// Content blocks seen per message id in `assistant` messages (their block index).
    blocks: HashMap<String, usize>,
    /// A completed text not yet published: (item id, text).
    held: Option<(String, String)>,
}

/// The item id of content block `index` of Anthropic message `message_id`.
pub fn item_id(message_id: &str, index: u64) -> String {
    if index == 0 {
        message_id.to_owned()
    } else {
        format!("{message_id}_b{index}")
    }
}

impl Messages {
    /// A raw Anthropic streaming event (`stream_event.event`).
    pub fn stream_event(&mut self, event: &Value, out: &mut Vec<AdapterEvent>) {
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                self.streaming = event
                    .pointer("/message/id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            Some("content_block_start") => {
                self.flush_as_commentary(out);
                let is_text =
                    event.pointer("/content_block/type").and_then(Value::as_str) == Some("text");
                let (Some(message), Some(index), true) = (
                    self.streaming.as_deref(),
                    event.get("index").and_then(Value::as_u64),
                    is_text,
                ) else {
                    return;
                };
                let id = item_id(message, index);
                out.push(AdapterEvent::MessageStarted {
                    item_id: id.clone(),
                    phase: None,
                });
                self.open.insert(id.clone(), String::new());
                self.open_order.push(id);
            }
            Some("message_delta") => {
                let stopped = event
                    .pointer("/delta/stop_reason")
                    .is_some_and(|r| !r.is_null());
                if let (true, Some(message)) = (stopped, self.streaming.as_deref()) {
                    self.finished.insert(message.to_owned());
                }
            }
            Some("content_block_delta") => {
                let (Some(message), Some(index), Some(text)) = (
                    self.streaming.as_deref(),
                    event.get("index").and_then(Value::as_u64),
                    event
                        .pointer("/delta/text")
                        .filter(|_| {
                            event.pointer("/delta/type").and_then(Value::as_str)
                                == Some("text_delta")
                        })
                        .and_then(Value::as_str),
                ) else {
                    return;
                };
                let id = item_id(message, index);
                if let Some(so_far) = self.open.get_mut(&id) {
                    so_far.push_str(text);
                    out.push(AdapterEvent::MessageDelta {
                        item_id: id,
                        delta: text.to_owned(),
                    });
                }
            }
            _ => {}
        }
    }

    /// An `assistant` message (one or more finished content blocks). Returns its tool uses.
    pub fn assistant(&mut self, message: &Value, out: &mut Vec<AdapterEvent>) -> Vec<ToolUse> {
        let mut tool_uses = Vec::new();
        let Some(message_id) = message.get("id").and_then(Value::as_str) else {
            return tool_uses;
        };
        let Some(content) = message.get("content").and_then(Value::as_array) else {
            return tool_uses;
        };
        for block in content {
            let counter = self.blocks.entry(message_id.to_owned()).or_default();
            let index = *counter as u64;
            *counter += 1;
            let id = item_id(message_id, index);
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    self.flush_as_commentary(out);
                    let streamed = self.open.remove(&id).is_some();
                    if !streamed {
                        // Not streamed (claude sent the block whole): open it now.
                        out.push(AdapterEvent::MessageStarted {
                            item_id: id.clone(),
                            phase: None,
                        });
                        if !text.is_empty() {
                            out.push(AdapterEvent::MessageDelta {
                                item_id: id.clone(),
                                delta: text.to_owned(),
                            });
                        }
                    }
                    self.open_order.retain(|o| *o != id);
                    self.held_message = streamed.then(|| message_id.to_owned());
                    self.held = Some((id, text.to_owned()));
                }
                Some("thinking") => {
                    self.flush_as_commentary(out);
                    let text = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                    if !text.is_empty() {
                        out.push(AdapterEvent::Reasoning {
                            item_id: id,
                            text: text.to_owned(),
                        });
                    }
                }
                Some("tool_use") => {
                    self.flush_as_commentary(out);
                    if let (Some(id), Some(name)) = (
                        block.get("id").and_then(Value::as_str),
                        block.get("name").and_then(Value::as_str),
                    ) {
                        tool_uses.push(ToolUse {
                            id: id.to_owned(),
                            name: name.to_owned(),
                        });
                    }
                }
                _ => {}
            }
        }
        tool_uses
    }

    /// The Turn ended unsuccessfully (cancelled, failed, timed out). A message claude finished
    /// closes as commentary; one still streaming stays open, so the Turn's settlement marks it
    /// `incomplete` with the text it got (an interrupted message is never published complete).
    pub fn abandon(&mut self, out: &mut Vec<AdapterEvent>) {
        let cut_off = self
            .held_message
            .as_ref()
            .is_some_and(|m| self.held.is_some() && !self.finished.contains(m));
        if cut_off {
            self.held = None;
        }
        self.flush_as_commentary(out);
        self.open_order.clear();
        self.open.clear();
    }

    /// The Turn succeeded. Its last text is its final answer when `final_answer`; items whose
    /// stream claude never closed close as commentary with their text.
    pub fn finish(&mut self, final_answer: bool, out: &mut Vec<AdapterEvent>) {
        if let Some((item_id, text)) = self.held.take() {
            let phase = if final_answer {
                MessagePhase::FinalAnswer
            } else {
                MessagePhase::Commentary
            };
            out.push(AdapterEvent::MessageCompleted {
                item_id,
                phase,
                text,
            });
        }
        for item_id in std::mem::take(&mut self.open_order) {
            if let Some(text) = self.open.remove(&item_id) {
                out.push(AdapterEvent::MessageCompleted {
                    item_id,
                    phase: MessagePhase::Commentary,
                    text,
                });
            }
        }
    }

    fn flush_as_commentary(&mut self, out: &mut Vec<AdapterEvent>) {
        if let Some((item_id, text)) = self.held.take() {
            out.push(AdapterEvent::MessageCompleted {
                item_id,
                phase: MessagePhase::Commentary,
                text,
            });
        }
    }
}

/// Whether an `assistant` or `user` message is the root agent's own live output: not a Subagent's,
/// not invented by claude, not a replay of input.
pub fn is_root_live(message: &Value) -> bool {
    let parent = message.get("parent_tool_use_id");
    let root = parent.is_none() || parent == Some(&Value::Null);
    let flag = |k: &str| message.get(k).and_then(Value::as_bool) == Some(true);
    let synthetic =
        message.pointer("/message/model").and_then(Value::as_str) == Some("<synthetic>");
    root && !synthetic && !flag("isReplay") && !flag("isSynthetic")
}

/// Whether a message is a Subagent's own live output (`agent_id` set; not invented by claude,
/// not a replay).
pub fn is_child_live(message: &Value) -> bool {
    let flag = |k: &str| message.get(k).and_then(Value::as_bool) == Some(true);
    let synthetic =
        message.pointer("/message/model").and_then(Value::as_str) == Some("<synthetic>");
    message.get("agent_id").is_some_and(Value::is_string)
        && !synthetic
        && !flag("isReplay")
        && !flag("isSynthetic")
}

/// A native turn's usage from its `result`.
///
/// `model_usage_since_last_result` (per model, since the previous `result`) is preferred: it
/// also counts claude's own side requests, such as the nested request a `WebSearch` call makes
/// to the provider, which `usage` (the main loop's requests only) leaves out.
pub fn result_usage(result: &Value) -> Option<Usage> {
    if let Some(models) = result
        .get("model_usage_since_last_result")
        .and_then(Value::as_object)
    {
        let mut total: Option<Usage> = None;
        for model in models.values() {
            let n = |k: &str| model.get(k).and_then(Value::as_u64).unwrap_or(0);
            let input =
                n("inputTokens") + n("cacheCreationInputTokens") + n("cacheReadInputTokens");
            let output = n("outputTokens");
            total = add_usage(
                total,
                Some(Usage {
                    input_tokens: input,
                    cached_input_tokens: n("cacheReadInputTokens"),
                    output_tokens: output,
                    reasoning_output_tokens: n("thinkingTokens"),
                    total_tokens: input + output,
                }),
            );
        }
        // An empty map: no request of this native turn finished.
        return Some(total.unwrap_or_default());
    }
    let usage = result.get("usage")?;
    let n = |p: &str| usage.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let input =
        n("/input_tokens") + n("/cache_creation_input_tokens") + n("/cache_read_input_tokens");
    let output = n("/output_tokens");
    Some(Usage {
        input_tokens: input,
        cached_input_tokens: n("/cache_read_input_tokens"),
        output_tokens: output,
        reasoning_output_tokens: n("/output_tokens_details/thinking_tokens"),
        total_tokens: input + output,
    })
}

pub fn add_usage(a: Option<Usage>, b: Option<Usage>) -> Option<Usage> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Usage {
            input_tokens: a.input_tokens + b.input_tokens,
            cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
            output_tokens: a.output_tokens + b.output_tokens,
            reasoning_output_tokens: a.reasoning_output_tokens + b.reasoning_output_tokens,
            total_tokens: a.total_tokens + b.total_tokens,
        }),
        (a, b) => a.or(b),
    }
}

/// A failed `result` as (native code, message, HTTP status).
pub fn result_error(result: &Value) -> (String, String, Option<u16>) {
    let text = |k: &str| result.get(k).and_then(Value::as_str);
    let message = text("result")
        .map(str::to_owned)
        .or_else(|| {
            result.get("errors").and_then(Value::as_array).map(|e| {
                e.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("; ")
            })
        })
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| {
            format!(
                "claude ended the Turn with {}",
                text("subtype").unwrap_or("an error")
            )
        });
    let status = result
        .get("api_error_status")
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok())
        .filter(|s| (100..=599).contains(s));
    let kind = text("api_error").unwrap_or("");
    let code = match kind {
        "connection_failed"
        | "no_response"
        | "tls_untrusted_ca"
        | "tls_cert_signature_failure"
        | "network_edge_blocked"
        | "computer_slept"
        | "gateway_content_type" => "connection_failed",
        "stream_idle_timeout" => "request_timeout",
        "provider_credentials"
        | "api_key_auth_disabled"
        | "invalid_credential_header"
        | "org_disabled_credential"
        | "gateway_signin_required"
        | "gateway_session_expired" => "authentication_error",
        "usage_limit_reached"
        | "model_requires_usage_credits"
        | "long_context_credits_required" => "usage_limit_exceeded",
        "message_over_context_limit" | "autocompact_thrashing" => "context_length_exceeded",
        _ => match status {
            Some(401 | 403) => "authentication_error",
            Some(404) => "resource_not_found",
            Some(408) => "request_timeout",
            Some(429) => "rate_limit_exceeded",
            Some(529) => "server_overloaded",
            Some(400 | 413 | 422) if message.contains("prompt is too long") => {
                "context_length_exceeded"
            }
            Some(400..=499) => "invalid_request",
            _ => "server_error",
        },
    };
    // The protocol carries an HTTP status only beside `connection_failed`.
    let status = if code == "connection_failed" {
        status
    } else {
        None
    };
    (code.to_owned(), message, status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_adapter_kit::test_support::completed_messages as completed;

    #[test]
    fn streamed_text_then_tool_use_then_final_text() {
        let mut m = Messages::default();
        let mut out = Vec::new();
        m.stream_event(
            &json!({"type": "message_start", "message": {"id": "msg_1"}}),
            &mut out,
        );
        m.stream_event(&json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}), &mut out);
        m.stream_event(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}), &mut out);
        m.stream_event(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "check."}}), &mut out);
        m.assistant(
            &json!({"id": "msg_1", "content": [{"type": "text", "text": "Let me check."}]}),
            &mut out,
        );
        m.stream_event(&json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use"}}), &mut out);
        let uses = m.assistant(&json!({"id": "msg_1", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]}), &mut out);
        assert_eq!(
            uses,
            vec![ToolUse {
                id: "toolu_1".into(),
                name: "f".into()
            }]
        );
        // A second message, not streamed.
        m.assistant(
            &json!({"id": "msg_2", "content": [{"type": "text", "text": "Done."}]}),
            &mut out,
        );
        m.finish(true, &mut out);
        assert_eq!(
            completed(&out),
            vec![
                (
                    "msg_1".into(),
                    MessagePhase::Commentary,
                    "Let me check.".into()
                ),
                ("msg_2".into(), MessagePhase::FinalAnswer, "Done.".into()),
            ]
        );
        let deltas: Vec<_> = out
            .iter()
            .filter_map(|e| match e {
                AdapterEvent::MessageDelta { item_id, delta } => {
                    Some((item_id.as_str(), delta.as_str()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            deltas,
            vec![
                ("msg_1", "Let me "),
                ("msg_1", "check."),
                ("msg_2", "Done.")
            ]
        );
    }

    /// Messages with `msg_1`'s first text block open and `text` streamed into it.
    fn streaming(text: &str) -> (Messages, Vec<AdapterEvent>) {
        let mut m = Messages::default();
        let mut out = Vec::new();
        m.stream_event(
            &json!({"type": "message_start", "message": {"id": "msg_1"}}),
            &mut out,
        );
        m.stream_event(
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}),
            &mut out,
        );
        m.stream_event(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}), &mut out);
        (m, out)
    }

    #[test]
    fn an_abandoned_stream_stays_open() {
        let (mut m, mut out) = streaming("part");
        m.abandon(&mut out);
        assert!(completed(&out).is_empty());
    }

    /// claude records an interrupted block as an `assistant` message and closes the stream
    /// with a null `stop_reason`: the text was cut off, not finished.
    fn interrupted_then(stop_reason: Value) -> Vec<AdapterEvent> {
        let (mut m, mut out) = streaming("word ");
        m.assistant(
            &json!({"id": "msg_1", "content": [{"type": "text", "text": "word "}]}),
            &mut out,
        );
        m.stream_event(
            &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason}}),
            &mut out,
        );
        m.abandon(&mut out);
        out
    }

    #[test]
    fn a_cut_off_message_is_not_completed() {
        assert!(completed(&interrupted_then(Value::Null)).is_empty());
    }

    #[test]
    fn a_finished_message_of_a_stopped_turn_closes_as_commentary() {
        assert_eq!(
            completed(&interrupted_then(json!("end_turn"))),
            vec![("msg_1".into(), MessagePhase::Commentary, "word ".into())]
        );
    }

    #[test]
    fn an_unclosed_stream_of_a_successful_turn_closes_as_commentary() {
        let (mut m, mut out) = streaming("part");
        m.finish(false, &mut out);
        assert_eq!(
            completed(&out),
            vec![("msg_1".into(), MessagePhase::Commentary, "part".into())]
        );
    }

    #[test]
    fn synthetic_and_replayed_messages_are_not_live() {
        assert!(is_root_live(
            &json!({"type": "user", "parent_tool_use_id": null})
        ));
        assert!(!is_root_live(&json!({"type": "user", "isReplay": true})));
        assert!(!is_root_live(
            &json!({"type": "assistant", "message": {"model": "<synthetic>"}})
        ));
        assert!(!is_root_live(
            &json!({"type": "assistant", "parent_tool_use_id": "toolu_9"})
        ));
    }

    #[test]
    fn usage_prefers_the_per_result_model_usage() {
        let r = json!({"usage": {"input_tokens": 3705, "output_tokens": 13},
            "model_usage_since_last_result": {
                "claude-fake-1": {"inputTokens": 3795, "outputTokens": 15, "cacheReadInputTokens": 5, "cacheCreationInputTokens": 0, "thinkingTokens": 2},
                "claude-haiku": {"inputTokens": 10, "outputTokens": 1}}});
        assert_eq!(
            result_usage(&r),
            Some(Usage {
                input_tokens: 3810,
                cached_input_tokens: 5,
                output_tokens: 16,
                reasoning_output_tokens: 2,
                total_tokens: 3826
            })
        );
        let aborted = json!({"usage": {"input_tokens": 0}, "model_usage_since_last_result": {}});
        assert_eq!(result_usage(&aborted), Some(Usage::default()));
    }

    #[test]
    fn usage_counts_cache_reads_as_cached_input() {
        let r = json!({"usage": {"input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 20,
            "output_tokens": 7, "output_tokens_details": {"thinking_tokens": 3}}});
        assert_eq!(
            result_usage(&r),
            Some(Usage {
                input_tokens: 35,
                cached_input_tokens: 20,
                output_tokens: 7,
                reasoning_output_tokens: 3,
                total_tokens: 42
            })
        );
    }

    #[test]
    fn api_failures_map_to_native_codes() {
        let r = json!({"subtype": "success", "is_error": true, "api_error_status": 500, "result": "API Error: 500 boom"});
        assert_eq!(
            result_error(&r),
            ("server_error".into(), "API Error: 500 boom".into(), None)
        );
        let r = json!({"is_error": true, "api_error_status": 429, "result": "x"});
        assert_eq!(result_error(&r).0, "rate_limit_exceeded");
        let r = json!({"is_error": true, "api_error": "connection_failed", "api_error_status": null, "result": "refused"});
        assert_eq!(
            result_error(&r),
            ("connection_failed".into(), "refused".into(), None)
        );
        let r = json!({"subtype": "error_during_execution", "errors": ["a", "b"]});
        assert_eq!(
            result_error(&r),
            ("server_error".into(), "a; b".into(), None)
        );
    }
}
