//! The one error the execution parser returns: a protocol validation failure.
//!
//! Every failure is a 400 `invalid_request_error` at the HTTP edge; `param` is the JSON path of
//! the offending member (or `None` for whole-request rules such as duplicate tool names), and
//! `code` is the table row of the rule that failed (`missing_required_parameter`,
//! `unknown_parameter`, `invalid_type`, `invalid_value`, ...), set where the message is written
//! (`error_messages`).

use switchboard_wire::{ErrorCode, PublicError};
use thiserror::Error;

/// The row of a rule that has no more specific one.
pub const GENERIC_CODE: ErrorCode = ErrorCode::InvalidRequestError;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ValidationError {
    pub param: Option<String>,
    pub message: String,
    pub code: ErrorCode,
}

impl ValidationError {
    pub fn new(param: impl Into<Option<String>>, message: impl Into<String>) -> Self {
        ValidationError {
            param: param.into(),
            message: message.into(),
            code: GENERIC_CODE,
        }
    }

    /// The same error under the code of a more specific rule.
    pub fn with_code(mut self, code: ErrorCode) -> Self {
        self.code = code;
        self
    }
}

impl PublicError for ValidationError {
    fn code(&self) -> ErrorCode {
        self.code
    }

    fn param(&self) -> Option<String> {
        self.param.clone()
    }

    fn message(&self) -> String {
        self.message.clone()
    }
}
