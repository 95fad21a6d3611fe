//! Function tools and deferred function discovery.
//!
//! Each function, in tool order: its name against the declared pattern, then its parameters
//! root, then the numbers in its parameters.
//!
//! Discovery needs both halves: `tool_search` without a deferred function, or deferred
//! functions without `tool_search`, is rejected for every harness, after the harness's own
//! support for discovery is checked.

use switchboard_execution::{SessionSnapshot, Tool};

use super::{AdmissionError, has_object_root, tool_path};
use crate::Declaration;

const NO_FUNCTIONS: &str = "The harness does not support function tools.";
const OBJECT_PARAMETERS: &str =
    "The harness requires function parameters with a type \"object\" root.";
// The contracts' message for numbers a harness cannot read (the Binary64OutputSchema row).
const LOSSLESS_NUMBERS: &str = "This runtime requires an object schema with lossless JSON numbers.";
const NO_TOOL_SEARCH: &str = "The harness does not support tool search.";
const DISCOVERY_PAIR: &str =
    "Tool search requires deferred functions, and deferred functions require tool search.";

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    if snapshot.functions().next().is_some() && !decl.functions.tools {
        return Err(AdmissionError::at("agent.tools", NO_FUNCTIONS));
    }
    let names = decl.functions.name;
    for (i, tool) in snapshot.tools.iter().enumerate() {
        let Tool::Function(f) = tool else { continue };
        if !names.matches(&f.name) {
            return Err(AdmissionError::at(
                format!("{}.name", tool_path(i)),
                format!(
                    "The harness requires function names of {}.",
                    names.describe()
                ),
            ));
        }
        if decl.functions.parameters_object_root && !has_object_root(&f.parameters) {
            return Err(AdmissionError::at(
                format!("{}.parameters", tool_path(i)),
                OBJECT_PARAMETERS,
            ));
        }
        if !decl.functions.parameters_numbers.readable(&f.parameters) {
            return Err(AdmissionError::at(
                format!("{}.parameters", tool_path(i)),
                LOSSLESS_NUMBERS,
            ));
        }
    }

    let search = snapshot.has_tool_search();
    let deferred = snapshot.functions().any(|f| f.defer_loading);
    if (search || deferred) && !decl.tool_search {
        return Err(AdmissionError::at("agent.tools", NO_TOOL_SEARCH));
    }
    if search != deferred {
        return Err(AdmissionError::at("agent.tools", DISCOVERY_PAIR));
    }
    Ok(())
}
