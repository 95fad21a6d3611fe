//! The Runtime: runs Sessions on native harnesses behind the Core–Runtime protocol.
//!
//! Core never talks to a harness. It sends protocol frames (`execution_prepare`,
//! `execution_start`, `function_result`, …) to a Runtime, which drives the harness's adapter and
//! answers with frames (`preparation_status`, output, `done`, receipts). The pieces:
//!
//! - [`install`]: the pinned npm package and native executable of each harness (one table).
//! - [`installer`]: installs a pinned package into the data dir (`harness install`, `serve`).
//! - [`locate`]: where an executable is (environment, data dir, then the repository).
//! - [`probe`]: whether it runs and is the pinned version; shared with `switchboard harness`.
//! - [`advertise`]: a heartbeat entry, capabilities narrowed to the harness declaration.
//! - [`registry`]: the adapters this Runtime runs, and the heartbeat built from them.
//! - [`capacity`]: the default bound on live harness processes, from the machine's memory.
//! - [`sessions`]: prepared executors, the bound on live processes (LRU eviction of idle
//!   ones, a queue of Turns waiting for a slot) and running Turns.
//! - [`warm`]: started, initialized harness processes waiting for new Sessions, in the
//!   same slots.
//! - [`frame_loop`]: the frame handling every transport shares.
//! - [`metrics`]: the names of the figures the Runtime records.
//! - [`local`]: [`LocalRuntime`], the in-process transport (two channels).
//! - [`remote`]: [`run_remote`], the WebSocket transport that dials Core.
//! - [`workspace`]: workspace directories, path safety, the bubblewrap sandbox and its
//!   provider relay, setup commands.

pub mod advertise;
pub mod capacity;
pub mod frame_loop;
pub mod install;
pub mod installer;
pub mod local;
pub mod locate;
pub mod mcp_env;
pub mod mcp_environment;
pub mod mcp_gateway;
pub mod metrics;
pub mod probe;
pub mod registry;
pub mod remote;
pub mod sessions;
pub mod warm;
pub mod workspace;

pub use frame_loop::{RuntimeOptions, serve_frames};
pub use install::HarnessInstall;
pub use local::LocalRuntime;
pub use locate::Locator;
pub use probe::{Installation, Status, probe};
pub use registry::Registry;
pub use remote::{RemoteError, RemoteOptions, run_remote};
pub use sessions::Notice;
/// The one helper that makes flag and environment paths absolute (`switchboard_adapter_kit`).
pub use switchboard_adapter_kit::paths;
