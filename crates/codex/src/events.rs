//! Codex notifications → adapter events, for one Turn.
//!
//! Three pieces of state live here:
//!
//! - **Message phases.** Codex reports an agent message's `phase` only when the provider sends
//!   one, so the adapter decides itself: an agent message is held when it completes and
//!   published as `commentary` when anything else starts after it, or as `final_answer` when the
//!   Turn completes with it as the last agent message. The final text is codex's own, unchanged
//!   (with an `outputSchema` it is the structured output).
//! - **Usage.** `thread/tokenUsage/updated` carries the thread's running `total` and the `last`
//!   request. The Turn's usage is `total` minus the total before the Turn's first request, so a
//!   repeated notification never double-counts.
//! - **Failure codes.** `codexErrorInfo` maps onto the protocol's native error codes.

use serde_json::Value;
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::messages::{
    CommandStatus, MessagePhase, Usage, WebSearchAction, WebSearchStatus,
};

/// Assistant messages of a Turn, with phase resolution.
#[derive(Default)]
pub struct Messages {
    /// A completed agent message not yet published: (item id, codex phase, text).
    held: Option<(String, Option<MessagePhase>, String)>,
}

impl Messages {
    pub fn started(&mut self, item: &Value, out: &mut Vec<AdapterEvent>) {
        self.flush_as_commentary(out);
        if item_type(item) == Some("agentMessage") {
            out.push(AdapterEvent::MessageStarted {
                item_id: item_id(item),
                phase: codex_phase(item),
            });
        }
    }

    pub fn delta(&mut self, params: &Value, out: &mut Vec<AdapterEvent>) {
        let (Some(item_id), Some(delta)) = (
            params.get("itemId").and_then(Value::as_str),
            params.get("delta").and_then(Value::as_str),
        ) else {
            return;
        };
        out.push(AdapterEvent::MessageDelta {
            item_id: item_id.to_owned(),
            delta: delta.to_owned(),
        });
    }

    pub fn completed(&mut self, item: &Value, out: &mut Vec<AdapterEvent>) {
        self.flush_as_commentary(out);
        let text = item.get("text").and_then(Value::as_str).unwrap_or_default();
        self.held = Some((item_id(item), codex_phase(item), text.to_owned()));
    }

    /// The Turn ended; a completed Turn's last message is its final answer.
    pub fn finish(&mut self, turn_completed: bool, out: &mut Vec<AdapterEvent>) {
        if let Some((item_id, phase, text)) = self.held.take() {
            let phase = if turn_completed {
                MessagePhase::FinalAnswer
            } else {
                phase.unwrap_or(MessagePhase::Commentary)
            };
            out.push(AdapterEvent::MessageCompleted {
                item_id,
                phase,
                text,
            });
        }
    }

    fn flush_as_commentary(&mut self, out: &mut Vec<AdapterEvent>) {
        if let Some((item_id, phase, text)) = self.held.take() {
            let phase = phase.unwrap_or(MessagePhase::Commentary);
            out.push(AdapterEvent::MessageCompleted {
                item_id,
                phase,
                text,
            });
        }
    }
}

/// Observations for completed items other than messages and dynamic tool calls.
pub fn completed_observation(item: &Value) -> Option<AdapterEvent> {
    match item_type(item)? {
        "reasoning" => {
            let join = |key: &str| {
                item.get(key)
                    .and_then(Value::as_array)
                    .map(|parts| {
                        parts
                            .iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("\n")
                    })
                    .unwrap_or_default()
            };
            let summary = join("summary");
            let text = if summary.is_empty() {
                join("content")
            } else {
                summary
            };
            (!text.is_empty()).then(|| AdapterEvent::Reasoning {
                item_id: item_id(item),
                text,
            })
        }
        "webSearch" => Some(web_search(item, WebSearchStatus::Completed)),
        "mcpToolCall" => crate::mcp::observation(item),
        "commandExecution" => command_execution(item),
        _ => None,
    }
}

/// A `commandExecution` item (a command codex's own shell tool ran) at the status it carries:
/// `inProgress` when it starts, `completed`/`failed`/`declined` when it ends.
pub fn command_execution(item: &Value) -> Option<AdapterEvent> {
    Some(AdapterEvent::CommandExecution {
        item_id: item_id(item),
        command: item
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        status: match item.get("status").and_then(Value::as_str) {
            Some("completed") => CommandStatus::Completed,
            Some("failed") => CommandStatus::Failed,
            Some("declined") => CommandStatus::Declined,
            _ => CommandStatus::InProgress,
        },
        exit_code: item.get("exitCode").and_then(Value::as_i64),
        output: item
            .get("aggregatedOutput")
            .and_then(Value::as_str)
            .map(str::to_owned),
        cwd: item.get("cwd").and_then(Value::as_str).map(str::to_owned),
        duration_ms: item.get("durationMs").and_then(Value::as_u64),
    })
}

