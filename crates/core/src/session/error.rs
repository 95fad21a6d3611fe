//! Why a Session operation was refused or could not complete. The HTTP edge maps each variant
//! to the public error envelope once (`edge.rs`); nothing in the Session layer knows HTTP.

use switchboard_execution::ValidationError;
use switchboard_store::StoreError;

use crate::agents::AgentError;
use crate::secrets::SecretError;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The request does not parse (protocol validation).
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    /// `Idempotency-Key` is empty, only whitespace or longer than 128 bytes.
    #[error("The Idempotency-Key header must be 1 to 128 bytes and not only whitespace.")]
    InvalidIdempotencyKey,
    /// The key was used with different input, or its Session is gone.
    #[error("idempotency conflict")]
    IdempotencyConflict,
    /// No Session (or Turn) with this ID.
    #[error("not found")]
    NotFound,
    /// The harness or this service cannot run what was asked (`unsupported_configuration`).
    #[error("{message}")]
    Unsupported {
        param: Option<String>,
        message: String,
    },
    /// The Session has no model provider to run with.
    #[error(
        "This Session was created without a model provider and cannot run. Create a new Session with x_agents_core.model_provider or an Agent that has one saved."
    )]
    ModelProviderRequired,
    /// A stored Session runs on the deployment's provider, and the deployment has none now.
    #[error("stored Session {0} has no model provider")]
    ProviderGone(String),
    /// The input cannot apply in the Session's current state (409 `conflict`).
    #[error("{0}")]
    Conflict(&'static str),
    /// An MCP server's Vault credential cannot be selected (400, core-contracts §5.4).
    #[error("{0}")]
    CredentialSelection(String),
    /// More than one attached credential matches an MCP server (409, core-contracts §5.4).
    #[error("{0}")]
    CredentialConflict(String),
    /// A function result that names no call of this Session or the wrong Turn.
    #[error("{0}")]
    UnknownCall(String),
    /// No Runtime can serve the request (503 `execution_unavailable`).
    #[error("Execution is not available on this service.")]
    ExecutionUnavailable,
    /// A workspace path the Runtime refused (it leaves the workspace): 400, param `path`.
    #[error("{0}")]
    InvalidPath(String),
    /// Pending input waited past the reservation deadline for its Environment (409).
    #[error("The environment input deadline elapsed before admission.")]
    EnvironmentInputExpired,
    /// Pending input was cancelled before its Environment admitted it (409).
    #[error("The environment input was cancelled before admission.")]
    EnvironmentInputCancelled,
    /// Another live replica holds the Session (its internal address): the request belongs
    /// there (`crate::forward`); when it cannot go there, 503 `execution_unavailable`.
    #[error("Execution is not available on this service.")]
    Moved(String),
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// A stored document does not parse, or a document does not serialize.
    #[error("stored Session state is unreadable: {0}")]
    Corrupt(#[from] serde_json::Error),
}

impl SessionError {
    pub fn unsupported(param: Option<&str>, message: impl Into<String>) -> SessionError {
        SessionError::Unsupported {
            param: param.map(str::to_owned),
            message: message.into(),
        }
    }
}

impl From<switchboard_harness::AdmissionError> for SessionError {
    fn from(e: switchboard_harness::AdmissionError) -> Self {
        SessionError::Unsupported {
            param: e.param,
            message: e.message,
        }
    }
}
