//! What can go wrong, and how each provider says so on the wire.
//!
//! Loading a scenario fails with a [`ScenarioError`]. A request the mock cannot serve fails with
//! a [`RequestError`], answered in the calling provider's own error shape ([`ErrorShape`]) so
//! clients parse it like a real provider error, never with a panic or an empty reply.

use std::path::PathBuf;

use serde_json::{Value, json};

/// A scenario file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read scenario {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("scenario is not valid JSON for a scenario: {0}")]
    Parse(serde_json::Error),
    #[error("scenario {at}: {reason}")]
    Invalid { at: String, reason: String },
}

/// A request the mock refuses.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("{0}")]
    Malformed(String),
    #[error("request body exceeds {0} bytes")]
    TooLarge(usize),
    #[error("unknown route: {method} {path}")]
    NotFound { method: String, path: String },
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
}

impl RequestError {
    pub fn status(&self) -> u16 {
        match self {
            RequestError::Malformed(_) => 400,
            RequestError::TooLarge(_) => 413,
            RequestError::NotFound { .. } => 404,
            RequestError::MethodNotAllowed { .. } => 405,
        }
    }
}

/// The two error body families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorShape {
    /// `{"error": {"message", "type", "param", "code"}}` (Responses and Chat Completions).
    OpenAi,
    /// `{"type": "error", "error": {"type", "message"}}` (Messages).
    Anthropic,
}

impl ErrorShape {
    /// The provider's error body for `status`, with the error type that provider uses for it.
    pub fn body(self, status: u16, message: &str) -> Value {
        match self {
            ErrorShape::OpenAi => {
                let (kind, code) = match status {
                    404 => ("invalid_request_error", Value::from("unknown_url")),
                    429 => ("requests", Value::from("rate_limit_exceeded")),
                    500.. => ("server_error", Value::Null),
                    _ => ("invalid_request_error", Value::Null),
                };
                json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
            }
            ErrorShape::Anthropic => {
                let kind = match status {
                    401 => "authentication_error",
                    403 => "permission_error",
                    404 => "not_found_error",
                    413 => "request_too_large",
                    429 => "rate_limit_error",
                    529 => "overloaded_error",
                    500.. => "api_error",
                    _ => "invalid_request_error",
                };
                json!({"type": "error", "error": {"type": kind, "message": message}})
            }
        }
    }
}
