//! `x_agents_core.harness_config` against the members the harness applies, in document order.

use switchboard_execution::SessionSnapshot;

use super::AdmissionError;
use crate::{Declaration, HarnessConfig};

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    let (HarnessConfig::Members(members), Some(config)) =
        (decl.harness_config, &snapshot.harness_config)
    else {
        return Ok(());
    };
    for (key, value) in config {
        let param = format!("x_agents_core.harness_config.{key}");
        let Some(member) = members.iter().find(|m| m.name == key) else {
            return Err(AdmissionError::at(
                param,
                format!("The harness does not support harness_config member '{key}'."),
            ));
        };
        if !value.as_str().is_some_and(|v| member.values.contains(&v)) {
            return Err(AdmissionError::at(
                param,
                format!(
                    "The harness supports harness_config.{key} values {}.",
                    member.values.join(", ")
                ),
            ));
        }
    }
    Ok(())
}
