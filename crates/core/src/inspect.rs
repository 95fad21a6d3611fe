//! The Session inspector: a read-only web page at `/inspect` (issue 17).
//!
//! The page holds no data, so it is served without a key: the browser asks for a Project API
//! key, keeps it in `sessionStorage`, and reads everything from the public `/v1` API as an SDK
//! client would. Its three assets are files in `crates/core/inspector/`, embedded here so that
//! `serve` needs nothing else. The policy allows only this origin's own script, style and
//! requests, so a value from the API can never run as code even if it were rendered as markup.

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

const PAGE: &str = include_str!("../inspector/index.html");
const SCRIPT: &str = include_str!("../inspector/inspector.js");
const STYLE: &str = include_str!("../inspector/inspector.css");

/// The Content-Security-Policy of every inspector response.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// The page and its assets. Generic over the router state: it reads none.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/inspect",
            get(|| async { asset("text/html; charset=utf-8", PAGE) }),
        )
        .route(
            "/inspect/inspector.js",
            get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .route(
            "/inspect/inspector.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE) }),
        )
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut resp = body.into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    // The URLs are not versioned: revalidate every time, so a new binary's page is never
    // mixed with an old cached script.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}
