//! The integration tests of `codex`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod cancel_turn;
mod evict_resume;
mod function_call_receipt;
mod function_error_result;
mod function_result_images;
mod host_checkout;
mod managed_requirements;
mod mock_model_round_trip;
mod output_schema;
mod remote_control_off;
mod shared_cancel;
mod shared_isolation;
mod shared_memory;
mod shared_process_count;
mod shared_process_death;
mod shared_process_hung;
mod shared_release_without_slot;
mod shared_turn_latency;
mod steer_turn;
mod text_turn;
mod turn_deadline;
mod web_search_and_code_mode;
mod web_search_call;
mod workspace;
