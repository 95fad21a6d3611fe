//! The integration tests of `harness`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod binary64;
mod capabilities;
mod declarations;
mod functions;
mod harness_config;
mod input_admission;
mod mcp;
mod native_names;
mod placement;
mod provider;
mod structured_output;
mod tool_search;
mod web_search_ptc;
