//! A concrete answer, before any protocol shapes it: text and tool calls, in output order.
//!
//! Scenario replies and the built-in default both resolve to an [`Answer`]; the Responses,
//! Messages and Chat renderers turn the same answer into their own JSON and SSE events, so the
//! three endpoints cannot drift apart in what they say.

use serde_json::{Value, json};

use crate::request::RequestView;
use crate::scenario::{ToolCall, WebSearch};
use crate::schema_instance::minimal_instance;
use crate::usage::count_tokens;

/// One piece of assistant output.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    Call(Call),
    /// A search the provider ran itself (no caller round-trip).
    Search(WebSearch),
}

/// A tool call with everything resolved except protocol-specific ids.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub namespace: Option<String>,
    /// A scripted call id; `None` lets the renderer derive one from the request number.
    pub id: Option<String>,
    /// The arguments; a JSON string stands for verbatim arguments text.
    pub arguments: Value,
}

impl Call {
    /// Completes a scripted call from the offered tool it names: the tool's bare name and
    /// namespace (so `mcp__lab__get_weather` becomes `get_weather` in namespace `mcp__lab` for
    /// Codex), and arguments generated from its schema when the script gives none.
    pub fn resolve(spec: &ToolCall, view: &RequestView) -> Self {
        let tool = view.find_tool(&spec.name);
        let (name, namespace) = match (&spec.namespace, tool) {
            // An explicit namespace means the script spells the call exactly as it wants it.
            (Some(namespace), _) => (spec.name.clone(), Some(namespace.clone())),
            (None, Some(tool)) => (tool.name.clone(), tool.namespace.clone()),
            (None, None) => (spec.name.clone(), None),
        };
        let arguments = spec.arguments.clone().map_or_else(
            || {
                tool.and_then(|t| t.schema.as_ref())
                    .map_or_else(|| json!({}), minimal_instance)
            },
            |a| fill_from_last_output(a, view),
        );
        Call {
            name,
            namespace,
            id: spec.id.clone(),
            arguments,
        }
    }

    /// The arguments as OpenAI sends them: JSON text.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }

    /// The arguments as Anthropic sends them: a JSON value (`tool_use.input`). Verbatim text
    /// that parses is sent parsed; text that does not is sent as a string, as scripted.
    pub fn input(&self) -> Value {
        match &self.arguments {
            Value::String(raw) => {
                serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone()))
            }
            other => other.clone(),
        }
    }
}

/// The prefix of a string argument filled from a tool output: `"$last_output.KEY"` becomes
/// member `KEY` of the current turn's latest tool output that, read as a JSON object, has one
/// (an ID the harness made up, such as the `agent_id` Codex's `spawn_agent` returns), or stays
/// as written when none has.
pub const LAST_OUTPUT_PLACEHOLDER: &str = "$last_output.";

fn fill_from_last_output(arguments: Value, view: &RequestView) -> Value {
    match arguments {
        Value::String(s) => match s.strip_prefix(LAST_OUTPUT_PLACEHOLDER) {
            Some(key) => view
                .turn_outputs
                .iter()
                .rev()
                .filter_map(|o| serde_json::from_str::<Value>(&o.text).ok())
                .find_map(|o| o.get(key).cloned())
                .unwrap_or(Value::String(s)),
            None => Value::String(s),
        },
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| fill_from_last_output(v, view))
                .collect(),
        ),
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(k, v)| (k, fill_from_last_output(v, view)))
                .collect(),
        ),
        other => other,
    }
}

/// What the model says in one reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub blocks: Vec<Block>,
    /// How many deltas each text block is streamed in.
    pub deltas: u32,
}

impl Answer {
    pub fn text(text: impl Into<String>) -> Self {
        Answer {
            blocks: vec![Block::Text(text.into())],
            deltas: 1,
        }
    }

    pub fn call(call: Call) -> Self {
        Answer {
            blocks: vec![Block::Call(call)],
            deltas: 1,
        }
    }

    pub fn has_calls(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b, Block::Call(_)))
    }

    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            Block::Call(_) | Block::Search(_) => None,
        })
    }

    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Call(c) => Some(c),
            Block::Text(_) | Block::Search(_) => None,
        })
    }

    /// Output tokens: the text's tokens plus each call's name and arguments text.
    pub fn output_tokens(&self) -> u64 {
        self.blocks
            .iter()
            .map(|b| match b {
                Block::Text(t) => count_tokens(t),
                Block::Call(c) => count_tokens(&c.name) + count_tokens(&c.arguments_text()),
                Block::Search(w) => count_tokens(&w.query),
            })
            .sum()
    }

    pub fn searches(&self) -> impl Iterator<Item = &WebSearch> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Search(w) => Some(w),
            Block::Text(_) | Block::Call(_) => None,
        })
    }

    /// The journal's account of the calls: name, namespace and arguments text as sent.
    pub fn calls_summary(&self) -> Value {
        self.calls()
            .map(|c| json!({"name": c.name, "namespace": c.namespace, "arguments": c.arguments_text()}))
            .collect()
    }
}

/// The id suffix of the K-th output item: none for the first, `_K` after, so the first item's
/// ids are exactly the lab probes' (`call_resp_1`) and later ones stay unique.
pub fn id_suffix(index: usize) -> String {
    if index == 0 {
        String::new()
    } else {
        format!("_{index}")
    }
}

/// Splits `text` into `n` pieces of near-equal character count (fewer when the text is
/// shorter than `n` characters; none when it is empty). Splits fall on char boundaries.
pub fn split_deltas(text: &str, n: u32) -> Vec<&str> {
    let chars = text.chars().count();
    let n = (n.max(1) as usize).min(chars);
    if n == 0 {
        return Vec::new();
    }
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    (0..n)
        .map(|k| &text[boundaries[k * chars / n]..boundaries[(k + 1) * chars / n]])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_cover_the_text_in_order() {
        let text = "héllo wörld, this is a test";
        for n in 1..=30 {
            let parts = split_deltas(text, n);
            assert_eq!(parts.concat(), text);
            assert_eq!(parts.len(), (n as usize).min(text.chars().count()));
            assert!(parts.iter().all(|p| !p.is_empty()));
        }
        assert!(split_deltas("", 5).is_empty());
    }

    #[test]
    fn verbatim_arguments_stay_text_for_openai() {
        let call = Call {
            name: "f".into(),
            namespace: None,
            id: None,
            arguments: Value::String("{not json".into()),
        };
        assert_eq!(call.arguments_text(), "{not json");
        assert_eq!(call.input(), Value::String("{not json".into()));
    }
}
