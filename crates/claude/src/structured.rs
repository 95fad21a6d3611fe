//! Structured output: the native `StructuredOutput` tool and the Turn's final answer.
//!
//! With `--json-schema`, claude offers the model a terminal `StructuredOutput` tool whose input
//! schema is the Agent's. The tool is claude's own: it validates the input, records a
//! `tool_result` ("Structured output provided successfully", or an error that makes the model
//! retry), and ends its turn with `result.result` = the accepted input as JSON text and
//! `result.structured_output` = the same value parsed.
//!
//! The answer the caller gets is `result.result`, unchanged (never `structured_output`
//! serialized again), as a completed `final_answer` message whose id is the accepted call's
//! tool-use id. It is published only when a live root `tool_result` accepted a
//! `StructuredOutput` call and the result is a success that carries `structured_output`: a
//! rejected attempt, a cancelled one or a Turn without the call never becomes the answer, and
//! a successful Turn without one fails.

use std::collections::HashSet;

use serde_json::Value;

use crate::events::ToolUse;
use crate::flags::STRUCTURED_OUTPUT;

/// The Turn's `StructuredOutput` calls and which one claude accepted.
#[derive(Default)]
pub struct StructuredOutput {
    calls: HashSet<String>,
    accepted: Option<String>,
}

/// The final answer of a structured Turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The accepted `StructuredOutput` call's tool-use id.
    pub item_id: String,
    /// `result.result`, byte for byte.
    pub text: String,
}

impl StructuredOutput {
    pub fn tool_use(&mut self, tool_use: &ToolUse) {
        if tool_use.name == STRUCTURED_OUTPUT {
            self.calls.insert(tool_use.id.clone());
        }
    }

    /// A live root `tool_result` block.
    pub fn tool_result(&mut self, block: &Value) {
        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
            return;
        };
        if !self.calls.contains(id) {
            return;
        }
        let rejected = block.get("is_error").and_then(Value::as_bool) == Some(true);
        if !rejected {
            self.accepted = Some(id.to_owned());
        }
    }

    /// The answer of a successful native `result`, or why there is none. Clears the accepted
    /// call: a later native turn of the same Turn must produce its own.
    pub fn take_answer(&mut self, result: &Value) -> Result<Answer, &'static str> {
        let accepted = self.accepted.take();
        let structured = result
            .get("structured_output")
            .is_some_and(|s| !s.is_null());
        match (accepted, result.get("result").and_then(Value::as_str)) {
            (Some(item_id), Some(text)) if structured => Ok(Answer {
                item_id,
                text: text.to_owned(),
            }),
            _ => Err("Claude Code ended the Turn without an accepted structured output."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> ToolUse {
        ToolUse {
            id: id.into(),
            name: STRUCTURED_OUTPUT.into(),
        }
    }

    #[test]
    fn only_an_accepted_call_with_a_structured_result_answers() {
        let mut s = StructuredOutput::default();
        s.tool_use(&call("toolu_1"));
        s.tool_result(&json!({"tool_use_id": "toolu_1", "is_error": true, "content": "invalid"}));
        let result = json!({"result": "{\"a\":1}", "structured_output": {"a": 1}});
        assert!(s.take_answer(&result).is_err());
        s.tool_use(&call("toolu_2"));
        s.tool_result(&json!({"tool_use_id": "toolu_2", "content": "Structured output provided successfully"}));
        assert_eq!(
            s.take_answer(&result),
            Ok(Answer {
                item_id: "toolu_2".into(),
                text: "{\"a\":1}".into()
            })
        );
        assert!(s.take_answer(&result).is_err(), "taken once");
    }

    #[test]
    fn a_result_without_structured_output_is_no_answer() {
        let mut s = StructuredOutput::default();
        s.tool_use(&call("toolu_1"));
        s.tool_result(&json!({"tool_use_id": "toolu_1", "content": "ok"}));
        assert!(s.take_answer(&json!({"result": "text"})).is_err());
    }
}
