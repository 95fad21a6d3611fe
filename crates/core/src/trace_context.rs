//! The request span: every HTTP request runs in one, whose parent is the caller's W3C
//! `traceparent` when it sent one, and whose own `traceparent` is returned on the response, so
//! a client can find its request (and the Turn it started) in the trace.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

pub async fn request_span(req: Request, next: Next) -> Response {
    let span = tracing::info_span!(
        "http.request",
        http.request.method = %req.method(),
        url.path = %req.uri().path(),
        http.response.status_code = tracing::field::Empty,
    );
    let headers = req.headers();
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(parent) = header("traceparent") {
        switchboard_telemetry::adopt(&span, parent, header("tracestate"));
    }
    let mut resp = next.run(req).instrument(span.clone()).await;
    span.record(
        "http.response.status_code",
        i64::from(resp.status().as_u16()),
    );
    if let Some(value) =
        switchboard_telemetry::traceparent(&span).and_then(|v| HeaderValue::from_str(&v).ok())
    {
        resp.headers_mut().insert("traceparent", value);
    }
    resp
}
