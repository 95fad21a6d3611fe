//! The execution parser.
//!
//! Turns the `tools`, `text` and related members of Agent and Session request bodies into the
//! typed, defaulted model in [`model`], enforcing every protocol rule of the execution-tools
//! specification. It never consults a harness: harness admission is `switchboard-harness`.
//!
//! Entry points, each taking an already-parsed body (the HTTP body gate checked content type,
//! UTF-8, JSON syntax, duplicate keys and the object root):
//!
//! - [`parse_agent_create`] / [`parse_agent_update`]: the saved form;
//! - [`parse_inline_agent`] (or its two halves) and [`resolve`]: Session create's `agent`;
//! - [`parse_x_agents_core`]: the extension object of all three bodies;
//! - [`parse_session_create`] / [`parse_session_update`]: the Session bodies around the agent;
//! - [`parse_input_events`]: the input events body (messages, tool results, cancel);
//! - [`binary64_lossless`]: the number rule some harnesses need at Session admission;
//! - [`public`]: the response shapes.
//!
//! Every error is a [`ValidationError`] (400 `invalid_request_error`); [`error_messages`] holds every
//! text. JSON numbers are never converted: schemas and arguments keep the caller's decimal text
//! (serde_json `arbitrary_precision`), except that serde_json writes an exponent as `e+N`/`e-N`
//! (`1E2` is echoed as `1e+2`, the same digits and value).

mod agent;
pub mod declarations;
pub mod error;
pub mod error_messages;
mod function;
pub mod hosted_environment;
mod http_url;
mod inline;
mod input_events;
mod json_path;
mod mcp;
mod mcp_transport;
mod metadata;
pub mod number;
mod object_reader;
pub mod public;
mod rfc3339;
mod scalar;
mod schema_root;
mod session_request;
mod settings;
mod text;
mod tool_form;
mod tools;
pub mod vault;
mod web_search;
mod x_agents_core;

pub use agent::{MAX_NAME_CHARS, parse_agent_create, parse_agent_update};
pub use declarations::*;
pub use error::ValidationError;
pub use inline::{
    INLINE_AGENT_PATH, InlineAgent, ResolvedAgent, parse_inline_agent, parse_inline_agent_members,
    resolve,
};
pub use input_events::{
    CANCEL_EVENT, InputEvent, MAX_INPUT_EVENTS, MESSAGE_EVENT, TOOL_RESULT_EVENT, ToolOutput,
    ToolResultEvent, parse_input_events,
};
pub use metadata::parse_metadata;
pub use number::binary64_lossless;
pub use session_request::{
    EnvironmentRequest, InputMessage, SessionAgentUpdate, SessionCreate, SessionUpdate,
    parse_session_create, parse_session_update, public_part,
};
pub use settings::DEFAULT_MAX_CONCURRENT_SUBAGENTS;
pub use switchboard_vocabulary::InputPart;
pub use tool_form::ToolForm;
pub use tools::{MAX_TOOLS_JSON_BYTES, TOOL_TYPES, check_tool_conflicts, parse_tools};
pub use x_agents_core::{MAX_API_KEY_BYTES, parse_x_agents_core};
