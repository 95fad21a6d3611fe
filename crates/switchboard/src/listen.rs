//! The accept loop: HTTP/1.1 with bounds a hostile client cannot outlast (issue 13, item 1).
//!
//! `axum::serve` offers no timeouts, so this is its loop with four limits added: a bounded
//! number of open connections (a semaphore taken before `accept`, so the excess waits in the
//! kernel's backlog instead of costing a descriptor), a header-read timeout and a separate idle
//! keep-alive timeout (one hyper timer per connection, split in two by
//! [`crate::keep_alive`]), and a body-read timeout (the gap allowed between two chunks of a
//! request body; the body gate answers 408 when it passes). A live SSE stream is a response being written,
//! not a request being read: none of these limits applies to it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tower_http::timeout::RequestBodyTimeout;

use crate::keep_alive::{Activity, ConnTimer, Watched};

/// The limits `serve` applies to every connection.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_read_timeout: Duration,
    /// How long a kept-alive connection may wait idle for its next request.
    pub keep_alive_timeout: Duration,
    pub body_read_timeout: Duration,
    pub max_connections: usize,
}

/// Serves `app` on `listener` until `shutdown` resolves, then stops accepting and asks every
/// connection to finish its request in flight and close (idle ones close at once; event streams
/// are requests in flight). Then runs `finish` (which must end the event streams) and returns
/// once every connection has closed, or after `drain` (what is still open then is dropped).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    finish: impl Future<Output = ()>,
    drain: Duration,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (closing, closing_rx) = watch::channel(false);
    let service = RequestBodyTimeout::new(app, limits.body_read_timeout);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (tcp, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of descriptors or a connection reset before accept: keep serving the rest.
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    drop(permit);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Events are small writes that must leave at once: no Nagle delay on SSE streams.
        let _ = tcp.set_nodelay(true);
        let service = TowerToHyperService::new(service.clone());
        let mut closing = closing_rx.clone();
        tokio::spawn(async move {
            serve_one(tcp, service, limits, &mut closing).await;
            // The socket is closed (dropped with the connection) before its slot is given back.
            drop(permit);
        });
    }
    drop(listener);
    let _ = closing.send(true);
    finish.await;
    // Every slot back means every connection closed.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(drain, slots.acquire_many(all)).await;
    Ok(())
}

/// Serves one connection until it closes, or finishes its request in flight once `closing`.
async fn serve_one<S>(
    tcp: tokio::net::TcpStream,
    service: S,
    limits: Limits,
    closing: &mut watch::Receiver<bool>,
) where
    S: hyper::service::Service<
            hyper::Request<hyper::body::Incoming>,
            Response = axum::response::Response,
        > + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let activity = Arc::new(Activity::default());
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(ConnTimer::new(
            activity.clone(),
            limits.header_read_timeout,
            limits.keep_alive_timeout,
        ))
        .header_read_timeout(limits.header_read_timeout);
    let conn = builder
        .serve_connection(TokioIo::new(Watched::new(tcp, activity)), service)
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    let stopping = tokio::select! {
        _ = conn.as_mut() => false,
        _ = closing.wait_for(|c| *c) => true,
    };
    if stopping {
        conn.as_mut().graceful_shutdown();
        let _ = conn.await;
    }
}
