//! The HTTP side: accept loop, routes, and the path of one request from bytes to reply.
//!
//! The accept loop is ours rather than `axum::serve` because a scripted drop must be able to
//! close a connection without a response, which only the connection owner can do. Routing is a
//! plain match on method and path: six routes do not need a router.
//!
//! Per model request: parse the JSON body (400 in the provider's shape if it is not usable),
//! build the protocol-neutral view, let the [`Script`] plan the reply, write the journal entry,
//! wait the scripted delay, then render and send.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::http::request::Parts;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Map, Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::delivery::{self, Body, Dropped, Rendered};
use crate::error::{ErrorShape, RequestError};
use crate::journal::Journal;
use crate::request::{Protocol, RequestView};
use crate::script::{Outcome, Plan, Script};
use crate::usage::count_members;
use crate::{anthropic, chat, responses};

/// Request bodies larger than this get a 413. Harness requests carry whole conversations, so
/// the limit is generous; it only guards against runaway clients.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// State shared by all connections.
#[derive(Debug)]
pub struct Shared {
    pub script: Mutex<Script>,
    pub journal: Journal,
}

/// Serves connections from `listener` until `shutdown` is cancelled.
pub async fn serve(listener: TcpListener, shared: Arc<Shared>, shutdown: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(err) => {
                // Out of file descriptors and the like: back off instead of spinning.
                eprintln!("mock-model: accept failed: {err}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // SSE frames are small writes; Nagle's algorithm would hold them back.
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| handle(shared.clone(), request));
            let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = connection => {}
                () = shutdown.cancelled() => {}
            }
        });
    }
}

/// What a method and path lead to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Route {
    /// `HEAD /` (Claude Code's connectivity probe) and `GET /`.
    Root,
    Models,
    CountTokens,
    Model(Protocol),
    MethodNotAllowed,
    NotFound,
}

fn route(method: &Method, path: &str) -> Route {
    let path = match path.trim_end_matches('/') {
        "" => "/",
        trimmed => trimmed,
    };
    let (route, allowed) = match path {
        "/" => (Route::Root, method == Method::GET || method == Method::HEAD),
        "/v1/models" => (Route::Models, method == Method::GET),
        "/v1/messages/count_tokens" => (Route::CountTokens, method == Method::POST),
        "/v1/responses" => (Route::Model(Protocol::Responses), method == Method::POST),
        "/v1/messages" => (Route::Model(Protocol::Anthropic), method == Method::POST),
        "/v1/chat/completions" => (Route::Model(Protocol::Chat), method == Method::POST),
        _ => return Route::NotFound,
    };
    if allowed {
        route
    } else {
        Route::MethodNotAllowed
    }
}

/// Errors on unknown routes are shaped for whoever seems to be calling.
fn shape_for(parts: &Parts) -> ErrorShape {
    let anthropic = parts.uri.path().starts_with("/v1/messages")
        || parts.headers.contains_key("anthropic-version")
        || parts.headers.contains_key("x-api-key");
    if anthropic {
        ErrorShape::Anthropic
    } else {
        ErrorShape::OpenAi
    }
}

fn protocol_shape(protocol: Protocol) -> ErrorShape {
    match protocol {
        Protocol::Anthropic => ErrorShape::Anthropic,
        Protocol::Responses | Protocol::Chat => ErrorShape::OpenAi,
    }
}

