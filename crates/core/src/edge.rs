//! The HTTP edge: everything between the socket and a route handler, and the one place where
//! typed errors become the public error envelope.
//!
//! Order for every `/v1` request: request ID → `OpenAI-Beta: agents=v1` (before authentication)
//! → bearer key → body gate (in the handler's extractor) → resource lookup. Every response carries
//! `X-Request-Id: req_<32 hex>`; 409s carry `x-should-retry: false` so the official SDK does not
//! resend a semantic conflict; 401s carry `WWW-Authenticate: Bearer`.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use switchboard_execution::ValidationError;
use switchboard_wire::body::{BodyGate, DEFAULT_LIMIT, timed_out, too_large};
use switchboard_wire::ids::{IdKind, new_id};
use switchboard_wire::{ApiError, ErrorCode};

use crate::agents::AgentError;
use crate::auth;
use crate::session::SessionError;
use crate::state::AppState;

/// A failed request, as the caller will see it. Every error type inside Core converts into this
/// exactly once, here.
#[derive(Debug)]
pub struct Failure(pub ApiError);

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure(e)
    }
}

impl From<ValidationError> for Failure {
    fn from(e: ValidationError) -> Self {
        Failure(e.into())
    }
}

impl From<switchboard_store::StoreError> for Failure {
    fn from(e: switchboard_store::StoreError) -> Self {
        tracing::error!(error = %e, "store failure");
        Failure(ApiError::internal())
    }
}

impl From<crate::secrets::SecretError> for Failure {
    fn from(e: crate::secrets::SecretError) -> Self {
        tracing::error!(error = %e, "secret storage failure");
        Failure(ApiError::new(
            ErrorCode::CredentialStorageUnavailable,
            None,
            "Credential storage is unavailable.",
        ))
    }
}

impl From<AgentError> for Failure {
    fn from(e: AgentError) -> Self {
        match e {
            AgentError::NotFound => Failure(ApiError::not_found()),
            AgentError::Corrupt(e) => {
                tracing::error!(error = %e, "stored agent configuration does not parse");
                Failure(ApiError::internal())
            }
            AgentError::Secret(e) => e.into(),
            AgentError::Store(e) => e.into(),
        }
    }
}

impl From<SessionError> for Failure {
    fn from(e: SessionError) -> Self {
        let message = e.to_string();
        let error = match e {
            SessionError::Invalid(e) => return e.into(),
            SessionError::Agent(e) => return e.into(),
            // A replica that lost the Session's claim mid-request: retryable, like a moved one.
            SessionError::Store(switchboard_store::StoreError::Fenced { .. })
            | SessionError::Moved(_) => {
                ApiError::new(ErrorCode::ExecutionUnavailable, None, message)
            }
            SessionError::Store(e) => return e.into(),
            SessionError::Secret(e) => return e.into(),
            SessionError::Corrupt(e) => {
                tracing::error!(error = %e, "stored Session state is unreadable");
                ApiError::internal()
            }
            SessionError::ProviderGone(_) => {
                tracing::error!(error = %message, "cannot load a Session");
                ApiError::internal()
            }
            SessionError::InvalidIdempotencyKey => {
                ApiError::new(ErrorCode::InvalidRequest, None, message)
            }
            SessionError::IdempotencyConflict => ApiError::idempotency_conflict(),
            SessionError::NotFound => ApiError::not_found(),
            SessionError::Unsupported { param, message } => {
                ApiError::new(ErrorCode::UnsupportedConfiguration, param, message)
            }
            SessionError::ModelProviderRequired => ApiError::new(
                ErrorCode::ModelProviderRequired,
                Some("x_agents_core.model_provider".into()),
                message,
            ),
            SessionError::Conflict(_) => ApiError::new(ErrorCode::Conflict, None, message),
            SessionError::CredentialSelection(_) => {
                ApiError::new(ErrorCode::InvalidRequestError, None, message)
            }
            SessionError::CredentialConflict(_) => {
                ApiError::new(ErrorCode::Conflict, None, message)
            }
            SessionError::UnknownCall(_) => {
                ApiError::new(ErrorCode::InvalidRequestError, None, message)
            }
            SessionError::ExecutionUnavailable => {
                ApiError::new(ErrorCode::ExecutionUnavailable, None, message)
            }
            SessionError::InvalidPath(_) => {
                ApiError::new(ErrorCode::InvalidRequestError, Some("path".into()), message)
            }
            SessionError::EnvironmentInputExpired => {
                ApiError::new(ErrorCode::EnvironmentInputExpired, None, message)
            }
            SessionError::EnvironmentInputCancelled => {
                ApiError::new(ErrorCode::EnvironmentInputCancelled, None, message)
            }
        };
        Failure(error)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let e = self.0;
        let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut resp = (status, axum::Json(e.body())).into_response();
        let h = resp.headers_mut();
        if e.should_retry_false() {
            h.insert("x-should-retry", HeaderValue::from_static("false"));
        }
        if e.www_authenticate() {
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if e.status == 408 {
            h.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        resp
    }
}

pub type ApiResult<T> = Result<T, Failure>;

/// Adds `X-Request-Id`, `OpenAI-Version` and `OpenAI-Processing-Ms` to every response.
pub async fn request_id(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = new_id(IdKind::Request);
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&id) {
        h.insert("x-request-id", v);
    }
    h.insert("openai-version", HeaderValue::from_static("2020-10-01"));
    if let Ok(v) = HeaderValue::from_str(&started.elapsed().as_millis().to_string()) {
        h.insert("openai-processing-ms", v);
    }
    resp
}

/// The beta header check, then the bearer check: both before any body is read.
pub async fn beta_and_auth(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    if !beta_ok(req.headers()) {
        return reject(req, ApiError::invalid_beta()).await;
    }
    let token = auth::bearer(
        req.headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok()),
    );
    let Some(token) = token else {
        return reject(req, ApiError::unauthorized()).await;
    };
    let digest = auth::digest(token);
    match state.keys.check(state.store.as_ref(), &digest).await {
        Ok(Some(project)) => {
            let mut req = req;
            req.extensions_mut().insert(auth::Project(project));
            let resp = next.run(req).await;
            crate::revocation::guard(state.clone(), digest, resp)
        }
        Ok(None) => reject(req, ApiError::unauthorized()).await,
        Err(e) => {
            tracing::error!(error = %e, "store failure during authentication");
            Failure(ApiError::new(
                ErrorCode::AuthenticationUnavailable,
                None,
                "Authentication is temporarily unavailable.",
            ))
            .into_response()
        }
    }
}

