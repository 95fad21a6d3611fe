//! The Agent settings besides tools and text, shared by the saved and inline forms.
//!
//! Each reader returns the *saved* value with its default applied, so a member set to null and
//! an omitted member end up the same where the pinned SDK says so:
//!
//! - `reasoning` (nullable): `{effort, summary}`, each nullable; both keys always saved.
//! - `service_tier` (nullable): null is `auto`.
//! - `multi_agent` (nullable): `{enabled*, max_concurrent_subagents ≥ 1}`; enabled without a
//!   maximum means 6, and a disabled configuration saves a null maximum (the official read
//!   form: "or null when disabled").
//! - `compaction` (nullable): `{async}` with `async` nullable; saved as `{"async": bool}`,
//!   null (blocking compaction) when the member is null.
//! - `experimental` (not nullable): `{time_awareness: bool}`; settings merge by key, so the
//!   reader returns only the supplied keys (see [`crate::declarations::merge_experimental`]).

use serde_json::{Map, Value, json};

use crate::declarations::{MultiAgent, Reasoning, ReasoningEffort, ReasoningSummary, ServiceTier};
use crate::error::ValidationError;
use crate::error_messages::kind;
use crate::object_reader::ObjectReader;
use crate::scalar;

/// The official default maximum of an enabled `multi_agent`.
pub const DEFAULT_MAX_CONCURRENT_SUBAGENTS: u32 = 6;

const EFFORTS: &[(&str, ReasoningEffort)] = &[
    ("none", ReasoningEffort::None),
    ("minimal", ReasoningEffort::Minimal),
    ("low", ReasoningEffort::Low),
    ("medium", ReasoningEffort::Medium),
    ("high", ReasoningEffort::High),
    ("xhigh", ReasoningEffort::Xhigh),
    ("max", ReasoningEffort::Max),
];
const SUMMARIES: &[(&str, ReasoningSummary)] = &[
    ("concise", ReasoningSummary::Concise),
    ("detailed", ReasoningSummary::Detailed),
    ("auto", ReasoningSummary::Auto),
];
const SERVICE_TIERS: &[(&str, ServiceTier)] = &[
    ("auto", ServiceTier::Auto),
    ("default", ServiceTier::Default),
    ("flex", ServiceTier::Flex),
    ("priority", ServiceTier::Priority),
    ("fast", ServiceTier::Fast),
    ("ultrafast", ServiceTier::Ultrafast),
];

pub fn reasoning(value: &Value, path: &str) -> Result<Reasoning, ValidationError> {
    let mut reasoning = Reasoning::default();
    if value.is_null() {
        return Ok(reasoning);
    }
    ObjectReader::new(value, path, kind::OBJECT)?.read(
        &["effort", "summary"],
        |key, value, path| {
            match key {
                "effort" => reasoning.effort = scalar::nullable_choice(value, path, EFFORTS)?,
                _ => reasoning.summary = scalar::nullable_choice(value, path, SUMMARIES)?,
            }
            Ok(())
        },
    )?;
    Ok(reasoning)
}

pub fn service_tier(value: &Value, path: &str) -> Result<ServiceTier, ValidationError> {
    Ok(scalar::nullable_choice(value, path, SERVICE_TIERS)?.unwrap_or_default())
}

pub fn multi_agent(value: &Value, path: &str) -> Result<MultiAgent, ValidationError> {
    if value.is_null() {
        return Ok(MultiAgent::default());
    }
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let (mut enabled, mut max) = (None, None);
    obj.read(
        &["enabled", "max_concurrent_subagents"],
        |key, value, path| {
            match key {
                "enabled" => enabled = Some(scalar::boolean(value, path)?),
                _ => max = Some(scalar::integer(value, path, 1, u64::from(u32::MAX))?),
            }
            Ok(())
        },
    )?;
    let enabled = obj.required(enabled, "enabled")?;
    let max_concurrent_subagents = enabled.then(|| {
        // `integer` bounded the value to u32.
        max.and_then(|m| u32::try_from(m).ok())
            .unwrap_or(DEFAULT_MAX_CONCURRENT_SUBAGENTS)
    });
    Ok(MultiAgent {
        enabled,
        max_concurrent_subagents,
    })
}

/// `None` for null (blocking compaction); otherwise the effective `{"async": bool}`.
pub fn compaction(value: &Value, path: &str) -> Result<Option<Value>, ValidationError> {
    if value.is_null() {
        return Ok(None);
    }
    let mut background = false;
    ObjectReader::new(value, path, kind::OBJECT)?.read(&["async"], |_, value, path| {
        background = scalar::nullable_boolean(value, path)?.unwrap_or(false);
        Ok(())
    })?;
    Ok(Some(json!({ "async": background })))
}

/// The supplied experimental settings only; absent keys keep their current (or default) value.
pub fn experimental(value: &Value, path: &str) -> Result<Map<String, Value>, ValidationError> {
    let mut supplied = Map::new();
    ObjectReader::new(value, path, kind::OBJECT)?.read(
        &["time_awareness"],
        |key, value, path| {
            supplied.insert(key.to_string(), Value::Bool(scalar::boolean(value, path)?));
            Ok(())
        },
    )?;
    Ok(supplied)
}
