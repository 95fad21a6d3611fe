//! Every message the execution parser returns, in one place.
//!
//! The HTTP layer and the tests share these builders, so a wording change happens here once.
//! Three families:
//!
//! - **Protocol forms** (core-contracts §2.2, observed from the official service): missing,
//!   unknown, wrong type, unsupported value, integer bounds, string lengths. `param` is the JSON
//!   path of the member.
//! - **Conflicts** (param null): duplicate function names, a repeated `web_search` or
//!   `tool_search`, a non-object schema root; Session create's initial-input rules.
//! - **Prose rules** (MCP, model provider): the spec's exact sentences where it has one, and
//!   messages of our own in the same plain style where it does not. `param` is still the JSON
//!   path of the offending member, so callers can point at it.
//!
//! Caller-supplied text (member names, enum values, function names, schema root types, header
//! names) is echoed only when it is at most [`MAX_ECHO_BYTES`] of printable UTF-8
//! (core-contracts §2). When it is not, the message drops the value, and a path that would
//! carry it becomes a null `param`, because the path itself is caller text then.

use serde_json::{Number, Value};
use switchboard_wire::ErrorCode;

use crate::error::{GENERIC_CODE, ValidationError};

/// The longest caller value a message repeats.
pub const MAX_ECHO_BYTES: usize = 256;

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

/// True when `text` may be repeated in a message: at most [`MAX_ECHO_BYTES`] of printable
/// characters.
pub fn echoable(text: &str) -> bool {
    text.len() <= MAX_ECHO_BYTES && text.chars().all(printable)
}

/// Printable in the sense of Go's `unicode.IsPrint` (letters, marks, numbers, punctuation,
/// symbols and the ASCII space), approximated without Unicode category tables: controls, every
/// other space or separator, format characters, private use, noncharacters and U+FFFD (the
/// trace of invalid UTF-8) are not printable.
fn printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    let u = c as u32;
    let format = matches!(
        u,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    );
    let private_use = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let noncharacter = matches!(u, 0xFDD0..=0xFDEF) || (u & 0xFFFE) == 0xFFFE;
    !(c.is_control()
        || c.is_whitespace()
        || format
        || private_use
        || noncharacter
        || c == '\u{FFFD}')
}

/// `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`: the official list form (with the serial comma).
pub fn supported_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("'{v}'")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}

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

// ---------------------------------------------------------------------------------------------
// Protocol forms (official wording)
// ---------------------------------------------------------------------------------------------

pub fn missing(path: &str) -> ValidationError {
    at(
        path,
        |p| format!("Missing required parameter: '{p}'."),
        || "Missing required parameter.".to_string(),
    )
    .with_code(ErrorCode::MissingRequiredParameter)
}

pub fn unknown(path: &str) -> ValidationError {
    at(
        path,
        |p| format!("Unknown parameter: '{p}'."),
        || "Unknown parameter.".to_string(),
    )
    .with_code(ErrorCode::UnknownParameter)
}

pub fn invalid_type(path: &str, expected: &str, got: &Value) -> ValidationError {
    let got = json_kind(got);
    at(
        path,
        |p| format!("Invalid type for '{p}': expected {expected}, but got {got} instead."),
        || format!("Invalid type: expected {expected}, but got {got} instead."),
    )
    .with_code(ErrorCode::InvalidType)
}

/// An enum member outside its supported values. The param stays the path even when the value
/// cannot be echoed: the path is ours, the value is the caller's.
pub fn invalid_value(path: &str, value: &str, supported: &[&str]) -> ValidationError {
    let list = supported_list(supported);
    let message = if echoable(value) {
        format!("Invalid value: '{value}'. Supported values are: {list}.")
    } else {
        format!("Invalid value. Supported values are: {list}.")
    };
    rule(path, &message).with_code(ErrorCode::InvalidValue)
}

/// `got` is echoed when it is an integer a 64-bit machine word holds (as observed officially,
/// an out-of-range integer drops the "but got" clause).
pub fn below_minimum(path: &str, min: u64, got: &Number) -> ValidationError {
    let tail = got_clause(got);
    at(
        path,
        |p| format!("Invalid '{p}': integer below minimum value. Expected a value >= {min}{tail}."),
        || format!("Invalid value: integer below minimum value. Expected a value >= {min}{tail}."),
    )
    .with_code(ErrorCode::IntegerBelowMinValue)
}

