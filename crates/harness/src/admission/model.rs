//! The model identifier: every harness needs one it can name (core-contracts §7.2's stored
//! harness-config error). The parser only requires a nonempty string, so a blank one would
//! reach preparation and fail there.

use switchboard_execution::SessionSnapshot;

use super::AdmissionError;

const BLANK_MODEL: &str = "model must be a nonempty model identifier";

pub(super) fn check(snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    if snapshot.model.trim().is_empty() {
        return Err(AdmissionError::at("agent.model", BLANK_MODEL));
    }
    Ok(())
}
