//! `{"type": "function"}`: an application function the caller runs.
//!
//! `name`, `description` and `parameters` (a JSON Schema object) are required;
//! `defer_loading` defaults to false and cannot be null; `async` is official resource data,
//! null when not sent. Names are nonblank here; their uniqueness and the schema root are
//! whole-list rules checked after every other member (see `tools::check_tool_conflicts`).
//! The schema is kept exactly as sent, numbers included.

use serde_json::Value;

use crate::declarations::FunctionTool;
use crate::error::ValidationError;
use crate::error_messages;
use crate::object_reader::ObjectReader;
use crate::scalar;

const MEMBERS: &[&str] = &[
    "type",
    "name",
    "description",
    "parameters",
    "defer_loading",
    "async",
];

pub fn parse(obj: &ObjectReader) -> Result<FunctionTool, ValidationError> {
    let (mut name, mut description, mut parameters) = (None, None, None);
    let (mut defer_loading, mut is_async) = (false, None);
    obj.read(MEMBERS, |key, value, path| {
        match key {
            "name" => name = Some(function_name(value, path)?),
            "description" => description = Some(scalar::string(value, path)?.to_string()),
            "parameters" => parameters = Some(Value::Object(scalar::free_object(value, path)?)),
            "defer_loading" => defer_loading = scalar::boolean(value, path)?,
            // Nullable so that a read-back tool (which shows `"async": null`) can be sent again.
            "async" => is_async = scalar::nullable_boolean(value, path)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(FunctionTool {
        name: obj.required(name, "name")?,
        description: obj.required(description, "description")?,
        parameters: obj.required(parameters, "parameters")?,
        defer_loading,
        is_async,
    })
}

/// A name with at least one non-whitespace character. Whitespace is Rust's White_Space plus
/// U+FEFF, the union of Go `unicode.IsSpace` and ECMAScript `trim` that core-contracts names.
fn function_name(value: &Value, path: &str) -> Result<String, ValidationError> {
    let name = scalar::string(value, path)?;
    if name.chars().all(|c| c.is_whitespace() || c == '\u{FEFF}') {
        return Err(error_messages::blank_function_name(path));
    }
    Ok(name.to_string())
}
