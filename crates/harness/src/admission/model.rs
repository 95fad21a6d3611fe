//! The model identifier: every harness needs one it can name (core-contracts §7.2's stored
//! harness-config error). The parser only requires a nonempty string, so a blank one would
//! reach preparation and fail there. A harness that takes the model on its command line also
//! cannot take a NUL in it (a process argument ends at NUL).

use switchboard_execution::SessionSnapshot;

use super::AdmissionError;
use crate::Declaration;

const BLANK_MODEL: &str = "model must be a nonempty model identifier";
const NUL_MODEL: &str = "The harness requires a model identifier without NUL characters.";

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    if snapshot.model.trim().is_empty() {
        return Err(AdmissionError::at("agent.model", BLANK_MODEL));
    }
    if decl.model_on_command_line && snapshot.model.contains('\0') {
        return Err(AdmissionError::at("agent.model", NUL_MODEL));
    }
    Ok(())
}
