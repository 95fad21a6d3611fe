//! JSON-RPC 2.0 over newline-delimited stdio, as ACP agents speak it.
//!
//! Three kinds of traffic share the pipe, split here so the rest of the adapter never parses
//! framing: responses to our requests (routed to the waiting caller by id), agent → client
//! requests (`session/request_permission`, which we must answer), and notifications
//! (`session/update`). Requests and notifications go, in arrival order, to one unbounded
//! [`Inbound`] channel, owned by the reader task: when the agent's output ends the channel
//! closes and every waiting request fails with [`RpcError::Closed`]. A Turn's `session/prompt`
//! is answered only when the Turn ends, so its answer joins the same channel
//! ([`Inbound::PromptDone`], [`Connection::prompt`]), after every update the agent sent before.
//! The JSON-RPC client is the adapter kit's ([`switchboard_adapter_kit::jsonrpc`]); what is
//! ACP's is the inbound type with the prompt's answer and the `functions` calls in it.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use switchboard_adapter_kit::jsonrpc::{Client, Dialect, Message};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;
use tracing::Instrument;

pub use switchboard_adapter_kit::jsonrpc::RpcError;

const ACP: Dialect = Dialect {
    peer: "acp agent",
    version_member: true,
};

/// What the agent sent us that is not the answer to a control request.
#[derive(Debug)]
pub enum Inbound {
    /// An agent → client request (answer it with [`Client::respond`]) or a notification.
    Agent(Message),
    /// The answer to the running Turn's `session/prompt`.
    PromptDone(Result<Value, RpcError>),
    /// A call of the Session's `functions` MCP server (it is not the agent's stdio, but it must be
    /// ordered with the agent's updates: [`crate::functions`]).
    FunctionCall(crate::functions::McpCall),
}

impl From<Message> for Inbound {
    fn from(message: Message) -> Self {
        Inbound::Agent(message)
    }
}

/// The client side of one ACP connection.
pub struct Connection {
    client: Client,
    /// Where a prompt's answer and a function call join the agent's messages; weak, so that the
    /// channel closes when the reader ends.
    inbound: mpsc::WeakUnboundedSender<Inbound>,
}

impl Connection {
    /// Starts the reader task; returns the connection with its inbound channel.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
    ) -> (Arc<Connection>, mpsc::UnboundedReceiver<Inbound>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let inbound = tx.downgrade();
        let client = Client::start(stdin, stdout, ACP, tx);
        (Arc::new(Connection { client, inbound }), rx)
    }

    /// Sends `session/prompt` and returns at once: its answer arrives on the inbound channel as
    /// [`Inbound::PromptDone`] (a Turn has no deadline here; the Turn loop keeps it).
    pub fn prompt(self: &Arc<Self>, params: Value, timeout: Duration) {
        let connection = self.clone();
        // In the caller's span (the Runtime's Turn): the prompt is the Turn's exchange.
        tokio::spawn(
            async move {
                let done = connection.request("session/prompt", params, timeout).await;
                connection.push(Inbound::PromptDone(done));
            }
            .in_current_span(),
        );
    }

    /// Adds a message to the inbound channel (dropped once the agent's output ended).
    pub fn push(&self, message: Inbound) {
        if let Some(inbound) = self.inbound.upgrade() {
            let _ = inbound.send(message);
        }
    }
}

impl Deref for Connection {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}
