//! JSON-RPC over JSONL stdio, as `codex app-server` speaks it: the adapter kit's client
//! ([`switchboard_adapter_kit::jsonrpc`]) in codex's dialect (no `"jsonrpc"` member).
//!
//! Server → client requests (`item/tool/call`, approvals) and notifications (`item/started`,
//! `turn/completed`, …) arrive, in order, on one [`Inbound`] channel: their relative order is
//! what the Turn logic relies on (a tool call request precedes its `item/completed`).

use std::ops::Deref;
use std::sync::Arc;

use switchboard_adapter_kit::jsonrpc::{Client, Dialect};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;

pub use switchboard_adapter_kit::jsonrpc::{Message as Inbound, RpcError};

const CODEX: Dialect = Dialect {
    peer: "codex",
    version_member: false,
};

/// The client side of one app-server connection.
pub struct Connection(Client);

impl Connection {
    /// Starts the reader task and returns the connection with its inbound channel.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
    ) -> (Arc<Connection>, mpsc::UnboundedReceiver<Inbound>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let client = Client::start(stdin, stdout, CODEX, tx);
        (Arc::new(Connection(client)), rx)
    }
}

impl Deref for Connection {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.0
    }
}
