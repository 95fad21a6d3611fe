//! The integration tests of `runtime`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod advertisement_unavailable;
mod harness_cpus;
mod launch_limit;
mod local_function_turn;
mod local_idle_eviction;
mod local_release_forgets;
mod local_text_turn;
mod mcp_environment_origin;
mod mcp_gateway;
mod mcp_gateway_tls;
mod mcp_http;
mod mcp_stdio_allowed_tools;
mod mcp_stdio_env_unset;
mod mcp_stdio_managed;
mod mcp_stdio_required;
mod mcp_stdio_self_hosted;
mod process_limit_lru_eviction;
mod process_limit_queued_cancel;
mod process_limit_queued_turn;
mod process_limit_shared;
mod process_limit_shared_release;
mod remote_handshake;
mod remote_version_refused;
mod shared_home_goes_with_its_last_session;
mod shared_release_after_restart;
mod warm_evict_resume;
mod warm_exited_shed_first;
mod warm_first_turn_no_spawn;
mod warm_live_bound;
mod warm_primer_leaves_no_trace;
mod warm_session_configuration;
mod workspace_advertisement;
mod workspace_codex_turn;
mod workspace_files_before_first_turn;
mod workspace_managed_turn;
mod workspace_network_disabled;
mod workspace_path_safety;
mod workspace_remove;
mod workspace_sandbox_isolation;
mod workspace_self_hosted;
mod workspace_setup_failure;
