//! Native web searches of a Turn, as `web_search_call` observations.
//!
//! claude runs a search as its own `WebSearch` tool: the model's `tool_use` (input `{query}`)
//! opens it, and the `tool_result` claude writes back (after its nested provider request with
//! the `web_search_20250305` server tool) closes it, `is_error` meaning it did not finish. A
//! provider that searches in the main request instead shows `server_tool_use` (`web_search`)
//! and `web_search_tool_result` blocks in the assistant message; they open and close a search
//! the same way. The tool-use id is the item id either way.

use std::collections::HashMap;

use serde_json::Value;
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::messages::{WebSearchAction, WebSearchStatus};

use crate::flags::WEB_SEARCH;

/// Searches opened and not yet closed: tool-use id → query.
#[derive(Default)]
pub struct WebSearches {
    open: HashMap<String, Option<String>>,
}

impl WebSearches {
    /// The blocks of a root `assistant` message.
    pub fn assistant(&mut self, message: &Value, out: &mut Vec<AdapterEvent>) {
        for block in blocks(message.get("content")) {
            let name = block.get("name").and_then(Value::as_str);
            match (block.get("type").and_then(Value::as_str), name) {
                (Some("tool_use"), Some(WEB_SEARCH))
                | (Some("server_tool_use"), Some("web_search")) => {
                    let Some(id) = block.get("id").and_then(Value::as_str) else {
                        continue;
                    };
                    let query = block
                        .pointer("/input/query")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    self.open.insert(id.to_owned(), query.clone());
                    out.push(event(id, WebSearchStatus::InProgress, query));
                }
                (Some("web_search_tool_result"), _) => {
                    let failed = block
                        .pointer("/content/type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.ends_with("_error"));
                    self.close(block, failed, out);
                }
                _ => {}
            }
        }
    }

    /// The content of a root `user` message: the results of `WebSearch` calls.
    pub fn user(&mut self, content: &[Value], out: &mut Vec<AdapterEvent>) {
        for block in content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        {
            let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
            self.close(block, failed, out);
        }
    }

    fn close(&mut self, block: &Value, failed: bool, out: &mut Vec<AdapterEvent>) {
        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
            return;
        };
        let Some(query) = self.open.remove(id) else {
            return;
        };
        let status = if failed {
            WebSearchStatus::Incomplete
        } else {
            WebSearchStatus::Completed
        };
        out.push(event(id, status, query));
    }
}

fn blocks(content: Option<&Value>) -> &[Value] {
    content.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn event(id: &str, status: WebSearchStatus, query: Option<String>) -> AdapterEvent {
    AdapterEvent::WebSearchCall {
        item_id: id.to_owned(),
        status,
        action: Some(WebSearchAction::Search {
            query,
            queries: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search(id: &str, status: WebSearchStatus, query: &str) -> AdapterEvent {
        event(id, status, Some(query.to_owned()))
    }

    #[test]
    fn a_web_search_tool_call_opens_and_its_result_closes() {
        let mut s = WebSearches::default();
        let mut out = Vec::new();
        s.assistant(
            &json!({"content": [
            {"type": "tool_use", "id": "toolu_1", "name": "WebSearch", "input": {"query": "q"}},
            {"type": "tool_use", "id": "toolu_2", "name": "mcp__functions__f", "input": {}}]}),
            &mut out,
        );
        s.user(
            &[
                json!({"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"}),
                json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "Web search results"}),
                json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "again"}),
            ],
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                search("toolu_1", WebSearchStatus::InProgress, "q"),
                search("toolu_1", WebSearchStatus::Completed, "q"),
            ]
        );
    }

    #[test]
    fn a_failed_search_is_incomplete() {
        let mut s = WebSearches::default();
        let mut out = Vec::new();
        s.assistant(&json!({"content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
             "content": {"type": "web_search_tool_result_error", "error_code": "unavailable"}}]}), &mut out);
        s.assistant(
            &json!({"content": [
            {"type": "tool_use", "id": "toolu_3", "name": "WebSearch", "input": {"query": "r"}}]}),
            &mut out,
        );
        s.user(
            &[json!({"type": "tool_result", "tool_use_id": "toolu_3", "is_error": true, "content": "denied"})],
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                search("srvtoolu_1", WebSearchStatus::InProgress, "q"),
                search("srvtoolu_1", WebSearchStatus::Incomplete, "q"),
                search("toolu_3", WebSearchStatus::InProgress, "r"),
                search("toolu_3", WebSearchStatus::Incomplete, "r"),
            ]
        );
    }
}
