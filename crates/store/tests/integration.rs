//! The integration tests of `store`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod agents_pages;
mod api_keys;
mod claims;
mod concurrent_admissions;
mod environments;
mod group_commit;
mod projects;
mod projects_migration;
mod session_create_keys;
mod session_events;
mod session_gauges;
mod session_row_pages;
mod sessions_atomic;
mod sessions_delete;
mod sessions_filter;
mod sessions_forget;
mod sessions_pages;
mod sessions_unsettled;
mod sessions_write;
mod subagents;
mod traces;
mod vaults;
mod wal_bounded;
mod write_lock_held;
