//! The one error the execution parser returns: a protocol validation failure.
//!
//! Every failure is a 400 `invalid_request_error` at the HTTP edge; `param` is the JSON path of
//! the offending member (or `None` for whole-request rules such as duplicate tool names).

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ValidationError {
    pub param: Option<String>,
    pub message: String,
}

impl ValidationError {
    pub fn new(param: impl Into<Option<String>>, message: impl Into<String>) -> Self {
        ValidationError {
            param: param.into(),
            message: message.into(),
        }
    }
}
