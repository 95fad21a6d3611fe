//! A stream ends when its key is revoked (issue 13, item 7).
//!
//! Authentication happens once, when a stream opens; an SSE response then lives for hours. Every
//! `text/event-stream` response of a `/v1` request is wrapped so that it ends once the key that
//! opened it stops being active. Revocation usually comes from another process
//! (`switchboard keys revoke`), which touches the data directory's `keys.epoch` file. One
//! [`Watcher`] per Core looks at that file every [`POLL`] while any stream is open and announces
//! a change (and, at least every [`KeyCache::TTL`], a tick for writers that do not touch it) on a
//! `watch` channel; each stream then asks the key cache about its own key. So a thousand open
//! streams cost one `stat` per poll, not a thousand. On PostgreSQL the database's keys epoch
//! notification announces a change at once ([`Watcher::announce`], from `crate::replicas`), on
//! every replica.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use futures::StreamExt;
use tokio::sync::watch;

use crate::auth::KeyCache;
use crate::state::AppState;
use crate::sync::lock;

/// How often the watcher looks at the epoch file (a `stat`).
pub const POLL: Duration = Duration::from_millis(250);

/// The one epoch-file watcher of a Core, feeding every open stream.
pub struct Watcher {
    inner: Arc<Inner>,
}

struct Inner {
    epoch_file: PathBuf,
    /// Bumped whenever streams must check their key again.
    changes: watch::Sender<u64>,
    /// Whether the polling task runs; it stops when the last stream closes.
    running: Mutex<bool>,
}

impl Watcher {
    pub fn new(epoch_file: PathBuf) -> Self {
        Watcher {
            inner: Arc::new(Inner {
                epoch_file,
                changes: watch::channel(0).0,
                running: Mutex::new(false),
            }),
        }
    }

    /// Keys changed (a database notification): every open stream checks its key now.
    pub fn announce(&self) {
        self.inner.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A receiver that changes whenever keys may have changed; starts the polling task if no
    /// stream had it running.
    fn subscribe(&self) -> watch::Receiver<u64> {
        let mut running = lock(&self.inner.running);
        let rx = self.inner.changes.subscribe();
        if !*running {
            *running = true;
            tokio::spawn(poll(self.inner.clone()));
        }
        rx
    }
}

fn epoch(file: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(file).and_then(|m| m.modified()).ok()
}

async fn poll(inner: Arc<Inner>) {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut seen = epoch(&inner.epoch_file);
    let mut announced = Instant::now();
    loop {
        tick.tick().await;
        {
            // Under the lock a new stream either sees the task running or starts a new one.
            let mut running = lock(&inner.running);
            if inner.changes.receiver_count() == 0 {
                *running = false;
                return;
            }
        }
        let now = epoch(&inner.epoch_file);
        if now == seen && announced.elapsed() < KeyCache::TTL {
            continue;
        }
        seen = now;
        announced = Instant::now();
        inner.changes.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// `resp` unchanged unless it is an event stream; then the same stream, ending when the key with
/// `digest` is revoked.
pub fn guard(state: Arc<AppState>, digest: String, resp: Response) -> Response {
    let streaming = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streaming {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let changes = state.revocations.subscribe();
    let ended = Box::pin(revoked(state, digest, changes));
    let body = Body::from_stream(body.into_data_stream().take_until(ended));
    Response::from_parts(parts, body)
}

/// Resolves once the key is no longer active. A store failure keeps the stream: it was
/// authenticated, and an unreadable store says nothing about the key.
async fn revoked(state: Arc<AppState>, digest: String, mut changes: watch::Receiver<u64>) {
    while changes.changed().await.is_ok() {
        if let Ok(None) = state.keys.check(state.store.as_ref(), &digest).await {
            tracing::info!("an event stream ended: its key was revoked");
            return;
        }
    }
}