async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Dropped> {
    let (parts, body) = request.into_parts();
    let mut entry = request_entry(&parts);
    let bytes = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) if err.is::<http_body_util::LengthLimitError>() => {
            let error = RequestError::TooLarge(MAX_BODY_BYTES);
            return Ok(refuse(&shared, entry, shape_for(&parts), &error));
        }
        // The client went away mid-body: nobody is left to answer.
        Err(_) => return Err(Dropped),
    };
    // Parsed once: the view borrows it, then the journal entry takes it.
    let parsed = parse_json(&bytes);
    let (method, path) = (parts.method.to_string(), parts.uri.path().to_owned());
    let response = match route(&parts.method, &path) {
        Route::Model(protocol) => {
            return model_call(&shared, entry, protocol, &bytes, parsed).await;
        }
        Route::CountTokens => count_tokens(&shared, entry, &bytes, parsed),
        Route::Root => {
            add_body(&mut entry, &bytes, parsed.ok());
            reply(&shared, entry, delivery::empty(StatusCode::OK))
        }
        Route::Models => {
            add_body(&mut entry, &bytes, parsed.ok());
            let list = json!({"object": "list", "data": []});
            reply_json(&shared, entry, StatusCode::OK, list)
        }
        Route::MethodNotAllowed => {
            add_body(&mut entry, &bytes, parsed.ok());
            let error = RequestError::MethodNotAllowed { method, path };
            refuse(&shared, entry, shape_for(&parts), &error)
        }
        Route::NotFound => {
            add_body(&mut entry, &bytes, parsed.ok());
            let error = RequestError::NotFound { method, path };
            refuse(&shared, entry, shape_for(&parts), &error)
        }
    };
    Ok(response)
}

/// `POST /v1/messages/count_tokens`: the prompt's input tokens, counted like a Messages call's.
fn count_tokens(
    shared: &Shared,
    mut entry: Map<String, Value>,
    bytes: &Bytes,
    parsed: Result<Value, RequestError>,
) -> Response<Body> {
    let counted = match &parsed {
        Ok(body) if body.is_object() => Ok(count_members(body, anthropic::PROMPT_MEMBERS)),
        Ok(_) => Err(RequestError::Malformed(
            "request body must be a JSON object".into(),
        )),
        Err(error) => Err(RequestError::Malformed(error.to_string())),
    };
    add_body(&mut entry, bytes, parsed.ok());
    match counted {
        Ok(tokens) => reply_json(
            shared,
            entry,
            StatusCode::OK,
            json!({"input_tokens": tokens}),
        ),
        Err(error) => refuse(shared, entry, ErrorShape::Anthropic, &error),
    }
}

async fn model_call(
    shared: &Shared,
    mut entry: Map<String, Value>,
    protocol: Protocol,
    bytes: &Bytes,
    parsed: Result<Value, RequestError>,
) -> Result<Response<Body>, Dropped> {
    let shape = protocol_shape(protocol);
    entry.insert("protocol".into(), json!(protocol.as_str()));
    let body = match parsed {
        Ok(body) => body,
        Err(error) => {
            add_body(&mut entry, bytes, None);
            return Ok(refuse(shared, entry, shape, &error));
        }
    };
    let view = parse_view(protocol, &body);
    add_body(&mut entry, bytes, Some(body));
    let view = match view {
        Ok(view) => view,
        Err(reason) => {
            return Ok(refuse(
                shared,
                entry,
                shape,
                &RequestError::Malformed(reason),
            ));
        }
    };
    let plan = shared
        .script
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .plan(&view);
    entry.insert("request".into(), json!(plan.request));
    entry.insert("matched".into(), plan.source.summary());

    // Decide every byte before journaling, so the entry says exactly what is sent.
    let sent = match &plan.outcome {
        Outcome::Answer(answer) => {
            let rendered = render(protocol, answer, &view, plan.request);
            let mut summary = json!({"status": 200, "stream": view.stream, "id": rendered.id});
            summary["text"] = json!(answer.texts().collect::<String>());
            summary["tool_calls"] = answer.calls_summary();
            summary["usage"] = json!({"input_tokens": view.input_tokens,
                                      "output_tokens": answer.output_tokens()});
            Sent::Rendered(rendered, summary)
        }
        Outcome::Error {
            status,
            message,
            body,
        } => {
            let body = body.clone().unwrap_or_else(|| shape.body(*status, message));
            Sent::Error(*status, body)
        }
        Outcome::Drop => Sent::Nothing,
    };
    let mut summary = match &sent {
        Sent::Rendered(_, summary) => summary.clone(),
        Sent::Error(status, body) => json!({"status": status, "body": body}),
        Sent::Nothing => json!({"dropped": true}),
    };
    timing_summary(&plan, &mut summary);
    entry.insert("reply".into(), summary);
    shared.journal.record(entry);

    if let Some(delay) = plan.delay {
        tokio::time::sleep(delay).await;
    }
    match sent {
        Sent::Rendered(rendered, _) => delivery::deliver(rendered, plan.interval, plan.drop_after),
        Sent::Error(status, body) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            Ok(delivery::json(status, &body))
        }
        Sent::Nothing => Err(Dropped),
    }
}

