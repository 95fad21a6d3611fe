//! The integration tests of `switchboard`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod admission_table;
mod early_rejections;
mod first_run_cli;
mod pins_agree;
mod queued_first_turn;
mod remote_runtime_enrolled_routing;
mod remote_runtime_enrollment;
mod remote_runtime_environment_isolation;
mod remote_runtime_lost_mid_turn;
mod remote_runtime_reconnects;
mod remote_runtime_replaced;
mod remote_runtime_self_hosted;
mod remote_runtime_session;
mod remote_runtime_version_refused;
mod remote_runtime_wrong_token;
mod revocation_ends_streams;
mod sigterm_mid_turn;
mod slow_clients;
mod store_writability;
