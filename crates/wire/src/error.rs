//! The public error envelope `{"error": {message, type, param, code}}` and its code table.
//!
//! Every public error is built from an [`ErrorCode`]: one row per public code, each mapped to its
//! HTTP status and envelope `type` once (the meilisearch pattern), so a handler can never pair a
//! 409 with the wrong type or invent a code. Typed errors implement [`PublicError`] and become an
//! [`ApiError`] at the HTTP edge. Messages are part of the contract: the official SDK matches some
//! of them exactly (e.g. "Unknown pending tool call: <call_id>"), so they are written where the
//! rule lives.
//!
//! `invalid_request_error` and `invalid_request` are both meant: the first is the generic 400
//! code (body gate, rules without a more specific code; the SDK's tool-result race retry matches
//! it), the second is only the `Idempotency-Key` header's bounds (core-contracts §2.3 step 2).

use serde_json::{Value, json};

/// One row of the error-code table: a public code with its status and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// Missing or wrong `OpenAI-Beta` header (checked before authentication).
    InvalidBeta,
    /// No valid bearer key. Code `null`, with `WWW-Authenticate: Bearer`.
    Unauthorized,
    /// Malformed, missing or foreign resource: all look alike.
    NotFound,
    /// The generic 400: the body gate and every rule without a more specific code.
    InvalidRequestError,
    /// An `Idempotency-Key` header outside 1–128 bytes or only whitespace.
    InvalidRequest,
    /// A required member is absent.
    MissingRequiredParameter,
    /// A member the schema does not know.
    UnknownParameter,
    /// A member of the wrong JSON type.
    InvalidType,
    /// A member of the right type whose value breaks a rule (enum, length, bound of a size).
    InvalidValue,
    /// An integer under its minimum.
    IntegerBelowMinValue,
    /// An integer over its maximum.
    IntegerAboveMaxValue,
    /// A hosted or self-hosted Session without a model provider.
    ModelProviderRequired,
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
    /// The key store could not be read while authenticating.
    AuthenticationUnavailable,
    /// The credential storage key is missing or unusable.
    CredentialStorageUnavailable,
    /// Anything unexpected; details go to the log, never to the caller.
    Internal,
    /// No Runtime can serve the request (a workspace operation with none connected).
    ExecutionUnavailable,
    /// Pending input on an Environment Session waited past its reservation deadline.
    EnvironmentInputExpired,
    /// Pending input on an Environment Session was cancelled before admission.
    EnvironmentInputCancelled,
}

impl ErrorCode {
    /// Every row, in table order.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidBeta,
        ErrorCode::Unauthorized,
        ErrorCode::NotFound,
        ErrorCode::InvalidRequestError,
        ErrorCode::InvalidRequest,
        ErrorCode::MissingRequiredParameter,
        ErrorCode::UnknownParameter,
        ErrorCode::InvalidType,
        ErrorCode::InvalidValue,
        ErrorCode::IntegerBelowMinValue,
        ErrorCode::IntegerAboveMaxValue,
        ErrorCode::ModelProviderRequired,
        ErrorCode::RequestTooLarge,
        ErrorCode::MethodNotAllowed,
        ErrorCode::UnsupportedConfiguration,
        ErrorCode::Conflict,
        ErrorCode::IdempotencyConflict,
        ErrorCode::AuthenticationUnavailable,
        ErrorCode::CredentialStorageUnavailable,
        ErrorCode::Internal,
        ErrorCode::ExecutionUnavailable,
        ErrorCode::EnvironmentInputExpired,
        ErrorCode::EnvironmentInputCancelled,
    ];

    /// `(status, type, code)` for this row.
    pub fn row(self) -> (u16, &'static str, Option<&'static str>) {
        const INVALID: &str = "invalid_request_error";
        match self {
            ErrorCode::InvalidBeta => (400, "invalid_beta", Some("invalid_beta")),
            ErrorCode::Unauthorized => (401, INVALID, None),
            ErrorCode::NotFound => (404, "not_found_error", Some("not_found_error")),
            ErrorCode::InvalidRequestError => (400, INVALID, Some("invalid_request_error")),
            ErrorCode::InvalidRequest => (400, INVALID, Some("invalid_request")),
            ErrorCode::MissingRequiredParameter => {
                (400, INVALID, Some("missing_required_parameter"))
            }
            ErrorCode::UnknownParameter => (400, INVALID, Some("unknown_parameter")),
            ErrorCode::InvalidType => (400, INVALID, Some("invalid_type")),
            ErrorCode::InvalidValue => (400, INVALID, Some("invalid_value")),
            ErrorCode::IntegerBelowMinValue => (400, INVALID, Some("integer_below_min_value")),
            ErrorCode::IntegerAboveMaxValue => (400, INVALID, Some("integer_above_max_value")),
            ErrorCode::ModelProviderRequired => (400, INVALID, Some("model_provider_required")),
            ErrorCode::RequestTooLarge => (413, INVALID, Some("request_too_large")),
            ErrorCode::MethodNotAllowed => (405, INVALID, None),
            ErrorCode::UnsupportedConfiguration => {
                (400, INVALID, Some("unsupported_or_invalid_configuration"))
            }
            ErrorCode::Conflict => (409, "conflict_error", Some("conflict_error")),
            ErrorCode::IdempotencyConflict => (409, "conflict_error", Some("idempotency_conflict")),
            ErrorCode::AuthenticationUnavailable => {
                (503, "server_error", Some("authentication_unavailable"))
            }
            ErrorCode::CredentialStorageUnavailable => {
                (503, "server_error", Some("credential_storage_unavailable"))
            }
            ErrorCode::Internal => (500, "server_error", Some("server_error")),
            ErrorCode::ExecutionUnavailable => (503, "server_error", Some("execution_unavailable")),
            ErrorCode::EnvironmentInputExpired => {
                (409, "conflict_error", Some("environment_input_expired"))
            }
            ErrorCode::EnvironmentInputCancelled => {
                (409, "conflict_error", Some("environment_input_cancelled"))
            }
        }
    }

    /// The envelope's `code` (`None` serializes as null).
    pub fn code(self) -> Option<&'static str> {
        self.row().2
    }
}

