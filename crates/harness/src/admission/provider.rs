//! The model provider bundle: a protocol the harness drives, and the token limits some
//! harnesses need because they cannot learn them from the provider.
//!
//! Messages are the stored harness-config errors (core-contracts §7.2), lower-case as stored.

use switchboard_execution::ModelProvider;

use super::AdmissionError;
use crate::Declaration;

const PARAM: &str = "x_agents_core.model_provider";
const PROTOCOL: &str = "selected harness does not support this model provider protocol";
const TOKEN_LIMITS: &str =
    "selected harness requires positive model context_window and max_output_tokens";

/// Checks one provider bundle against the declaration. [`crate::validate_selection`] runs it
/// on the snapshot's bundle; a deployment default resolved later can be checked with it too.
pub fn validate_model_provider(
    decl: &Declaration,
    provider: &ModelProvider,
) -> Result<(), AdmissionError> {
    let Some(support) = decl.provider(provider.protocol) else {
        return Err(AdmissionError::at(PARAM, PROTOCOL));
    };
    let positive = |n: Option<u64>| n.is_some_and(|n| n > 0);
    if support.requires_token_limits
        && !(positive(provider.context_window) && positive(provider.max_output_tokens))
    {
        return Err(AdmissionError::at(PARAM, TOKEN_LIMITS));
    }
    Ok(())
}
