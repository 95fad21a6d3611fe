//! How a reply reaches the wire: a JSON body, or SSE frames paced and possibly cut short.
//!
//! Protocol renderers produce a [`Rendered`] reply; this module turns it into an HTTP response.
//! Dropping a connection is expressed as the [`Dropped`] error: returned instead of a response
//! it makes hyper close the socket without answering, and yielded from a stream body it aborts
//! the response mid-stream. Either way the client sees exactly what a dying server would give.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::{self, BoxStream, StreamExt};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Empty, Full, StreamBody};
use hyper::body::Frame;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::Value;

/// The scripted end of a connection.
#[derive(Debug, thiserror::Error)]
#[error("connection dropped by the scenario")]
pub struct Dropped;

/// Every response body the mock sends.
pub type Body = UnsyncBoxBody<Bytes, Dropped>;

/// A reply in its protocol's shape, plus the id the journal records for it.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub id: String,
    pub body: RenderedBody,
}

#[derive(Debug, Clone)]
pub enum RenderedBody {
    Json(Value),
    /// One SSE frame per event, in order.
    Stream(Vec<Bytes>),
}

impl Rendered {
    pub fn json(id: &str, value: Value) -> Self {
        Rendered {
            id: id.to_owned(),
            body: RenderedBody::Json(value),
        }
    }

    pub fn stream(id: &str, frames: Vec<Bytes>) -> Self {
        Rendered {
            id: id.to_owned(),
            body: RenderedBody::Stream(frames),
        }
    }
}

/// Sends `rendered`, waiting `interval` between stream events and closing the connection after
/// `drop_after` events when scripted to.
pub fn deliver(
    rendered: Rendered,
    interval: Option<Duration>,
    drop_after: Option<u32>,
) -> Result<Response<Body>, Dropped> {
    match rendered.body {
        // A JSON body cannot be cut after N events; a scripted drop sends nothing at all.
        RenderedBody::Json(_) if drop_after.is_some() => Err(Dropped),
        RenderedBody::Json(value) => Ok(json(StatusCode::OK, &value)),
        RenderedBody::Stream(frames) => Ok(event_stream(frames, interval, drop_after)),
    }
}

fn event_stream(
    frames: Vec<Bytes>,
    interval: Option<Duration>,
    drop_after: Option<u32>,
) -> Response<Body> {
    let keep = drop_after.map_or(frames.len(), |n| n as usize);
    let mut events: BoxStream<'static, Result<Frame<Bytes>, Dropped>> =
        stream::iter(frames.into_iter().take(keep).map(|f| Ok(Frame::data(f)))).boxed();
    if drop_after.is_some() {
        let cut = async {
            // Pending once, so hyper flushes the head and the frames so far before the error
            // aborts the connection; otherwise everything buffered would be lost with it.
            tokio::task::yield_now().await;
            Err(Dropped)
        };
        events = events.chain(stream::once(cut)).boxed();
    }
    if let Some(pause) = interval {
        events = events
            .enumerate()
            .then(move |(index, event)| async move {
                if index > 0 {
                    tokio::time::sleep(pause).await;
                }
                event
            })
            .boxed();
    }
    let mut response = Response::new(StreamBody::new(events).boxed_unsync());
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A JSON response with this status.
pub fn json(status: StatusCode, value: &Value) -> Response<Body> {
    let body = Full::new(Bytes::from(value.to_string()))
        .map_err(|never: Infallible| match never {})
        .boxed_unsync();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A response with no body.
pub fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(
        Empty::new()
            .map_err(|never: Infallible| match never {})
            .boxed_unsync(),
    );
    *response.status_mut() = status;
    response
}
