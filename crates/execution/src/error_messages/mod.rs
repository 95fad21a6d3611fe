//! Every message the execution parser returns, one file per family.
//!
//! The HTTP layer and the tests share these builders, so a wording change happens here once.
//! (Named for what it holds, so it is not confused with `protocol::messages`, the Core–Runtime
//! frames.) The families, one module each:
//!
//! - `forms`: the protocol forms (core-contracts §2.2, observed from the official service):
//!   missing, unknown, wrong type, unsupported value, integer bounds, string lengths. `param` is
//!   the JSON path of the member.
//! - `local_forms`: local rules with our own wording, in the official style.
//! - `conflicts` (param null): duplicate function names, a repeated `web_search` or
//!   `tool_search`, a non-object schema root.
//! - `session_create`: Session create's initial-input rules.
//! - `input_events`: the input events body's generic 400s.
//! - `mcp`, `model_provider`: prose rules, the spec's exact sentences where it has one, and
//!   messages of our own in the same plain style where it does not. `param` is still the JSON
//!   path of the offending member, so callers can point at it.
//! - `echo`: which caller text a message may repeat.
//!
//! Caller-supplied text (member names, enum values, function names, schema root types, header
//! names) is echoed only when it is at most [`MAX_ECHO_BYTES`] of printable UTF-8
//! (core-contracts §2). When it is not, the message drops the value, and a path that would
//! carry it becomes a null `param`, because the path itself is caller text then.

use crate::error::ValidationError;

mod conflicts;
mod echo;
mod forms;
mod input_events;
mod local_forms;
mod mcp;
mod model_provider;
mod session_create;
mod vault;

pub use conflicts::*;
pub use echo::{MAX_ECHO_BYTES, echoable, supported_list};
pub use forms::*;
pub use input_events::*;
pub use local_forms::*;
pub use mcp::*;
pub use model_provider::*;
pub use session_create::*;
pub use vault::*;

/// Expected-kind phrases of `Invalid type for ...` (the official vocabulary).
pub mod kind {
    pub const STRING: &str = "a string";
    pub const BOOLEAN: &str = "a boolean";
    pub const INTEGER: &str = "an integer";
    pub const ARRAY: &str = "an array";
    pub const OBJECT: &str = "an object";
    /// A JSON Schema or another free-form object (`Dict[str, object]` in the pinned SDK).
    pub const FREE_OBJECT: &str = "an object with string keys and unknown value values";
    /// `metadata`, MCP `headers` and `env` (`Dict[str, str]`).
    pub const STRING_MAP: &str = "an object with string keys and string values";
    /// Session `input`, message `content` and tool result `output`: text or a list (ours; the
    /// official phrase for these unions is not known).
    pub const STRING_OR_ARRAY: &str = "a string or an array";
}

/// One naming of JSON kinds for the body gate and the parser.
pub use switchboard_wire::body::{is_integer_literal, json_kind};

/// The error for `path`: the path is the param when it can be echoed, else the param is null.
fn at(
    path: &str,
    with_path: impl FnOnce(&str) -> String,
    without: impl FnOnce() -> String,
) -> ValidationError {
    if echoable(path) {
        ValidationError::new(path.to_string(), with_path(path))
    } else {
        ValidationError::new(None, without())
    }
}

/// A whole-request rule: param null.
fn conflict(message: String) -> ValidationError {
    ValidationError::new(None, message)
}

/// A prose rule at `path` (param = path, null when the path is caller text that cannot be echoed).
pub fn rule(path: &str, message: &str) -> ValidationError {
    at(path, |_| message.to_string(), || message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn kinds_follow_the_official_vocabulary() {
        let table = [
            (json!(null), "null"),
            (json!(true), "a boolean"),
            (json!(1), "an integer"),
            (
                serde_json::from_str::<Value>("-99999999999999999999").unwrap(),
                "an integer",
            ),
            (json!(1.5), "a number"),
            (serde_json::from_str::<Value>("1.0").unwrap(), "a number"),
            (serde_json::from_str::<Value>("1E2").unwrap(), "a number"),
            (json!("s"), "a string"),
            (json!([]), "an array"),
            (json!({}), "an object"),
        ];
        for (value, kind) in table {
            assert_eq!(json_kind(&value), kind, "{value}");
        }
    }
}
