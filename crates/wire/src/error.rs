//! The public error envelope `{"error": {message, type, param, code}}` and its code table.
//!
//! Every public error is built from an [`ErrorCode`]. The table maps each code to its HTTP status
//! and envelope `type` once (the meilisearch pattern), so a handler can never pair a 409 with the
//! wrong type. Messages are part of the contract: the official SDK matches some of them exactly
//! (e.g. "Unknown pending tool call: <call_id>"), so they are written where the rule lives.

use serde_json::{Value, json};

/// One row of the error-code table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// Missing or wrong `OpenAI-Beta` header (checked before authentication).
    InvalidBeta,
    /// No valid bearer key. Code `null`, with `WWW-Authenticate: Bearer`.
    Unauthorized,
    /// Malformed, missing or foreign resource: all look alike.
    NotFound,
    /// Protocol validation; the code names the rule (`unknown_parameter`, ...).
    InvalidRequest(&'static str),
    /// A body over the route's size limit.
    RequestTooLarge,
    /// A known path asked with a method it does not serve. Code `null`, as the official API.
    MethodNotAllowed,
    /// The selected harness (or Runtime) cannot run this configuration.
    UnsupportedConfiguration,
    /// A semantic conflict (`conflict_error`): never retried by the SDK.
    Conflict,
    /// The same `Idempotency-Key` with a different request.
    IdempotencyConflict,
    /// Not ready, or a dependency (store, Runtime) is unavailable.
    ServiceUnavailable(&'static str),
    /// Anything unexpected; details go to the log, never to the caller.
    Internal,
}

impl ErrorCode {
    /// `(status, type, code)` for this row.
    pub fn row(self) -> (u16, &'static str, Option<&'static str>) {
        match self {
            ErrorCode::InvalidBeta => (400, "invalid_beta", Some("invalid_beta")),
            ErrorCode::Unauthorized => (401, "invalid_request_error", None),
            ErrorCode::NotFound => (404, "not_found_error", Some("not_found_error")),
            ErrorCode::InvalidRequest(code) => (400, "invalid_request_error", Some(code)),
            ErrorCode::RequestTooLarge => (413, "invalid_request_error", Some("request_too_large")),
            ErrorCode::MethodNotAllowed => (405, "invalid_request_error", None),
            ErrorCode::UnsupportedConfiguration => (
                400,
                "invalid_request_error",
                Some("unsupported_or_invalid_configuration"),
            ),
            ErrorCode::Conflict => (409, "conflict_error", Some("conflict_error")),
            ErrorCode::IdempotencyConflict => (409, "conflict_error", Some("idempotency_conflict")),
            ErrorCode::ServiceUnavailable(code) => (503, "server_error", Some(code)),
            ErrorCode::Internal => (500, "server_error", Some("server_error")),
        }
    }
}

/// A public error: what the caller sees, and nothing more.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {kind}: {message}")]
pub struct ApiError {
    pub status: u16,
    pub kind: &'static str,
    pub code: Option<&'static str>,
    pub param: Option<String>,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, param: Option<String>, message: impl Into<String>) -> Self {
        let (status, kind, code) = code.row();
        ApiError {
            status,
            kind,
            code,
            param,
            message: message.into(),
        }
    }

    pub fn invalid_beta() -> Self {
        Self::new(
            ErrorCode::InvalidBeta,
            None,
            "To access the Agents API, set the 'OpenAI-Beta' header to 'agents=v1'.",
        )
    }

    pub fn unauthorized() -> Self {
        Self::new(
            ErrorCode::Unauthorized,
            None,
            "A valid Agents API bearer key is required.",
        )
    }

    /// "Invalid method for URL (POST /v1/…)": the official API's 405 message.
    pub fn method_not_allowed(method: &str, path: &str) -> Self {
        ApiError::new(
            ErrorCode::MethodNotAllowed,
            None,
            format!("Invalid method for URL ({method} {path})"),
        )
    }

    pub fn not_found() -> Self {
        Self::new(ErrorCode::NotFound, None, "Resource not found.")
    }

    /// A body-gate or generic request error: `invalid_request_error`, param null.
    pub fn invalid_body(message: impl Into<String>) -> Self {
        Self::new(
            ErrorCode::InvalidRequest("invalid_request_error"),
            None,
            message,
        )
    }

    pub fn invalid_request(
        code: &'static str,
        param: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::new(ErrorCode::InvalidRequest(code), param, message)
    }

    pub fn unsupported_configuration(param: Option<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::UnsupportedConfiguration, param, message)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Conflict, None, message)
    }

    pub fn idempotency_conflict() -> Self {
        Self::new(
            ErrorCode::IdempotencyConflict,
            None,
            "This idempotency key was used with different input.",
        )
    }

    pub fn internal() -> Self {
        Self::new(
            ErrorCode::Internal,
            None,
            "The server had an error while processing your request.",
        )
    }

    /// The JSON envelope body.
    pub fn body(&self) -> Value {
        json!({
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.code,
            }
        })
    }

    /// 409s tell the official SDK not to resend (it retries 409 by default).
    pub fn should_retry_false(&self) -> bool {
        self.status == 409
    }

    /// 401s carry `WWW-Authenticate: Bearer`.
    pub fn www_authenticate(&self) -> bool {
        self.status == 401
    }
}
