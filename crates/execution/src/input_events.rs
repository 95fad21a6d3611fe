//! The input events body, `POST /v1/agents/sessions/{id}/events`: `{"events": [...]}`.
//!
//! A batch holds 0–64 events, each tagged by `type` (core-contracts §3.1):
//!
//! - `agent.session.input.message` `{input}`: user messages, in the forms of Session create's
//!   `input` (a string, or a nonempty list of messages);
//! - `agent.session.input.cancel` `{}`;
//! - `agent.session.input.tool_result` `{turn_id*, call_id*, success*, output?, error?}`, where
//!   `output` is a string or a list of `input_text`/`input_image` parts and both `output` and
//!   `error` may be null.
//!
//! `[]` is valid (the route answers 202 without admitting anything); `null` is not. The batch
//! length is checked before its elements, then each event in order, with the usual order inside
//! an object (tag, unknown members, values, missing members). An empty `turn_id` or a blank
//! `call_id` is a generic `invalid_request_error`.
//!
//! A tool result keeps what retry identity needs: [`ToolResultEvent::submission`] is the event
//! exactly as received (compact JSON, member order and number spelling kept), and the public
//! `output` is the JSON as sent ([`ToolResultEvent::public_output`]).

use serde_json::{Map, Value};

use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::json_path::element_path;
use crate::object_reader::ObjectReader;
use crate::scalar;
use crate::session_request::{InputMessage, parse_input, parse_parts};
pub use switchboard_vocabulary::FunctionOutput as ToolOutput;

/// The most events one request may carry.
pub const MAX_INPUT_EVENTS: usize = 64;

pub const MESSAGE_EVENT: &str = "agent.session.input.message";
pub const CANCEL_EVENT: &str = "agent.session.input.cancel";
pub const TOOL_RESULT_EVENT: &str = "agent.session.input.tool_result";

/// The supported event types, in the SDK's order (the supported-values message lists them so).
const EVENT_TYPES: &[&str] = &[MESSAGE_EVENT, CANCEL_EVENT, TOOL_RESULT_EVENT];

const TOOL_RESULT_MEMBERS: &[&str] = &["type", "turn_id", "call_id", "success", "output", "error"];

/// One input event.
#[derive(Debug, Clone, PartialEq)]
pub enum InputEvent {
    /// At least one message.
    Message {
        input: Vec<InputMessage>,
    },
    ToolResult(ToolResultEvent),
    Cancel,
}

/// `agent.session.input.tool_result`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultEvent {
    /// Nonempty.
    pub turn_id: String,
    /// Not blank.
    pub call_id: String,
    pub success: bool,
    /// `None` when `output` was absent or null.
    pub output: Option<ToolOutput>,
    /// `None` when `error` was absent or null.
    pub error: Option<String>,
    /// Whether the `output` member was sent (null included).
    pub output_present: bool,
    /// Whether the `error` member was sent (null included).
    pub error_present: bool,
    /// `output` exactly as sent; null when absent.
    pub output_json: Value,
    /// The event exactly as received, compact JSON text (member order and number spelling kept:
    /// serde_json `arbitrary_precision` and `preserve_order` are on in this workspace). Retry
    /// identity compares this.
    pub submission: String,
}

impl ToolResultEvent {
    /// The public `output`: the string, the parts array exactly as sent, or null.
    pub fn public_output(&self) -> Value {
        self.output_json.clone()
    }
}

/// Parses an input events body into its events, in order.
pub fn parse_input_events(body: &Map<String, Value>) -> Result<Vec<InputEvent>, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let mut events = None;
    obj.read(&["events"], |_, value, path| {
        let items = scalar::array(value, path)?;
        if items.len() > MAX_INPUT_EVENTS {
            return Err(error_messages::array_too_long(
                path,
                MAX_INPUT_EVENTS,
                items.len(),
            ));
        }
        events = Some(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| parse_event(item, &element_path(path, i)))
                .collect::<Result<Vec<_>, _>>()?,
        );
        Ok(())
    })?;
    obj.required(events, "events")
}

fn parse_event(value: &Value, path: &str) -> Result<InputEvent, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    match obj.tag(EVENT_TYPES)? {
        MESSAGE_EVENT => {
            let mut input = None;
            obj.read(&["type", "input"], |key, value, path| {
                if key == "input" {
                    input = Some(parse_input(value, path)?);
                }
                Ok(())
            })?;
            Ok(InputEvent::Message {
                input: obj.required(input, "input")?,
            })
        }
        CANCEL_EVENT => {
            obj.read_tag_only()?;
            Ok(InputEvent::Cancel)
        }
        _ => parse_tool_result(&obj, value).map(InputEvent::ToolResult),
    }
}

fn parse_tool_result(
    obj: &ObjectReader,
    value: &Value,
) -> Result<ToolResultEvent, ValidationError> {
    let (mut turn_id, mut call_id, mut success) = (None, None, None);
    let (mut output, mut error) = (None, None);
    let (mut output_present, mut error_present) = (false, false);
    let mut output_json = Value::Null;
    obj.read(TOOL_RESULT_MEMBERS, |key, value, path| {
        match key {
            "turn_id" => {
                let text = scalar::string(value, path)?;
                if text.is_empty() {
                    return Err(error_messages::empty_turn_id(path));
                }
                turn_id = Some(text.to_string());
            }
            "call_id" => {
                let text = scalar::string(value, path)?;
                if is_blank(text) {
                    return Err(error_messages::blank_call_id(path));
                }
                call_id = Some(text.to_string());
            }
            "success" => success = Some(scalar::boolean(value, path)?),
            "output" => {
                output_present = true;
                output = parse_output(value, path)?;
                output_json = value.clone();
            }
            "error" => {
                error_present = true;
                error = scalar::nullable_string(value, path)?.map(str::to_string);
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(ToolResultEvent {
        turn_id: obj.required(turn_id, "turn_id")?,
        call_id: obj.required(call_id, "call_id")?,
        success: obj.required(success, "success")?,
        output,
        error,
        output_present,
        error_present,
        output_json,
        // Writing a Value into a String cannot fail.
        submission: serde_json::to_string(value).unwrap_or_default(),
    })
}

/// `output`: null, a string, or a list of `input_text`/`input_image` parts.
fn parse_output(value: &Value, path: &str) -> Result<Option<ToolOutput>, ValidationError> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(ToolOutput::Text(text.clone()))),
        Value::Array(items) => Ok(Some(ToolOutput::Parts(parse_parts(items, path)?))),
        other => Err(error_messages::invalid_type(
            path,
            kind::STRING_OR_ARRAY,
            other,
        )),
    }
}

/// Empty or only whitespace: Rust's White_Space plus U+FEFF, the union of Go
/// `unicode.IsSpace` and ECMAScript `trim` that core-contracts names (as for function names).
fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || c == '\u{FEFF}')
}
