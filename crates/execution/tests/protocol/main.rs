//! Protocol validation of the execution parser, one behaviour area per module (the agent
//! forms, the Session create and update bodies, and the input events body).
//!
//! Cases that apply to every agent form run through [`common::each_form`]: Agent create
//! (`{"model": "m", ...}`), Agent update (`{...}`) and Session create's inline agent
//! (`{"model": "m", ...}` at path `agent`), with `{p}` in the expected param and message
//! standing for the path prefix (`""` or `"agent."`).

// Test helpers outside `#[test]` functions may panic too (clippy.toml allows it only inside them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod agent_create;
mod agent_update;
mod conflicts_and_order;
mod defaults;
mod functions;
mod inline_agent;
mod input_events;
mod mcp;
mod numbers;
mod public_shapes;
mod session_create;
mod session_update;
mod text;
mod tool_union;
mod web_search;
mod x_agents_core;
