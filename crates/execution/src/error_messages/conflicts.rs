//! Whole-request conflicts (param null), checked after every member of the body.

use super::{conflict, echoable};
use crate::error::ValidationError;

pub const DUPLICATE_WEB_SEARCH: &str = "duplicate web_search tool";
pub const DUPLICATE_TOOL_SEARCH: &str = "duplicate tool_search tool";

pub fn duplicate_web_search() -> ValidationError {
    conflict(DUPLICATE_WEB_SEARCH.to_string())
}

pub fn duplicate_tool_search() -> ValidationError {
    conflict(DUPLICATE_TOOL_SEARCH.to_string())
}

pub fn duplicate_function_name(name: &str) -> ValidationError {
    if echoable(name) {
        conflict(format!("duplicate function tool name: {name}"))
    } else {
        conflict("duplicate function tool name".to_string())
    }
}

/// A function whose `parameters` has an explicit string root `type` other than `object`.
pub fn function_schema_root(name: &str, root_type: &str) -> ValidationError {
    let who = if echoable(name) {
        format!(" '{name}'")
    } else {
        String::new()
    };
    let got = if echoable(root_type) {
        format!(", got 'type: \"{root_type}\"'")
    } else {
        String::new()
    };
    conflict(format!(
        "Invalid schema for function{who}: schema must be a JSON Schema of 'type: \"object\"'{got}."
    ))
}

/// A `text.format.schema` with an explicit string root `type` other than `object`.
/// `schema_path` follows the body: `text.format.schema` on Agent bodies,
/// `agent.text.format.schema` on Session create.
pub fn text_schema_root(schema_path: &str, root_type: &str) -> ValidationError {
    if echoable(root_type) {
        conflict(format!(
            "{schema_path} must have top-level type \"object\"; got \"{root_type}\""
        ))
    } else {
        conflict(format!("{schema_path} must have top-level type \"object\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_root_messages_drop_what_cannot_be_echoed() {
        let long = "<".repeat(257);
        assert_eq!(
            function_schema_root("lookup", "string").message,
            "Invalid schema for function 'lookup': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"string\"'."
        );
        assert_eq!(
            function_schema_root(&long, "string").message,
            "Invalid schema for function: schema must be a JSON Schema of 'type: \"object\"', got 'type: \"string\"'."
        );
        assert_eq!(
            function_schema_root("lookup", &long).message,
            "Invalid schema for function 'lookup': schema must be a JSON Schema of 'type: \"object\"'."
        );
        assert_eq!(
            text_schema_root("agent.text.format.schema", "array").message,
            "agent.text.format.schema must have top-level type \"object\"; got \"array\""
        );
        assert_eq!(
            text_schema_root("text.format.schema", &long).message,
            "text.format.schema must have top-level type \"object\""
        );
        assert_eq!(
            duplicate_function_name(&long).message,
            "duplicate function tool name"
        );
        assert_eq!(function_schema_root("a", "b").param, None);
    }
}