/// A `webSearch` item (codex's record of a provider-side `web_search_call`) at `status`.
pub fn web_search(item: &Value, status: WebSearchStatus) -> AdapterEvent {
    let action = item
        .get("action")
        .filter(|a| !a.is_null())
        .map(web_search_action)
        .or_else(|| {
            // Without an action codex still reports the query it searched for.
            item.get("query")
                .and_then(Value::as_str)
                .map(|q| WebSearchAction::Search {
                    query: Some(q.to_owned()),
                    queries: None,
                })
        });
    AdapterEvent::WebSearchCall {
        item_id: item_id(item),
        status,
        action,
    }
}

/// codex's `WebSearchAction`, in camelCase or snake_case tags, as the official action.
fn web_search_action(action: &Value) -> WebSearchAction {
    let text = |k: &str| action.get(k).and_then(Value::as_str).map(str::to_owned);
    match action.get("type").and_then(Value::as_str) {
        Some("search") => WebSearchAction::Search {
            query: text("query"),
            queries: action.get("queries").and_then(Value::as_array).map(|q| {
                q.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            }),
        },
        Some("openPage" | "open_page") => WebSearchAction::OpenPage { url: text("url") },
        Some("findInPage" | "find_in_page") => WebSearchAction::FindInPage {
            url: text("url"),
            pattern: text("pattern"),
        },
        _ => WebSearchAction::Other,
    }
}

/// The Turn's cumulative usage.
#[derive(Default)]
pub struct UsageTracker {
    baseline: Option<Usage>,
    current: Option<Usage>,
}

impl UsageTracker {
    /// Takes a `thread/tokenUsage/updated` of this Turn; returns the new snapshot.
    pub fn update(&mut self, params: &Value) -> Option<Usage> {
        let usage = params.get("tokenUsage")?;
        let total = breakdown(usage.get("total")?)?;
        let last = breakdown(usage.get("last")?)?;
        let baseline = *self.baseline.get_or_insert_with(|| minus(total, last));
        let snapshot = minus(total, baseline);
        self.current = Some(snapshot);
        Some(snapshot)
    }

    pub fn current(&self) -> Option<Usage> {
        self.current
    }
}

fn breakdown(v: &Value) -> Option<Usage> {
    let n = |k: &str| v.get(k).and_then(Value::as_u64);
    Some(Usage {
        input_tokens: n("inputTokens")?,
        cached_input_tokens: n("cachedInputTokens").unwrap_or(0),
        output_tokens: n("outputTokens")?,
        reasoning_output_tokens: n("reasoningOutputTokens").unwrap_or(0),
        total_tokens: n("totalTokens")?,
    })
}

fn minus(a: Usage, b: Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.saturating_sub(b.input_tokens),
        cached_input_tokens: a.cached_input_tokens.saturating_sub(b.cached_input_tokens),
        output_tokens: a.output_tokens.saturating_sub(b.output_tokens),
        reasoning_output_tokens: a
            .reasoning_output_tokens
            .saturating_sub(b.reasoning_output_tokens),
        total_tokens: a.total_tokens.saturating_sub(b.total_tokens),
    }
}

/// A failed Turn's error as (native code, message, HTTP status).
pub fn turn_error(error: Option<&Value>) -> (String, String, Option<u16>) {
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("codex reported a failed Turn")
        .to_owned();
    let info = error.and_then(|e| e.get("codexErrorInfo"));
    let (code, status) = match info {
        Some(Value::String(kind)) => (simple_code(kind), None),
        Some(Value::Object(map)) => {
            // `{httpConnectionFailed: {httpStatusCode}}` and its stream siblings.
            let status = map
                .values()
                .next()
                .and_then(|v| v.get("httpStatusCode"))
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok())
                .filter(|s| (100..=599).contains(s));
            ("connection_failed", status)
        }
        _ => ("server_error", None),
    };
    (code.to_owned(), message, status)
}

