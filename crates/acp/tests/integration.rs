//! The integration tests of `acp`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod cancel_turn;
mod claude_standin;
mod evict_resume;
mod function_call_receipt;
mod function_error_result;
mod minimax_profile;
mod minimax_self_hosted;
mod native_timeout;
mod steer;
mod text_turn;