/// A typed error the caller may see: which row it is, the member it points at, and its text.
/// Implementors become an [`ApiError`] through `From`, once, at the HTTP edge.
pub trait PublicError {
    fn code(&self) -> ErrorCode;
    /// The JSON path of the offending member, or `None` for a whole-request rule.
    fn param(&self) -> Option<String> {
        None
    }
    fn message(&self) -> String;
}

impl<E: PublicError> From<E> for ApiError {
    fn from(e: E) -> Self {
        ApiError::new(e.code(), e.param(), e.message())
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
        Self::new(ErrorCode::InvalidRequestError, None, message)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The public table, written out: code -> status -> type.
    const TABLE: &[(ErrorCode, u16, &str, Option<&str>)] = &[
        (
            ErrorCode::InvalidBeta,
            400,
            "invalid_beta",
            Some("invalid_beta"),
        ),
        (ErrorCode::Unauthorized, 401, "invalid_request_error", None),
        (
            ErrorCode::NotFound,
            404,
            "not_found_error",
            Some("not_found_error"),
        ),
        (
            ErrorCode::InvalidRequestError,
            400,
            "invalid_request_error",
            Some("invalid_request_error"),
        ),
        (
            ErrorCode::InvalidRequest,
            400,
            "invalid_request_error",
            Some("invalid_request"),
        ),
        (
            ErrorCode::MissingRequiredParameter,
            400,
            "invalid_request_error",
            Some("missing_required_parameter"),
        ),
        (
            ErrorCode::UnknownParameter,
            400,
            "invalid_request_error",
            Some("unknown_parameter"),
        ),
        (
            ErrorCode::InvalidType,
            400,
            "invalid_request_error",
            Some("invalid_type"),
        ),
        (
            ErrorCode::InvalidValue,
            400,
            "invalid_request_error",
            Some("invalid_value"),
        ),
        (
            ErrorCode::IntegerBelowMinValue,
            400,
            "invalid_request_error",
            Some("integer_below_min_value"),
        ),
        (
            ErrorCode::IntegerAboveMaxValue,
            400,
            "invalid_request_error",
            Some("integer_above_max_value"),
        ),
        (
            ErrorCode::ModelProviderRequired,
            400,
            "invalid_request_error",
            Some("model_provider_required"),
        ),
        (
            ErrorCode::RequestTooLarge,
            413,
            "invalid_request_error",
            Some("request_too_large"),
        ),
        (
            ErrorCode::MethodNotAllowed,
            405,
            "invalid_request_error",
            None,
        ),
        (
            ErrorCode::UnsupportedConfiguration,
            400,
            "invalid_request_error",
            Some("unsupported_or_invalid_configuration"),
        ),
        (
            ErrorCode::Conflict,
            409,
            "conflict_error",
            Some("conflict_error"),
        ),
        (
            ErrorCode::IdempotencyConflict,
            409,
            "conflict_error",
            Some("idempotency_conflict"),
        ),
        (
            ErrorCode::AuthenticationUnavailable,
            503,
            "server_error",
            Some("authentication_unavailable"),
        ),
        (
            ErrorCode::CredentialStorageUnavailable,
            503,
            "server_error",
            Some("credential_storage_unavailable"),
        ),
        (
            ErrorCode::Internal,
            500,
            "server_error",
            Some("server_error"),
        ),
        (
            ErrorCode::ExecutionUnavailable,
            503,
            "server_error",
            Some("execution_unavailable"),
        ),
        (
            ErrorCode::EnvironmentInputExpired,
            409,
            "conflict_error",
            Some("environment_input_expired"),
        ),
        (
            ErrorCode::EnvironmentInputCancelled,
            409,
            "conflict_error",
            Some("environment_input_cancelled"),
        ),
    ];

    /// Fails to compile when a row is added without being listed in `ALL` (and so in `TABLE`).
    fn listed(code: ErrorCode) -> bool {
        match code {
            ErrorCode::InvalidBeta
            | ErrorCode::Unauthorized
            | ErrorCode::NotFound
            | ErrorCode::InvalidRequestError
            | ErrorCode::InvalidRequest
            | ErrorCode::MissingRequiredParameter
            | ErrorCode::UnknownParameter
            | ErrorCode::InvalidType
            | ErrorCode::InvalidValue
            | ErrorCode::IntegerBelowMinValue
            | ErrorCode::IntegerAboveMaxValue
            | ErrorCode::ModelProviderRequired
            | ErrorCode::RequestTooLarge
            | ErrorCode::MethodNotAllowed
            | ErrorCode::UnsupportedConfiguration
            | ErrorCode::Conflict
            | ErrorCode::IdempotencyConflict
            | ErrorCode::AuthenticationUnavailable
            | ErrorCode::CredentialStorageUnavailable
            | ErrorCode::ExecutionUnavailable
            | ErrorCode::EnvironmentInputExpired
            | ErrorCode::EnvironmentInputCancelled
            | ErrorCode::Internal => ErrorCode::ALL.contains(&code),
        }
    }

    #[test]
    fn every_row_has_its_status_type_and_code() {
        assert_eq!(TABLE.len(), ErrorCode::ALL.len());
        for (row, (code, status, kind, wire_code)) in ErrorCode::ALL.iter().zip(TABLE) {
            assert_eq!(row, code, "table order");
            assert!(listed(*row));
            assert_eq!(row.row(), (*status, *kind, *wire_code), "{row:?}");
            let e = ApiError::new(*row, None, "m");
            assert_eq!(
                e.body(),
                json!({"error": {"message": "m", "type": kind, "param": null, "code": wire_code}}),
                "{row:?}"
            );
            assert_eq!(e.should_retry_false(), *status == 409, "{row:?}");
            assert_eq!(e.www_authenticate(), *status == 401, "{row:?}");
        }
    }

    /// core-contracts §2: 5xx -> `server_error`; 409 -> `conflict_error`; code `not_found_error` /
    /// `invalid_beta` -> the code; else `invalid_request_error`. Every code appears once.
    #[test]
    fn every_type_follows_the_spec_rule_and_codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for row in ErrorCode::ALL {
            let (status, kind, code) = row.row();
            let expected = match (status, code) {
                (500..=599, _) => "server_error",
                (409, _) => "conflict_error",
                (_, Some(c @ ("not_found_error" | "invalid_beta"))) => c,
                _ => "invalid_request_error",
            };
            assert_eq!(kind, expected, "{row:?}");
            if let Some(code) = code {
                assert!(seen.insert(code), "{code} is two rows");
            }
        }
    }

    struct Typed;

    impl PublicError for Typed {
        fn code(&self) -> ErrorCode {
            ErrorCode::InvalidValue
        }
        fn param(&self) -> Option<String> {
            Some("a.b".into())
        }
        fn message(&self) -> String {
            "bad".into()
        }
    }

    #[test]
    fn a_typed_error_becomes_its_row() {
        assert_eq!(
            ApiError::from(Typed).body(),
            json!({"error": {"message": "bad", "type": "invalid_request_error", "param": "a.b", "code": "invalid_value"}})
        );
    }
}
