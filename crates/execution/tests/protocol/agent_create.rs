//! Agent create: top-level members, their types and limits. (`name` and `metadata` exist only
//! in the saved form, so they are checked on create and update here, not through `each_form`.)

use crate::common::{
    assert_each_form, assert_each_form_ok, assert_error, create, create_ok, object,
};
use switchboard_execution::{
    MultiAgent, ReasoningEffort, ReasoningSummary, ServiceTier, parse_agent_update,
};

/// Create (`{"model":"m", ...}`) and update (`{...}`) give the same error.
#[track_caller]
fn assert_saved_forms(fields: &str, param: Option<&str>, message: &str) {
    assert_error(
        create(&format!(r#"{{"model":"m",{fields}}}"#)),
        param,
        message,
    );
    assert_error(
        parse_agent_update(&object(&format!("{{{fields}}}"))),
        param,
        message,
    );
}

#[test]
fn model_is_required_and_a_nonempty_string() {
    assert_error(
        create("{}"),
        Some("model"),
        "Missing required parameter: 'model'.",
    );
    assert_error(
        create(r#"{"name":"x"}"#),
        Some("model"),
        "Missing required parameter: 'model'.",
    );
    assert_error(
        create(r#"{"model":null}"#),
        Some("model"),
        "Invalid type for 'model': expected a string, but got null instead.",
    );
    assert_error(
        create(r#"{"model":4}"#),
        Some("model"),
        "Invalid type for 'model': expected a string, but got an integer instead.",
    );
    assert_error(
        create(r#"{"model":""}"#),
        Some("model"),
        "Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead.",
    );
    assert_eq!(
        create_ok(r#"{"model":" caller-model "}"#).model,
        " caller-model "
    );
}

#[test]
fn missing_members_come_after_values_and_unknowns() {
    assert_error(
        create(r#"{"reasoning":{"effort":"bogus"}}"#),
        Some("reasoning.effort"),
        "Invalid value: 'bogus'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.",
    );
    assert_error(
        create(r#"{"tool_choice":"auto"}"#),
        Some("tool_choice"),
        "Unknown parameter: 'tool_choice'.",
    );
    // Conflicts come after the missing model.
    assert_error(
        create(r#"{"tools":[{"type":"tool_search"},{"type":"tool_search"}]}"#),
        Some("model"),
        "Missing required parameter: 'model'.",
    );
}

#[test]
fn name() {
    assert_saved_forms(
        &format!(r#""name":"{}""#, "x".repeat(129)),
        Some("name"),
        "Invalid 'name': string too long. Expected a string with maximum length 128, but got a string with length 129 instead.",
    );
    assert_saved_forms(
        r#""name":1"#,
        Some("name"),
        "Invalid type for 'name': expected a string, but got an integer instead.",
    );
    for name in ["雪".repeat(128), String::new(), "  untrimmed  ".into()] {
        assert_eq!(
            create_ok(&format!(r#"{{"model":"m","name":"{name}"}}"#))
                .name
                .as_deref(),
            Some(name.as_str())
        );
    }
    assert_eq!(create_ok(r#"{"model":"m","name":null}"#).name, None);
}

#[test]
fn instructions() {
    assert_each_form(
        r#""instructions":false"#,
        Some("{p}instructions"),
        "Invalid type for '{p}instructions': expected a string, but got a boolean instead.",
    );
    assert_eq!(
        create_ok(r#"{"model":"m","instructions":" keep "}"#)
            .instructions
            .as_deref(),
        Some(" keep ")
    );
    assert_each_form_ok(r#""instructions":null"#);
}

#[test]
fn metadata() {
    assert_saved_forms(
        r#""metadata":5"#,
        Some("metadata"),
        "Invalid type for 'metadata': expected an object with string keys and string values, but got an integer instead.",
    );
    assert_saved_forms(
        r#""metadata":{"k":1}"#,
        Some("metadata.k"),
        "Invalid type for 'metadata.k': expected a string, but got an integer instead.",
    );
    assert_saved_forms(
        r#""metadata":{"k":null}"#,
        Some("metadata.k"),
        "Invalid type for 'metadata.k': expected a string, but got null instead.",
    );
    let seventeen: Vec<String> = (0..17).map(|i| format!(r#""{i}":"v""#)).collect();
    assert_saved_forms(
        &format!(r#""metadata":{{{}}}"#, seventeen.join(",")),
        Some("metadata"),
        "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with 17 properties instead.",
    );
    let key = "x".repeat(65);
    assert_saved_forms(
        &format!(r#""metadata":{{"{key}":"v"}}"#),
        Some(&format!("metadata.{key}")),
        &format!(
            "Invalid property name in 'metadata': '{key}' is too long. Expected a string with maximum length 64, but got a string with length 65 instead."
        ),
    );
    assert_saved_forms(
        &format!(r#""metadata":{{"k":"{}"}}"#, "v".repeat(513)),
        Some("metadata.k"),
        "Invalid 'metadata.k': string too long. Expected a string with maximum length 512, but got a string with length 513 instead.",
    );
    // Types first (document order), then the count, then keys in sorted order.
    let mut many: Vec<String> = (0..17).map(|i| format!(r#""{i}":"v""#)).collect();
    many.push(r#""bad":1"#.into());
    assert_saved_forms(
        &format!(r#""metadata":{{{}}}"#, many.join(",")),
        Some("metadata.bad"),
        "Invalid type for 'metadata.bad': expected a string, but got an integer instead.",
    );
    assert_saved_forms(
        &format!(
            r#""metadata":{{"b":"{}","a":"{}"}}"#,
            "v".repeat(513),
            "v".repeat(513)
        ),
        Some("metadata.a"),
        "Invalid 'metadata.a': string too long. Expected a string with maximum length 512, but got a string with length 513 instead.",
    );
    let saved = create_ok(&format!(
        r#"{{"model":"m","metadata":{{"empty":"","{}":"{}"}}}}"#,
        "🧪".repeat(64),
        "值".repeat(512)
    ));
    assert_eq!(saved.metadata.len(), 2);
    assert!(
        create_ok(r#"{"model":"m","metadata":null}"#)
            .metadata
            .is_empty()
    );
    // The inline agent has no metadata.
    assert_error(
        switchboard_execution::parse_inline_agent(
            &crate::common::json(r#"{"metadata":{}}"#),
            "agent",
        ),
        Some("agent.metadata"),
        "Unknown parameter: 'agent.metadata'.",
    );
}

#[test]
fn reasoning() {
    assert_each_form(
        r#""reasoning":{"summary":"verbose"}"#,
        Some("{p}reasoning.summary"),
        "Invalid value: 'verbose'. Supported values are: 'concise', 'detailed', and 'auto'.",
    );
    assert_each_form(
        r#""reasoning":[]"#,
        Some("{p}reasoning"),
        "Invalid type for '{p}reasoning': expected an object, but got an array instead.",
    );
    assert_each_form(
        r#""reasoning":{"Effort":"high"}"#,
        Some("{p}reasoning.Effort"),
        "Unknown parameter: '{p}reasoning.Effort'.",
    );
    let saved = create_ok(r#"{"model":"m","reasoning":{"effort":"max","summary":"detailed"}}"#);
    assert_eq!(
        (saved.reasoning.effort, saved.reasoning.summary),
        (Some(ReasoningEffort::Max), Some(ReasoningSummary::Detailed))
    );
    for effort in ["none", "minimal", "low", "medium", "high", "xhigh", "max"] {
        assert_each_form_ok(&format!(r#""reasoning":{{"effort":"{effort}"}}"#));
    }
    assert_each_form_ok(r#""reasoning":{"effort":null,"summary":null}"#);
    assert_each_form_ok(r#""reasoning":null"#);
}

#[test]
fn service_tier() {
    assert_each_form(
        r#""service_tier":"turbo""#,
        Some("{p}service_tier"),
        "Invalid value: 'turbo'. Supported values are: 'auto', 'default', 'flex', 'priority', 'fast', and 'ultrafast'.",
    );
    assert_each_form(
        &format!(r#""service_tier":"{}""#, "<".repeat(257)),
        Some("{p}service_tier"),
        "Invalid value. Supported values are: 'auto', 'default', 'flex', 'priority', 'fast', and 'ultrafast'.",
    );
    for (text, tier) in [
        ("auto", ServiceTier::Auto),
        ("default", ServiceTier::Default),
        ("flex", ServiceTier::Flex),
        ("priority", ServiceTier::Priority),
        ("fast", ServiceTier::Fast),
        ("ultrafast", ServiceTier::Ultrafast),
    ] {
        assert_eq!(
            create_ok(&format!(r#"{{"model":"m","service_tier":"{text}"}}"#)).service_tier,
            tier
        );
    }
    assert_eq!(
        create_ok(r#"{"model":"m","service_tier":null}"#).service_tier,
        ServiceTier::Auto
    );
}

#[test]
fn multi_agent() {
    assert_each_form(
        r#""multi_agent":{}"#,
        Some("{p}multi_agent.enabled"),
        "Missing required parameter: '{p}multi_agent.enabled'.",
    );
    assert_each_form(
        r#""multi_agent":{"enabled":null}"#,
        Some("{p}multi_agent.enabled"),
        "Invalid type for '{p}multi_agent.enabled': expected a boolean, but got null instead.",
    );
    assert_each_form(
        r#""multi_agent":{"enabled":true,"max_concurrent_subagents":0}"#,
        Some("{p}multi_agent.max_concurrent_subagents"),
        "Invalid '{p}multi_agent.max_concurrent_subagents': integer below minimum value. Expected a value >= 1, but got 0 instead.",
    );
    assert_each_form(
        r#""multi_agent":{"enabled":false,"max_concurrent_subagents":0}"#,
        Some("{p}multi_agent.max_concurrent_subagents"),
        "Invalid '{p}multi_agent.max_concurrent_subagents': integer below minimum value. Expected a value >= 1, but got 0 instead.",
    );
    assert_each_form(
        r#""multi_agent":{"enabled":true,"max_concurrent_subagents":1.5}"#,
        Some("{p}multi_agent.max_concurrent_subagents"),
        "Invalid type for '{p}multi_agent.max_concurrent_subagents': expected an integer, but got a number instead.",
    );
    assert_each_form(
        r#""multi_agent":{"enabled":true,"max_concurrent_subagents":null}"#,
        Some("{p}multi_agent.max_concurrent_subagents"),
        "Invalid type for '{p}multi_agent.max_concurrent_subagents': expected an integer, but got null instead.",
    );
    assert_each_form(
        r#""multi_agent":{"enabled":true,"max_concurrent_subagents":-99999999999999999999}"#,
        Some("{p}multi_agent.max_concurrent_subagents"),
        "Invalid '{p}multi_agent.max_concurrent_subagents': integer below minimum value. Expected a value >= 1.",
    );
    assert_each_form(
        r#""multi_agent":{"enabled":true,"max_concurrent_subagents":4294967296}"#,
        Some("{p}multi_agent.max_concurrent_subagents"),
        "Invalid '{p}multi_agent.max_concurrent_subagents': integer above maximum value. Expected a value <= 4294967295, but got 4294967296 instead.",
    );
    let ma =
        |fields: &str| create_ok(&format!(r#"{{"model":"m","multi_agent":{fields}}}"#)).multi_agent;
    assert_eq!(
        ma(r#"{"enabled":true}"#),
        MultiAgent {
            enabled: true,
            max_concurrent_subagents: Some(6)
        }
    );
    assert_eq!(
        ma(r#"{"enabled":true,"max_concurrent_subagents":4294967295}"#).max_concurrent_subagents,
        Some(4294967295)
    );
    assert_eq!(
        ma(r#"{"enabled":false,"max_concurrent_subagents":4}"#),
        MultiAgent {
            enabled: false,
            max_concurrent_subagents: None
        }
    );
    assert_eq!(ma("null"), MultiAgent::default());
}

#[test]
fn compaction_and_experimental() {
    assert_each_form(
        r#""compaction":{"async":"yes"}"#,
        Some("{p}compaction.async"),
        "Invalid type for '{p}compaction.async': expected a boolean, but got a string instead.",
    );
    assert_each_form(
        r#""compaction":{"mode":1}"#,
        Some("{p}compaction.mode"),
        "Unknown parameter: '{p}compaction.mode'.",
    );
    assert_each_form(
        r#""compaction":true"#,
        Some("{p}compaction"),
        "Invalid type for '{p}compaction': expected an object, but got a boolean instead.",
    );
    assert_each_form(
        r#""experimental":null"#,
        Some("{p}experimental"),
        "Invalid type for '{p}experimental': expected an object, but got null instead.",
    );
    assert_each_form(
        r#""experimental":{"time_awareness":null}"#,
        Some("{p}experimental.time_awareness"),
        "Invalid type for '{p}experimental.time_awareness': expected a boolean, but got null instead.",
    );
    assert_each_form(
        r#""experimental":{"other":true}"#,
        Some("{p}experimental.other"),
        "Unknown parameter: '{p}experimental.other'.",
    );
    let saved = create_ok(
        r#"{"model":"m","compaction":{"async":true},"experimental":{"time_awareness":true}}"#,
    );
    assert_eq!(saved.compaction, Some(serde_json::json!({"async": true})));
    assert_eq!(
        saved.experimental,
        Some(serde_json::json!({"time_awareness": true}))
    );
    let saved = create_ok(r#"{"model":"m","compaction":{},"experimental":{}}"#);
    assert_eq!(saved.compaction, Some(serde_json::json!({"async": false})));
    assert_eq!(
        saved.experimental,
        Some(serde_json::json!({"time_awareness": false}))
    );
    let saved = create_ok(r#"{"model":"m","compaction":{"async":null}}"#);
    assert_eq!(saved.compaction, Some(serde_json::json!({"async": false})));
    assert_eq!(
        create_ok(r#"{"model":"m","compaction":null}"#).compaction,
        None
    );
}
