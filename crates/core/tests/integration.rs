//! The integration tests of `core`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod inspect_route;
mod oauth_https;
mod projects_isolation;
mod runtime_peer_abandon_admitted;
mod runtime_peer_calls;
mod runtime_peer_command_execution;
mod runtime_peer_delete;
mod runtime_peer_environments;
mod runtime_peer_foreign_link;
mod runtime_peer_install;
mod runtime_peer_later_turn;
mod runtime_peer_links;
mod runtime_peer_mcp_workspace;
mod runtime_peer_preparation_bound;
mod runtime_peer_unconfirmed_receipt;
mod runtime_peer_web_search;
mod session_agent_row;
mod sse_slow_reader;
mod vault_credentials;
