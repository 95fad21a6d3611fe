//! The integration tests of `mock-model`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

mod anthropic_json;
mod anthropic_streaming;
mod builtin_default;
mod chat_completions;
mod concurrent_requests;
mod dropped_connection;
mod error_replies;
mod journal;
mod last_output_arguments;
mod malformed_requests;
mod pacing;
mod responses_json;
mod responses_streaming;
mod scenario_file;
mod scenario_matching;
mod schema_instances;
mod shell_command;
mod structured_output;
mod tool_search;
mod web_search;
