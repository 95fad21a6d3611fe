//! Placement: whether the harness runs on the Session's `environment.type`.

use switchboard_execution::SessionSnapshot;

use super::AdmissionError;
use crate::{Declaration, PlacementKind};

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    let kind = PlacementKind::of(&snapshot.placement);
    if decl.placements.contains(&kind) {
        return Ok(());
    }
    let message = match kind {
        PlacementKind::None => "The harness does not support environment none.",
        PlacementKind::OpenaiHosted | PlacementKind::SelfHosted => {
            "The harness does not support this execution environment."
        }
    };
    Err(AdmissionError::at("environment", message))
}