pub fn above_maximum(path: &str, max: u64, got: &Number) -> ValidationError {
    let tail = got_clause(got);
    at(
        path,
        |p| format!("Invalid '{p}': integer above maximum value. Expected a value <= {max}{tail}."),
        || format!("Invalid value: integer above maximum value. Expected a value <= {max}{tail}."),
    )
    .with_code(ErrorCode::IntegerAboveMaxValue)
}

fn got_clause(got: &Number) -> String {
    if got.is_i64() || got.is_u64() {
        format!(", but got {got} instead")
    } else {
        String::new()
    }
}

/// Lengths count characters (Unicode scalar values), as the official limits do.
pub fn string_too_long(path: &str, max: usize, len: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': string too long. Expected a string with maximum length {max}, but got a string with length {len} instead."
            )
        },
        || {
            format!(
                "Invalid value: string too long. Expected a string with maximum length {max}, but got a string with length {len} instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

pub fn empty_string(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': empty string. Expected a string with minimum length 1, but got an empty string instead."
            )
        },
        || {
            "Invalid value: empty string. Expected a string with minimum length 1, but got an empty string instead."
                .to_string()
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

pub fn too_many_properties(path: &str, max: usize, got: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': too many properties. Expected an object with at most {max} properties, but got an object with {got} properties instead."
            )
        },
        || {
            format!(
                "Invalid value: too many properties. Expected an object with at most {max} properties, but got an object with {got} properties instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// A property name over the limit (`metadata` keys). `object_path` names the object; the param
/// is the member's path.
pub fn property_name_too_long(
    object_path: &str,
    key: &str,
    max: usize,
    len: usize,
) -> ValidationError {
    let member = crate::json_path::member_path(object_path, key);
    let tail = format!(
        "Expected a string with maximum length {max}, but got a string with length {len} instead."
    );
    if echoable(&member) {
        ValidationError::new(
            member,
            format!("Invalid property name in '{object_path}': '{key}' is too long. {tail}"),
        )
    } else {
        ValidationError::new(
            None,
            format!("Invalid property name in '{object_path}': a name is too long. {tail}"),
        )
    }
    .with_code(ErrorCode::InvalidValue)
}

// ---------------------------------------------------------------------------------------------
// Conflicts (param null), checked after every member of the body
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Local rules with our own wording, in the official style
// ---------------------------------------------------------------------------------------------

/// A function name that is empty or only whitespace ("Names are nonblank").
pub fn blank_function_name(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': blank string. Expected a function name with at least one non-whitespace character."
            )
        },
        || {
            "Invalid value: blank string. Expected a function name with at least one non-whitespace character.".to_string()
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// The tool list cap: 3 MiB of compact UTF-8 JSON (pinned SDK documentation).
pub fn tools_too_large(path: &str, max: usize, got: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': array too large. Expected at most {max} bytes of compact JSON, but got {got} bytes instead."
            )
        },
        || {
            format!(
                "Invalid value: array too large. Expected at most {max} bytes of compact JSON, but got {got} bytes instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// An array with fewer than one element where one is needed (a message list, a message's
/// content). Ours, in the form of [`empty_string`].
pub fn empty_array(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': empty array. Expected an array with minimum length 1, but got an empty array instead."
            )
        },
        || {
            "Invalid value: empty array. Expected an array with minimum length 1, but got an empty array instead."
                .to_string()
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

/// An array over its element limit (`events`: 64), in the form of [`string_too_long`].
pub fn array_too_long(path: &str, max: usize, len: usize) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': array too long. Expected an array with maximum length {max}, but got an array with length {len} instead."
            )
        },
        || {
            format!(
                "Invalid value: array too long. Expected an array with maximum length {max}, but got an array with length {len} instead."
            )
        },
    )
    .with_code(ErrorCode::InvalidValue)
}

// ---------------------------------------------------------------------------------------------
// Session create (core-contracts §2.3 step 1; param null, the spec's sentences)
// ---------------------------------------------------------------------------------------------

/// Spec wording: an `environment: {"type": "none"}` Session without initial input.
pub const CONVERSATION_ONLY_REQUIRES_INPUT: &str =
    "conversation-only sessions currently require initial input";
/// Spec wording: `stream: true` without initial input, on any placement but `self_hosted`.
pub const STREAMING_REQUIRES_INPUT: &str = "streaming session creation requires initial input";
/// Ours (the wire spec gives the rule, "allowed only with stream:true", not the text).
pub const STREAM_OPTIONS_REQUIRE_STREAM: &str =
    "The 'stream_options' parameter is only allowed when 'stream' is true.";

