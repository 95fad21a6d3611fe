//! `text`: structured output (`text.format: json_schema`) and text verbosity.
//!
//! A harness whose SDK reads numbers as binary64 (Claude) also needs the schema to state
//! `"type": "object"` at its root and to keep every number through binary64; both share one
//! message. Saved Agents keep any schema: this runs only at Session admission.

use switchboard_execution::{SessionSnapshot, TextFormat, Verbosity};

use super::{AdmissionError, has_object_root, wire_name};
use crate::{Declaration, binary64};

const NO_JSON_SCHEMA: &str = "The harness does not support json_schema output.";
const MEDIUM_VERBOSITY_ONLY: &str = "The harness supports medium text verbosity only.";
const BINARY64_SCHEMA: &str = "This runtime requires an object schema with lossless JSON numbers.";

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    let schema = match &snapshot.text.format {
        TextFormat::JsonSchema { schema } => Some(schema),
        TextFormat::Text => None,
    };
    if schema.is_some() && !decl.structured_output.json_schema {
        return Err(AdmissionError::at("agent.text.format", NO_JSON_SCHEMA));
    }

    let verbosity = snapshot.text.verbosity;
    let verbosities = decl.execution.text_verbosities;
    if !verbosities.contains(&verbosity) {
        let message = if verbosities == [Verbosity::Medium] {
            MEDIUM_VERBOSITY_ONLY.to_owned()
        } else {
            format!(
                "The harness does not support text verbosity '{}'.",
                wire_name(verbosity)
            )
        };
        return Err(AdmissionError::at("agent.text.verbosity", message));
    }

    if let Some(schema) = schema
        && decl.structured_output.binary64_output_schema
        && !(has_object_root(schema) && binary64::lossless(schema))
    {
        return Err(AdmissionError::at("agent.text.format", BINARY64_SCHEMA));
    }
    if let Some(schema) = schema
        && !decl.structured_output.schema_numbers.readable(schema)
    {
        return Err(AdmissionError::at("agent.text.format", BINARY64_SCHEMA));
    }
    Ok(())
}