/// A decided reply, ready to send after the delay.
enum Sent {
    Rendered(Rendered, Value),
    Error(u16, Value),
    Nothing,
}

fn timing_summary(plan: &Plan, summary: &mut Value) {
    if let Some(delay) = plan.delay {
        summary["delay_ms"] = json!(delay.as_millis() as u64);
    }
    if let Some(interval) = plan.interval {
        summary["interval_ms"] = json!(interval.as_millis() as u64);
    }
    if let Some(after) = plan.drop_after {
        summary["drop_after_events"] = json!(after);
    }
}

fn parse_view(protocol: Protocol, body: &Value) -> Result<RequestView, String> {
    match protocol {
        Protocol::Responses => responses::parse(body),
        Protocol::Anthropic => anthropic::parse(body),
        Protocol::Chat => chat::parse(body),
    }
}

fn render(
    protocol: Protocol,
    answer: &crate::answer::Answer,
    view: &RequestView,
    request: u64,
) -> Rendered {
    match protocol {
        Protocol::Responses => responses::render(answer, view, request),
        Protocol::Anthropic => anthropic::render(answer, view, request),
        Protocol::Chat => chat::render(answer, view, request),
    }
}

fn parse_json(bytes: &Bytes) -> Result<Value, RequestError> {
    serde_json::from_slice(bytes).map_err(|err| {
        RequestError::Malformed(format!("the request body is not valid JSON: {err}"))
    })
}

/// The request half of a journal entry.
fn request_entry(parts: &Parts) -> Map<String, Value> {
    let mut headers = Map::new();
    for (name, value) in &parts.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match headers.get_mut(name.as_str()) {
            // Repeated headers are folded the way HTTP allows: comma-separated.
            Some(Value::String(existing)) => {
                existing.push_str(", ");
                existing.push_str(&value);
            }
            _ => {
                headers.insert(name.as_str().to_owned(), Value::String(value));
            }
        }
    }
    let mut entry = Map::new();
    entry.insert("method".into(), json!(parts.method.as_str()));
    entry.insert("path".into(), json!(parts.uri.path()));
    entry.insert("query".into(), json!(parts.uri.query()));
    entry.insert("headers".into(), Value::Object(headers));
    entry
}

/// Adds the request body to a journal entry: as JSON when it parsed, else (if not empty) as
/// text under `body_text`, so even a malformed request can be inspected.
fn add_body(entry: &mut Map<String, Value>, bytes: &Bytes, parsed: Option<Value>) {
    let body = parsed.unwrap_or(Value::Null);
    if body.is_null() && !bytes.is_empty() {
        entry.insert("body_text".into(), json!(String::from_utf8_lossy(bytes)));
    }
    entry.insert("body".into(), body);
}

fn reply(
    shared: &Shared,
    mut entry: Map<String, Value>,
    response: Response<Body>,
) -> Response<Body> {
    entry.insert(
        "reply".into(),
        json!({"status": response.status().as_u16()}),
    );
    shared.journal.record(entry);
    response
}

fn reply_json(
    shared: &Shared,
    mut entry: Map<String, Value>,
    status: StatusCode,
    body: Value,
) -> Response<Body> {
    let response = delivery::json(status, &body);
    entry.insert(
        "reply".into(),
        json!({"status": status.as_u16(), "body": body}),
    );
    shared.journal.record(entry);
    response
}

fn refuse(
    shared: &Shared,
    entry: Map<String, Value>,
    shape: ErrorShape,
    error: &RequestError,
) -> Response<Body> {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::BAD_REQUEST);
    reply_json(
        shared,
        entry,
        status,
        shape.body(error.status(), &error.to_string()),
    )
}
