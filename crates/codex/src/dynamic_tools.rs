//! Application functions as codex dynamic tools.
//!
//! Functions are declared once, as `dynamicTools` on `thread/start`: codex stores them in the
//! thread's rollout, offers them again after `thread/resume`, and ignores any attempt to change
//! them later, which is exactly the "fixed for the Session" rule. Each call arrives as a server
//! request `item/tool/call{threadId, turnId, callId, tool, arguments}`, and the answer is
//! `{contentItems, success}`: the result's content parts in order (a string output is one
//! `inputText`, an error text is a final `inputText`).

use serde_json::{Value, json};
use switchboard_protocol::{FunctionResultContent, FunctionToolSpec, ResultPart};

/// The `dynamicTools` array for `thread/start`. Schemas pass through unchanged.
pub fn dynamic_tool_specs(functions: &[FunctionToolSpec]) -> Value {
    Value::Array(
        functions
            .iter()
            .map(|f| {
                let mut spec = json!({
                    "type": "function",
                    "name": f.name,
                    "description": f.description,
                    "inputSchema": f.parameters,
                });
                // Only sent when set: absent keeps codex's eager loading.
                if f.defer_loading {
                    spec["deferLoading"] = Value::Bool(true);
                }
                spec
            })
            .collect(),
    )
}

/// Checks names against codex's dynamic tool rule (`^[a-zA-Z0-9_-]{1,128}$`) before a thread
/// is started, so a bad name fails preparation instead of the first Turn. Session admission
/// refuses the same names earlier from the Codex declaration (`functions.name`); the adapter
/// does not depend on the declarations, so `switchboard/tests/admission_table.rs` proves the
/// two agree.
pub fn validate_names(functions: &[FunctionToolSpec]) -> Result<(), String> {
    for f in functions {
        let valid = (1..=128).contains(&f.name.len())
            && f.name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(format!(
                "function name `{}` is not a valid codex dynamic tool name (letters, digits, `_`, `-`, at most 128)",
                f.name
            ));
        }
    }
    Ok(())
}

/// The `contentItems` of a result.
pub fn content_items(result: &FunctionResultContent) -> Value {
    Value::Array(
        result
            .parts()
            .into_iter()
            .map(|part| match part {
                ResultPart::Text(text) => json!({"type": "inputText", "text": text}),
                ResultPart::ImageUrl(url) => json!({"type": "inputImage", "imageUrl": url}),
            })
            .collect(),
    )
}

/// The answer to an `item/tool/call` request.
pub fn tool_call_response(result: &FunctionResultContent) -> Value {
    json!({"contentItems": content_items(result), "success": result.success})
}

/// A parsed `item/tool/call` request.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRequest {
    pub thread_id: String,
    pub turn_id: String,
    pub call_id: String,
    pub tool: String,
    /// The arguments as exact JSON text (codex sends them parsed; the workspace's lossless
    /// `serde_json` prints them back with the same numbers and key order).
    pub arguments: String,
}

impl ToolCallRequest {
    pub fn parse(params: &Value) -> Option<Self> {
        let s = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(ToolCallRequest {
            thread_id: s("threadId")?,
            turn_id: s("turnId")?,
            call_id: s("callId")?,
            tool: s("tool")?,
            arguments: params
                .get("arguments")
                .map(Value::to_string)
                .unwrap_or_else(|| "{}".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_keep_schemas_exactly_and_defer_only_when_set() {
        let schema = r#"{"type":"object","properties":{"x":{"type":"number","maximum":10.50,"minimum":1E2}}}"#;
        let f = |name: &str, defer| FunctionToolSpec {
            name: name.into(),
            description: "d".into(),
            parameters: serde_json::from_str(schema).unwrap(),
            defer_loading: defer,
        };
        let specs = dynamic_tool_specs(&[f("a", false), f("b", true)]);
        assert_eq!(
            specs[0]["inputSchema"].to_string(),
            serde_json::from_str::<Value>(schema).unwrap().to_string()
        );
        assert!(specs[0]["inputSchema"].to_string().contains("10.50"));
        assert!(specs[0].get("deferLoading").is_none());
        assert_eq!(specs[1]["deferLoading"], true);
    }

    #[test]
    fn results_become_content_items_with_the_error_last() {
        use switchboard_protocol::{FunctionOutput, InputPart};
        let result = FunctionResultContent {
            success: false,
            output: Some(FunctionOutput::Parts(vec![
                InputPart::InputText { text: "a".into() },
                InputPart::InputImage {
                    image_url: "data:image/png;base64,AA==".into(),
                },
            ])),
            error: Some("boom".into()),
        };
        assert_eq!(
            tool_call_response(&result),
            json!({"contentItems": [
                {"type": "inputText", "text": "a"},
                {"type": "inputImage", "imageUrl": "data:image/png;base64,AA=="},
                {"type": "inputText", "text": "boom"}], "success": false})
        );
    }

    #[test]
    fn names_follow_codex_rules() {
        let f = |name: &str| FunctionToolSpec {
            name: name.into(),
            description: String::new(),
            parameters: json!({}),
            defer_loading: false,
        };
        assert!(validate_names(&[f("get_weather-2")]).is_ok());
        assert!(validate_names(&[f("get weather")]).is_err());
        assert!(validate_names(&[f("")]).is_err());
    }
}