pub fn conversation_only_requires_input() -> ValidationError {
    conflict(CONVERSATION_ONLY_REQUIRES_INPUT.to_string())
}

pub fn streaming_requires_input() -> ValidationError {
    conflict(STREAMING_REQUIRES_INPUT.to_string())
}

/// `stream_options` sent without `stream: true`; param is the `stream_options` path.
pub fn stream_options_require_stream(path: &str) -> ValidationError {
    rule(path, STREAM_OPTIONS_REQUIRE_STREAM)
}

// ---------------------------------------------------------------------------------------------
// Input events (core-contracts §3.1: "generic 400", so the generic code; our wording)
// ---------------------------------------------------------------------------------------------

/// An empty `turn_id`: the official empty-string sentence under the generic code.
pub fn empty_turn_id(path: &str) -> ValidationError {
    empty_string(path).with_code(GENERIC_CODE)
}

/// A `call_id` that is empty or only whitespace.
pub fn blank_call_id(path: &str) -> ValidationError {
    at(
        path,
        |p| {
            format!(
                "Invalid '{p}': blank string. Expected a call ID with at least one non-whitespace character."
            )
        },
        || {
            "Invalid value: blank string. Expected a call ID with at least one non-whitespace character.".to_string()
        },
    )
}

// ---------------------------------------------------------------------------------------------
// MCP (core-contracts §5.1; the spec's sentences where it has one)
// ---------------------------------------------------------------------------------------------

/// Spec/stored wording.
pub const MCP_SERVER_LABEL: &str = "MCP tools require type=mcp and a nonempty server_label.";
/// The stored sentence without "query": the spec allows queries in `server_url`.
pub const MCP_SERVER_URL: &str =
    "MCP server_url must be an absolute HTTP(S) URL without credentials or fragment.";
/// Spec wording.
pub const MCP_REQUEST_METADATA: &str = "Nonempty MCP request_metadata is not supported yet.";
/// Spec wording.
pub const MCP_INLINE_AUTHORIZATION: &str =
    "Inline MCP authorization is not supported; use credential_id.";
/// Spec wording.
pub const MCP_INLINE_ENV: &str =
    "Inline MCP env is not supported; declare env_vars and set the values in the Environment.";
/// Stored wording.
pub const MCP_CREDENTIAL_ID: &str = "MCP credential_id must be null or a nonempty string.";
/// Stored wording.
pub const MCP_ALLOWED_TOOL_NAME: &str = "MCP allowed_tools requires nonempty string names.";
/// Ours: the spec gives the rule (credentials enter only through a Vault credential), not the text.
pub const MCP_AUTHORIZATION_HEADER: &str = "MCP headers cannot include Authorization; credentials enter only through a Vault credential (credential_id).";
/// Ours.
pub const MCP_STDIO_ORIGIN: &str =
    "MCP stdio servers run in the Environment; connection_origin must be environment.";
/// Ours.
pub const MCP_STDIO_CREDENTIAL: &str = "MCP stdio servers take no credential_id.";
/// Ours.
pub const MCP_STDIO_CWD: &str = "MCP stdio cwd must be an absolute path.";
/// Ours.
pub const MCP_STDIO_NUL: &str =
    "MCP stdio command, args, cwd and env_vars cannot contain NUL characters.";

/// A prose rule at `path` (param = path, null when the path is caller text that cannot be echoed).
pub fn rule(path: &str, message: &str) -> ValidationError {
    at(path, |_| message.to_string(), || message.to_string())
}

/// Ours: a header name that is not an HTTP token.
pub fn mcp_header_name(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!("Invalid MCP header name '{name}': header names must be HTTP tokens.")
    } else {
        "Invalid MCP header name: header names must be HTTP tokens.".to_string()
    };
    rule(path, &message)
}

/// Ours: a header value with characters HTTP clients would reject or rewrite.
pub fn mcp_header_value(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!(
            "Invalid value for MCP header '{name}': use visible ASCII characters, with spaces or tabs only between them."
        )
    } else {
        "Invalid MCP header value: use visible ASCII characters, with spaces or tabs only between them.".to_string()
    };
    rule(path, &message).with_code(ErrorCode::InvalidValue)
}

/// Ours: two header names equal ignoring ASCII case.
pub fn mcp_duplicate_header(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!("Duplicate MCP header '{name}': header names must be unique ignoring case.")
    } else {
        "Duplicate MCP header: header names must be unique ignoring case.".to_string()
    };
    rule(path, &message)
}

