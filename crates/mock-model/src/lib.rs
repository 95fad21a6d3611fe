//! A scripted, deterministic model server for offline runs and tests.
//!
//! Real harnesses (Codex, Claude Code) need a model provider. This crate is the one stand-in
//! the project allows: it speaks OpenAI Responses (`POST /v1/responses`), Anthropic Messages
//! (`POST /v1/messages`, `/v1/messages/count_tokens`, `HEAD /`) and OpenAI Chat Completions
//! (`POST /v1/chat/completions`), streaming and not, on loopback. A [`Scenario`] of rules decides
//! each reply; without one, a built-in default plays one tool round-trip per turn. Every request
//! and reply goes to a journal that tests read back.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario, When};
//!
//! let scenario = Scenario::new(vec![Rule::new(When::default(), Reply::text("hello").deltas(2))]);
//! let model = MockModel::start(MockConfig::loopback().with_scenario(scenario)).await?;
//! let base = model.base_url(); // http://127.0.0.1:PORT — point the harness at it
//! # let _ = base;
//! // … run the harness …
//! let journal = model.journal(); // what the harness sent, and what it got
//! # let _ = journal;
//! model.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! The scenario format and the journal are documented in `docs/mock-model.md`.

mod answer;
mod anthropic;
mod builtin;
mod chat;
pub mod cli;
mod delivery;
mod error;
mod journal;
mod mcp_scenario;
mod request;
mod responses;
mod scenario;
mod schema_instance;
mod script;
mod server;
mod shell;
mod sse;
mod usage;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use error::ScenarioError;
pub use mcp_scenario::mcp_tool_turn;
pub use request::{ItemKind, Protocol};
pub use scenario::{
    DropReply, ErrorReply, Reply, Rule, Scenario, ToolCall, WebSearch, WebSource, When,
};
pub use schema_instance::minimal_instance;
pub use usage::count_tokens;

/// How to start a [`MockModel`].
#[derive(Debug, Clone)]
pub struct MockConfig {
    /// Where to listen; port 0 picks a free port.
    pub listen: SocketAddr,
    /// The rules; `None` means the built-in default for every request.
    pub scenario: Option<Scenario>,
    /// Also append the journal to this JSON-lines file.
    pub journal_path: Option<PathBuf>,
}

impl MockConfig {
    /// `127.0.0.1:0`, built-in default replies, in-memory journal only.
    pub fn loopback() -> Self {
        MockConfig {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            scenario: None,
            journal_path: None,
        }
    }

    pub fn with_scenario(mut self, scenario: Scenario) -> Self {
        self.scenario = Some(scenario);
        self
    }

    pub fn with_journal_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.journal_path = Some(path.into());
        self
    }
}

impl Default for MockConfig {
    fn default() -> Self {
        Self::loopback()
    }
}

/// A running mock model server. It stops when dropped or on [`MockModel::shutdown`].
#[derive(Debug)]
pub struct MockModel {
    addr: SocketAddr,
    shared: Arc<server::Shared>,
    shutdown: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl MockModel {
    /// Binds `config.listen` and starts serving on the current tokio runtime.
    pub async fn start(config: MockConfig) -> anyhow::Result<MockModel> {
        if let Some(scenario) = &config.scenario {
            scenario.validate()?;
        }
        let journal_path = config.journal_path.as_deref();
        let journal = journal::Journal::open(journal_path).with_context(|| {
            let path = journal_path.map(|p| p.display().to_string());
            format!("cannot open journal {}", path.unwrap_or_default())
        })?;
        let listener = TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("cannot listen on {}", config.listen))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(server::Shared {
            script: Mutex::new(script::Script::new(config.scenario)),
            journal,
        });
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(server::serve(listener, shared.clone(), shutdown.clone()));
        Ok(MockModel {
            addr,
            shared,
            shutdown,
            task: Some(task),
        })
    }

    /// `http://HOST:PORT`, without a trailing slash or `/v1`. Anthropic clients take it as is
    /// (`ANTHROPIC_BASE_URL`); OpenAI clients want `{base_url}/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A copy of the journal so far: one JSON object per request, in arrival order.
    pub fn journal(&self) -> Vec<Value> {
        self.shared.journal.entries()
    }

    /// The journal from entry `from` on (0-based, as [`MockModel::journal`]'s indexes): what
    /// arrived after a mark taken as `journal().len()`.
    pub fn journal_from(&self, from: usize) -> Vec<Value> {
        self.shared.journal.entries_from(from)
    }

    /// When each journal entry was recorded, index for index with [`MockModel::journal`]: after
    /// the request body was read and parsed, before the first byte of the reply left. For
    /// latency measurements in benchmarks; the journal's JSON carries no time, so it stays
    /// deterministic.
    pub fn journal_recorded_at(&self) -> Vec<std::time::Instant> {
        self.shared.journal.recorded_at()
    }

    /// Stops accepting, closes open connections and waits for the server task to end.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
