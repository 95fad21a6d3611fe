//! One shared app-server's inbound stream, split by thread.
//!
//! A `codex app-server` hosting several Sessions' threads sends everything (notifications, and
//! server requests such as `item/tool/call`) on one stdout, in one order. Every message a Turn
//! uses names its thread (`params.threadId`, in codex 0.171.0's v2 protocol, on `item/*`,
//! `turn/*`, `thread/tokenUsage/updated`, `error`, `serverRequest/resolved` and every server
//! request), so the [`Router`] passes each message to the channel of the thread it names and to
//! no other: one Session's Turn never sees another's events or calls. A message for no thread
//! bound here (a thread still starting, one already unbound, or a process-wide notification) is
//! dropped; such a request is declined, as the Turn driver declines what it does not handle, so
//! codex carries on.
//!
//! When the process's output ends (it exited or was killed) the router closes every thread's
//! channel: each running Turn then ends `harness_exited`, exactly as on a process of its own, and
//! later binds are refused, so a Session's next Turn starts a new process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::mpsc;

use crate::jsonrpc::{Connection, Inbound};

/// The JSON-RPC error code for a request nobody here handles.
const METHOD_NOT_FOUND: i64 = -32601;

#[derive(Default)]
struct Table {
    /// Each bound thread's channel, with the token of its binding.
    threads: HashMap<String, (u64, mpsc::UnboundedSender<Inbound>)>,
    next_token: u64,
    closed: bool,
}

/// Where one process's messages go, by thread id.
#[derive(Default)]
pub struct Router {
    table: Mutex<Table>,
}

/// A thread bound to the router: its token (to unbind exactly this binding) and its channel.
pub struct Binding {
    pub token: u64,
    pub inbound: mpsc::UnboundedReceiver<Inbound>,
}

impl Router {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Routes `thread_id`'s messages to a new channel; `None` once the process's output ended.
    /// A second binding of the same thread replaces the first.
    pub fn bind(&self, thread_id: &str) -> Option<Binding> {
        let mut table = self.table();
        if table.closed {
            return None;
        }
        table.next_token += 1;
        let token = table.next_token;
        let (tx, inbound) = mpsc::unbounded_channel();
        table.threads.insert(thread_id.to_owned(), (token, tx));
        Some(Binding { token, inbound })
    }

    /// Stops routing `thread_id`, if it is still the binding `token`.
    pub fn unbind(&self, thread_id: &str, token: u64) {
        let mut table = self.table();
        if table
            .threads
            .get(thread_id)
            .is_some_and(|(t, _)| *t == token)
        {
            table.threads.remove(thread_id);
        }
    }

    /// Whether the process's output has ended.
    pub fn is_closed(&self) -> bool {
        self.table().closed
    }

    /// How many threads are bound.
    pub fn bound(&self) -> usize {
        self.table().threads.len()
    }

    /// Passes `message` to its thread's channel; gives it back when no bound thread takes it.
    fn route(&self, message: Inbound) -> Option<Inbound> {
        let params = match &message {
            Inbound::Request { params, .. } | Inbound::Notification { params, .. } => params,
        };
        let Some(thread) = params.get("threadId").and_then(Value::as_str) else {
            return Some(message);
        };
        match self.table().threads.get(thread) {
            Some((_, tx)) => tx.send(message).err().map(|e| e.0),
            None => Some(message),
        }
    }

    /// Closes every thread's channel and refuses later binds.
    fn close(&self) {
        let mut table = self.table();
        table.closed = true;
        table.threads.clear();
    }
}

/// Reads the process's `inbound` until it ends, routing each message ([`Router`]).
pub async fn run(
    router: Arc<Router>,
    connection: Arc<Connection>,
    mut inbound: mpsc::UnboundedReceiver<Inbound>,
) {
    while let Some(message) = inbound.recv().await {
        if let Some(Inbound::Request { id, method, .. }) = router.route(message) {
            let message = format!("switchboard does not handle {method} here");
            let _ = connection
                .respond_error(&id, METHOD_NOT_FOUND, &message)
                .await;
        }
    }
    router.close();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn note(thread: &str, n: u64) -> Inbound {
        Inbound::Notification {
            method: "item/started".into(),
            params: json!({"threadId": thread, "n": n}),
        }
    }

    fn n_of(message: &Inbound) -> u64 {
        match message {
            Inbound::Notification { params, .. } | Inbound::Request { params, .. } => {
                params["n"].as_u64().unwrap_or(0)
            }
        }
    }

    #[test]
    fn each_thread_gets_only_its_own_messages() {
        let router = Router::default();
        let mut a = router.bind("thr_a").unwrap();
        let mut b = router.bind("thr_b").unwrap();
        for (thread, n) in [("thr_a", 1), ("thr_b", 2), ("thr_a", 3), ("thr_c", 4)] {
            let _ = router.route(note(thread, n));
        }
        let request = Inbound::Request {
            id: json!(7),
            method: "item/tool/call".into(),
            params: json!({"threadId": "thr_b", "n": 5}),
        };
        assert!(router.route(request).is_none());
        let unscoped = Inbound::Notification {
            method: "account/updated".into(),
            params: json!({}),
        };
        assert!(router.route(unscoped).is_some(), "no thread: nobody's");

        let drain = |binding: &mut Binding| {
            std::iter::from_fn(|| binding.inbound.try_recv().ok())
                .map(|m| n_of(&m))
                .collect::<Vec<_>>()
        };
        assert_eq!(drain(&mut a), vec![1, 3]);
        assert_eq!(drain(&mut b), vec![2, 5]);
    }

    #[test]
    fn an_old_binding_never_unbinds_a_newer_one_and_close_ends_all() {
        let router = Router::default();
        let old = router.bind("thr_a").unwrap();
        let mut new = router.bind("thr_a").unwrap();
        router.unbind("thr_a", old.token);
        assert!(router.route(note("thr_a", 1)).is_none());
        assert_eq!(n_of(&new.inbound.try_recv().unwrap()), 1);
        router.close();
        assert!(matches!(
            new.inbound.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
        assert!(
            router.bind("thr_b").is_none(),
            "a closed process takes no thread"
        );
        assert_eq!(router.bound(), 0);
    }
}
