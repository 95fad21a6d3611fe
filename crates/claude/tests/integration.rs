//! The integration tests of `claude`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod api_error;
mod cancel_turn;
mod evict_resume;
mod function_call_receipt;
mod function_error_result;
mod function_result_images;
mod function_result_refused;
mod host_checkout;
mod steer_turn;
mod structured_output;
mod text_turn;
mod tool_search;
mod turn_deadline;
mod user_images;
mod web_search_call;
mod web_search_control;
mod workspace;
