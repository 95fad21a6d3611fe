//! A stream ends when its key is revoked (issue 13, item 7).
//!
//! Authentication happens once, when a stream opens; an SSE response then lives for hours. Every
//! `text/event-stream` response of a `/v1` request is wrapped so that it ends once the key that
//! opened it stops being active. Revocation usually comes from another process
//! (`switchboard keys revoke`), which touches the data directory's `keys.epoch` file: the guard
//! looks at that file every [`POLL`] and asks the store again when it changed (and at least
//! every [`KeyCache::TTL`], for writers that do not touch it).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use futures::StreamExt;

use crate::auth::KeyCache;
use crate::state::AppState;

/// How often an open stream looks at the epoch file (a `stat`).
pub const POLL: Duration = Duration::from_millis(250);

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
    let ended = Box::pin(revoked(state, digest));
    let body = Body::from_stream(body.into_data_stream().take_until(ended));
    Response::from_parts(parts, body)
}

/// Resolves once the key is no longer active. A store failure keeps the stream: it was
/// authenticated, and an unreadable store says nothing about the key.
async fn revoked(state: Arc<AppState>, digest: String) {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut seen = state.keys.epoch();
    let mut checked = Instant::now();
    loop {
        tick.tick().await;
        let epoch = state.keys.epoch();
        if epoch == seen && checked.elapsed() < KeyCache::TTL {
            continue;
        }
        seen = epoch;
        checked = Instant::now();
        if let Ok(false) = state.keys.check(state.store.as_ref(), &digest).await {
            tracing::info!("an event stream ended: its key was revoked");
            return;
        }
    }
}