fn simple_code(kind: &str) -> &'static str {
    match kind {
        "contextWindowExceeded" => "context_length_exceeded",
        "usageLimitExceeded" | "sessionBudgetExceeded" => "usage_limit_exceeded",
        "rateLimitExceeded" => "rate_limit_exceeded",
        "serverOverloaded" | "flexUnavailable" | "policyCapacityUnavailable" => "server_overloaded",
        "modelNotFound" => "resource_not_found",
        "cyberPolicy" => "cyber_policy",
        "unauthorized" => "authentication_error",
        "badRequest" => "invalid_request",
        _ => "server_error",
    }
}

pub fn item_type(item: &Value) -> Option<&str> {
    item.get("type").and_then(Value::as_str)
}

fn item_id(item: &Value) -> String {
    item.get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn codex_phase(item: &Value) -> Option<MessagePhase> {
    match item.get("phase").and_then(Value::as_str) {
        Some("commentary") => Some(MessagePhase::Commentary),
        Some("final_answer") => Some(MessagePhase::FinalAnswer),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_adapter_kit::test_support::completed_messages;

    #[test]
    fn last_message_of_a_completed_turn_is_the_final_answer() {
        let mut m = Messages::default();
        let mut out = Vec::new();
        m.started(&json!({"type": "agentMessage", "id": "a"}), &mut out);
        m.completed(
            &json!({"type": "agentMessage", "id": "a", "text": "thinking aloud"}),
            &mut out,
        );
        m.started(&json!({"type": "dynamicToolCall", "id": "c"}), &mut out);
        m.started(&json!({"type": "agentMessage", "id": "b"}), &mut out);
        m.completed(
            &json!({"type": "agentMessage", "id": "b", "text": "{\"x\":1.50}"}),
            &mut out,
        );
        m.finish(true, &mut out);
        let completed = |id: &str, phase, text: &str| (id.to_owned(), phase, text.to_owned());
        assert_eq!(
            completed_messages(&out),
            vec![
                completed("a", MessagePhase::Commentary, "thinking aloud"),
                completed("b", MessagePhase::FinalAnswer, "{\"x\":1.50}")
            ]
        );
    }

    #[test]
    fn web_search_items_keep_their_action() {
        // As codex 0.171.0 reports a provider `web_search_call` on `item/completed`.
        let item = json!({"type": "webSearch", "id": "ws_1", "query": "weather in Paris",
            "action": {"type": "search", "query": "weather in Paris", "queries": null}, "results": null});
        assert_eq!(
            completed_observation(&item),
            Some(AdapterEvent::WebSearchCall {
                item_id: "ws_1".into(),
                status: WebSearchStatus::Completed,
                action: Some(WebSearchAction::Search {
                    query: Some("weather in Paris".into()),
                    queries: None
                }),
            })
        );
        let page = json!({"type": "webSearch", "id": "ws_2", "query": "",
            "action": {"type": "findInPage", "url": "https://a.example", "pattern": "21"}});
        let AdapterEvent::WebSearchCall { action, .. } =
            web_search(&page, WebSearchStatus::InProgress)
        else {
            unreachable!()
        };
        assert_eq!(
            action,
            Some(WebSearchAction::FindInPage {
                url: Some("https://a.example".into()),
                pattern: Some("21".into())
            })
        );
    }

    #[test]
    fn usage_is_the_turns_share_of_the_thread_total() {
        let mut u = UsageTracker::default();
        let upd = |total: u64, last: u64| {
            json!({"tokenUsage": {
                "total": {"inputTokens": total, "cachedInputTokens": 0, "outputTokens": 1, "reasoningOutputTokens": 0, "totalTokens": total + 1},
                "last": {"inputTokens": last, "cachedInputTokens": 0, "outputTokens": 1, "reasoningOutputTokens": 0, "totalTokens": last + 1}}})
        };
        // The thread had 100 input tokens before this Turn; the Turn makes two requests.
        assert_eq!(u.update(&upd(110, 10)).unwrap().input_tokens, 10);
        assert_eq!(u.update(&upd(130, 20)).unwrap().input_tokens, 30);
        assert_eq!(
            u.update(&upd(130, 20)).unwrap().input_tokens,
            30,
            "a repeat never adds"
        );
    }

    #[test]
    fn error_info_maps_to_native_codes() {
        let e = json!({"message": "m", "codexErrorInfo": {"httpConnectionFailed": {"httpStatusCode": 502}}});
        assert_eq!(
            turn_error(Some(&e)),
            ("connection_failed".into(), "m".into(), Some(502))
        );
        let e = json!({"message": "m", "codexErrorInfo": "contextWindowExceeded"});
        assert_eq!(turn_error(Some(&e)).0, "context_length_exceeded");
        assert_eq!(turn_error(None).0, "server_error");
    }
}