/// How much of a rejected request's unread body is drained, and for how long, so that the
/// connection stays usable for the next request (issue 13, item 5).
const DRAIN_LIMIT: usize = 64 * 1024;
const DRAIN_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Answers a request rejected before its body was read. A small body that arrives at once is
/// read and dropped, so the kept-alive connection serves the next request; anything else gets
/// `Connection: close`, so the client does not send its next request into a closing socket.
async fn reject(req: Request, error: ApiError) -> Response {
    let drained = tokio::time::timeout(
        DRAIN_WAIT,
        axum::body::to_bytes(req.into_body(), DRAIN_LIMIT),
    )
    .await
    .is_ok_and(|read| read.is_ok());
    let mut resp = Failure(error).into_response();
    if !drained {
        resp.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    resp
}

/// Exactly one `OpenAI-Beta` header whose value is `agents=v1`.
fn beta_ok(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all("openai-beta").iter();
    matches!((values.next(), values.next()), (Some(v), None) if v.as_bytes() == b"agents=v1")
}

/// A request body that passed the body gate: the root object. `LIMIT` is the route's size limit.
pub struct GatedJson<const LIMIT: usize = DEFAULT_LIMIT>(pub Map<String, Value>);

impl<S: Send + Sync, const LIMIT: usize> FromRequest<S> for GatedJson<LIMIT> {
    type Rejection = Failure;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = axum::body::to_bytes(req.into_body(), LIMIT)
            .await
            .map_err(body_failure::<LIMIT>)?;
        let map = BodyGate { limit: LIMIT }.parse(content_type.as_deref(), &bytes)?;
        Ok(GatedJson(map))
    }
}

/// Over the limit is 413. Any other body error is a body that stopped arriving (the server's
/// body-read timeout, or a client gone mid-body): 408, and the connection is not reused since
/// the rest of that body may still come.
fn body_failure<const LIMIT: usize>(e: axum::Error) -> Failure {
    if e.into_inner().is::<http_body_util::LengthLimitError>() {
        Failure(too_large(LIMIT))
    } else {
        Failure(timed_out())
    }
}

/// 404 for every unknown route, in the public envelope.
pub async fn not_found() -> Failure {
    Failure(ApiError::not_found())
}

/// A known path with a method it does not serve: 405 in the error envelope (axum's own 405 has
/// an empty body). `prefix` is where the router is nested (nesting strips it from the URI). The
/// path is echoed only when it is short printable text.
pub fn method_not_allowed(
    prefix: &str,
    method: &axum::http::Method,
    uri: &axum::http::Uri,
) -> Failure {
    let path = format!("{prefix}{}", uri.path());
    let path = if path.len() <= 256 && path.bytes().all(|b| b.is_ascii_graphic()) {
        path
    } else {
        "…".to_owned()
    };
    Failure(ApiError::method_not_allowed(method.as_str(), &path))
}

/// A JSON response with a status.
pub fn json<T: serde::Serialize>(status: StatusCode, v: T) -> Response {
    (status, axum::Json(v)).into_response()
}
