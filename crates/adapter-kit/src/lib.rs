//! What every harness adapter needs and no harness owns.
//!
//! The adapters (`switchboard-codex`, `switchboard-claude`) each speak one native protocol; the
//! machinery around that protocol is the same for all of them and lives here, one idea a module:
//!
//! - [`adapter`]: the `Adapter` every harness shares, over what the harness adds.
//! - [`binary`]: a harness pinned to one version, run as its native executable.
//! - [`paths`]: paths from flags and the environment, made absolute once (one helper for all).
//! - [`state_dir`]: a Session's state directory, hermetic and kept across evictions.
//! - [`process`]: one hermetic native process, from spawn to shutdown.
//! - [`cpu`]: one CPU of its own for a process that works best on one, spread over the CPUs.
//! - [`jsonl`]: JSON lines on the process's stdio, and our requests waiting for answers.
//! - [`jsonrpc`]: a JSON-RPC client on those lines (codex's app-server, ACP agents).
//! - [`receipts`]: a Turn's function calls and the receipts of their results.
//! - [`turn`]: one running Turn, a single driver task with a deadline that ends exactly once.
//! - [`executor`]: the executor's process slot, one process and one Turn at a time, evictable.
//! - [`unix_socket`]: Unix sockets bound at any depth (a sandbox's way to the host side).
//!
//! With the feature `test-support`, `test_support` holds what the adapters' integration tests
//! share: binary discovery (fail in CI, skip loudly elsewhere), bounded reads of a Turn, the
//! mock model; `test_workspace` the workspace placements they run in (a temporary directory,
//! or a plain bubblewrap sandbox around it).
//!
//! This crate depends on the adapter boundary (`switchboard-protocol`) only (and, for tests, on
//! the mock model): never on Core or the Runtime, and never on a harness's protocol.

pub mod adapter;
pub mod binary;
pub mod cpu;
pub mod executor;
pub mod jsonl;
pub mod jsonrpc;
pub mod paths;
pub mod process;
pub mod receipts;
pub mod state_dir;
#[cfg(feature = "test-support")]
pub mod test_support;
#[cfg(feature = "test-support")]
pub mod test_workspace;
pub mod turn;
pub mod unix_socket;
