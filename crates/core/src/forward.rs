//! Any replica accepts any request (issue 16): a request for a Session that another live
//! replica holds goes to that replica over HTTP, and its answer comes back unchanged.
//!
//! The request keeps its method, path, query, body and headers (`Authorization` included)
//! and gains [`FORWARDED`], so the holder serves it itself and never forwards it again. The
//! answer (status, headers, body, a stream included) is relayed as it arrives. Only the
//! routes that work on a loaded Session are forwarded: the Session itself (retrieve, update,
//! delete) and its input (`POST …/events`); lists of stored Turns and Items read the store,
//! which has every committed change, and `GET …/events` is served on any replica from the
//! event rows. Without replicas (SQLite) this layer passes everything through.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use switchboard_wire::body::SESSION_CREATE_LIMIT;

use crate::edge::Failure;
use crate::session::SessionError;
use crate::session::replica::{FORWARDED, Replica};
use crate::state::AppState;

/// The Session a forwardable request works on, if it is one.
fn forwardable(method: &Method, path: &str) -> Option<String> {
    let path = path.strip_prefix("/v1").unwrap_or(path);
    let rest = path.strip_prefix("/agents/sessions/")?;
    let mut parts = rest.split('/');
    let id = parts.next().filter(|id| !id.is_empty())?;
    let forward = match (parts.next(), parts.next()) {
        (None, _) => true,
        (Some("events"), None) => method == Method::POST,
        _ => false,
    };
    forward.then(|| id.to_owned())
}

/// How often a request follows a Session whose holder changed while it was on its way (a
/// handover, an unload): the answer was 503 `execution_unavailable` (nothing was written) and
/// the claim now names another replica, or none (then it is served here).
const ATTEMPTS: usize = 3;

/// The `/v1` layer (after authentication, so the caller's key is checked here as well as on
/// the holder, with the same answers).
pub async fn to_holder(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let Some(replica) = state.engine.replica().cloned() else {
        return next.run(req).await;
    };
    if req.headers().contains_key(FORWARDED) {
        return next.run(req).await;
    }
    let Some(id) = forwardable(req.method(), req.uri().path()) else {
        return next.run(req).await;
    };
    // Kept whole, so the request can follow the Session if its holder changes meanwhile. A
    // body of unknown or excessive length goes through as it comes, without that retry (the
    // body gate answers it wherever it lands).
    let length = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    let bodiless = matches!(*req.method(), Method::GET | Method::DELETE) && length.is_none();
    if !bodiless && length.is_none_or(|n| n > SESSION_CREATE_LIMIT) {
        return match remote_holder(&replica, &id).await {
            Some(holder) if !replica.holds(&id) => {
                let (parts, body) = req.into_parts();
                let body = reqwest::Body::wrap_stream(body.into_data_stream());
                relay(&replica, &holder, &parts, body).await
            }
            _ => next.run(req).await,
        };
    }
    let (parts, body) = req.into_parts();
    let Ok(body) = axum::body::to_bytes(body, SESSION_CREATE_LIMIT).await else {
        return next.run(Request::from_parts(parts, Body::empty())).await;
    };
    let mut target = if replica.holds(&id) {
        None
    } else {
        remote_holder(&replica, &id).await
    };
    let mut attempt = 1;
    loop {
        let answer = match &target {
            Some(holder) => relay(&replica, holder, &parts, body.clone().into()).await,
            None => {
                let req = Request::from_parts(parts.clone(), Body::from(body.clone()));
                next.clone().run(req).await
            }
        };
        if answer.status() != StatusCode::SERVICE_UNAVAILABLE || attempt == ATTEMPTS {
            return answer;
        }
        attempt += 1;
        let now = remote_holder(&replica, &id).await;
        if now == target {
            return answer;
        }
        target = now;
    }
}

/// The address of the live replica other than this one that holds the Session, if any.
async fn remote_holder(replica: &Replica, id: &str) -> Option<String> {
    match replica.claims.holder(id).await {
        Ok(Some(holder)) if holder.id != replica.id && !holder.address.is_empty() => {
            Some(holder.address)
        }
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(session = id, error = %e, "cannot read a Session's holder");
            None
        }
    }
}

/// Hop-by-hop headers, which describe one connection and are never relayed.
fn hop_by_hop(name: &header::HeaderName) -> bool {
    name == header::CONNECTION
        || name == header::TRANSFER_ENCODING
        || name == header::HOST
        || name == "keep-alive"
        || name == header::UPGRADE
        || name == header::TE
        || name == header::TRAILER
        || name == header::PROXY_AUTHORIZATION
}

async fn relay(
    replica: &Replica,
    address: &str,
    parts: &axum::http::request::Parts,
    body: reqwest::Body,
) -> Response {
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    // Inside the `/v1` router the prefix is stripped.
    let prefix = if path.starts_with("/v1/") { "" } else { "/v1" };
    let url = format!("{}{prefix}{path}", address.trim_end_matches('/'));
    let mut out = replica.client.request(parts.method.clone(), url);
    // The holder's request span is a child of this one (the caller's parent is ours already).
    let traceparent = switchboard_telemetry::traceparent(&tracing::Span::current());
    for (name, value) in &parts.headers {
        if !hop_by_hop(name) && (traceparent.is_none() || name != "traceparent") {
            out = out.header(name, value);
        }
    }
    if let Some(traceparent) = traceparent {
        out = out.header("traceparent", traceparent);
    }
    let out = out.header(FORWARDED, replica.id.as_str()).body(body);
    let answer = match out.send().await {
        Ok(answer) => answer,
        Err(e) => {
            // The holder is unreachable (it may be dying: its claim expires soon and another
            // replica takes the Session over). Retryable.
            tracing::warn!(holder = address, error = %e, "cannot forward to the Session's holder");
            return Failure::from(SessionError::Moved(address.to_owned())).into_response();
        }
    };
    let mut resp = Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        if !hop_by_hop(name) {
            resp = resp.header(name, value);
        }
    }
    resp.body(Body::from_stream(answer.bytes_stream()))
        .unwrap_or_else(|_| Failure::from(SessionError::Moved(address.to_owned())).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_routes_of_a_loaded_session_are_forwarded() {
        let id = "sess_0123";
        let f = |m: Method, p: &str| forwardable(&m, p);
        assert_eq!(
            f(Method::GET, "/agents/sessions/sess_0123").as_deref(),
            Some(id)
        );
        assert_eq!(
            f(Method::POST, "/v1/agents/sessions/sess_0123").as_deref(),
            Some(id)
        );
        assert_eq!(
            f(Method::DELETE, "/agents/sessions/sess_0123").as_deref(),
            Some(id)
        );
        assert_eq!(
            f(Method::POST, "/agents/sessions/sess_0123/events").as_deref(),
            Some(id)
        );
        assert_eq!(f(Method::GET, "/agents/sessions/sess_0123/events"), None);
        assert_eq!(f(Method::GET, "/agents/sessions/sess_0123/items"), None);
        assert_eq!(
            f(Method::GET, "/agents/sessions/sess_0123/turns/t/items"),
            None
        );
        assert_eq!(f(Method::POST, "/agents/sessions"), None);
        assert_eq!(f(Method::GET, "/agents/sessions/"), None);
    }
}