/// Ours: an `env_vars` entry that is not a variable name.
pub fn mcp_env_var_name(path: &str, name: &str) -> ValidationError {
    let message = if echoable(name) {
        format!(
            "Invalid MCP env_vars entry '{name}': expected a variable name of letters, digits and underscores that does not start with a digit."
        )
    } else {
        "Invalid MCP env_vars entry: expected a variable name of letters, digits and underscores that does not start with a digit."
            .to_string()
    };
    rule(path, &message)
}

// ---------------------------------------------------------------------------------------------
// x_agents_core.model_provider (core-contracts §7.3 gives the rules, not the text: ours)
// ---------------------------------------------------------------------------------------------

pub const PROVIDER_BASE_URL: &str = "model_provider.base_url must be an absolute HTTPS URL, or HTTP on a loopback host (127.0.0.0/8, ::1 or localhost), without credentials, query or fragment.";
pub const PROVIDER_API_KEY_CHARACTERS: &str =
    "model_provider.api_key cannot contain NUL, CR or LF characters.";

/// The key limit counts bytes (16 KiB), unlike the character limits of the official forms.
pub fn provider_api_key_too_long(path: &str, max: usize, len: usize) -> ValidationError {
    rule(
        path,
        &format!(
            "Invalid '{path}': string too long. Expected a string of at most {max} bytes, but got a string of {len} bytes instead."
        ),
    )
    .with_code(ErrorCode::InvalidValue)
}

pub fn provider_tokens_exceed_window(
    path: &str,
    context_window: u64,
    max_output_tokens: u64,
) -> ValidationError {
    rule(
        path,
        &format!(
            "Invalid '{path}': max_output_tokens exceeds context_window. Expected a value <= {context_window}, but got {max_output_tokens} instead."
        ),
    )
    .with_code(ErrorCode::InvalidValue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    #[test]
    fn supported_lists_use_the_serial_comma() {
        assert_eq!(supported_list(&["a"]), "'a'");
        assert_eq!(
            supported_list(&["text", "json_schema"]),
            "'text' and 'json_schema'"
        );
        assert_eq!(
            supported_list(&["disabled", "cached", "live"]),
            "'disabled', 'cached', and 'live'"
        );
    }

    #[test]
    fn echo_bound_is_256_bytes_of_printable_text() {
        assert!(echoable(&"<".repeat(256)));
        assert!(!echoable(&"<".repeat(257)));
        assert!(echoable("雪 and 🧪"));
        for bad in [
            "tab\tkey",
            "\u{fffd}",
            "line\u{2028}break",
            "nb\u{a0}sp",
            "zw\u{200b}",
            "\u{e000}",
            "\0",
        ] {
            assert!(!echoable(bad), "{bad:?}");
        }
    }

    #[test]
    fn unechoable_paths_become_null_params() {
        let e = unknown(&format!("tools[0].{}", "<".repeat(257)));
        assert_eq!((e.param, e.message.as_str()), (None, "Unknown parameter."));
        let e = unknown("tools[0].tab\tkey");
        assert_eq!((e.param, e.message.as_str()), (None, "Unknown parameter."));
        let e = unknown("reasoning.EFFORT");
        assert_eq!(e.param.as_deref(), Some("reasoning.EFFORT"));
        assert_eq!(e.message, "Unknown parameter: 'reasoning.EFFORT'.");
    }

    #[test]
    fn unechoable_values_are_dropped_but_the_param_stays() {
        let e = invalid_value("service_tier", &"<".repeat(257), &["auto", "flex"]);
        assert_eq!(e.param.as_deref(), Some("service_tier"));
        assert_eq!(
            e.message,
            "Invalid value. Supported values are: 'auto' and 'flex'."
        );
    }

    #[test]
    fn integer_bounds_echo_only_machine_integers() {
        let n = |s: &str| serde_json::from_str::<Number>(s).unwrap();
        assert_eq!(
            below_minimum("multi_agent.max_concurrent_subagents", 1, &n("0")).message,
            "Invalid 'multi_agent.max_concurrent_subagents': integer below minimum value. Expected a value >= 1, but got 0 instead."
        );
        assert_eq!(
            below_minimum("m", 1, &n("-99999999999999999999")).message,
            "Invalid 'm': integer below minimum value. Expected a value >= 1."
        );
        assert_eq!(
            above_maximum("m", 4294967295, &n("4294967296")).message,
            "Invalid 'm': integer above maximum value. Expected a value <= 4294967295, but got 4294967296 instead."
        );
    }

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
