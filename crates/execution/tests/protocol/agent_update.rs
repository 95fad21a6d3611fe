//! Agent update: only supplied members change, nested objects are replaced whole, and null
//! clears a nullable member or resets a defaulted one.

use crate::common::{assert_error, create_ok, object};
use serde_json::json;
use switchboard_execution::{
    AgentPatch, MultiAgent, Reasoning, ServiceTier, TextConfig, parse_agent_update,
};

fn patch(text: &str) -> AgentPatch {
    parse_agent_update(&object(text)).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

fn full() -> switchboard_execution::AgentConfig {
    create_ok(
        r#"{"model":"m","name":"n","instructions":"i","metadata":{"k":"v"},
            "tools":[{"type":"tool_search"},{"type":"function","name":"f","description":"","parameters":{},"defer_loading":true}],
            "text":{"format":{"type":"json_schema","schema":{"type":"object"}},"verbosity":"high"},
            "reasoning":{"effort":"high","summary":"auto"},"service_tier":"flex",
            "multi_agent":{"enabled":true,"max_concurrent_subagents":3},
            "compaction":{"async":true},"experimental":{"time_awareness":true},
            "x_agents_core":{"harness":"codex"}}"#,
    )
}

#[test]
fn an_empty_update_changes_nothing() {
    let mut cfg = full();
    let before = cfg.clone();
    cfg.apply(patch("{}"));
    assert_eq!(cfg, before);
}

#[test]
fn null_clears_or_resets() {
    let mut cfg = full();
    cfg.apply(patch(
        r#"{"name":null,"instructions":null,"metadata":null,"tools":null,"text":null,"reasoning":null,
            "service_tier":null,"multi_agent":null,"compaction":null,"x_agents_core":null}"#,
    ));
    assert_eq!(cfg.name, None);
    assert_eq!(cfg.instructions, None);
    assert!(cfg.metadata.is_empty());
    assert!(cfg.tools.is_empty());
    assert_eq!(cfg.text, TextConfig::default());
    assert_eq!(cfg.reasoning, Reasoning::default());
    assert_eq!(cfg.service_tier, ServiceTier::Auto);
    assert_eq!(cfg.multi_agent, MultiAgent::default());
    assert_eq!(cfg.compaction, None);
    assert_eq!(cfg.x_agents_core, Default::default());
    // Experimental settings cannot be cleared, only changed.
    assert_eq!(cfg.experimental, Some(json!({"time_awareness": true})));
    // Model stays.
    assert_eq!(cfg.model, "m");
}

#[test]
fn supplied_members_replace_whole() {
    let mut cfg = full();
    cfg.apply(patch(r#"{"model":"n2","reasoning":{"summary":"concise"},"metadata":{"a":"b"},"text":{"verbosity":"low"}}"#));
    assert_eq!(cfg.model, "n2");
    assert_eq!(
        cfg.reasoning,
        Reasoning {
            effort: None,
            summary: Some(switchboard_execution::ReasoningSummary::Concise)
        }
    );
    assert_eq!(
        serde_json::to_value(&cfg.metadata).unwrap(),
        json!({"a": "b"})
    );
    assert_eq!(
        cfg.text,
        TextConfig {
            verbosity: switchboard_execution::Verbosity::Low,
            ..TextConfig::default()
        }
    );
    // Untouched members keep their values.
    assert_eq!(cfg.name.as_deref(), Some("n"));
    assert_eq!(cfg.tools.len(), 2);
}

#[test]
fn compaction_object_replaces_and_experimental_merges_by_key() {
    let mut cfg = full();
    cfg.apply(patch(r#"{"compaction":{},"experimental":{}}"#));
    assert_eq!(cfg.compaction, Some(json!({"async": false})));
    assert_eq!(cfg.experimental, Some(json!({"time_awareness": true})));
    cfg.apply(patch(r#"{"experimental":{"time_awareness":false}}"#));
    assert_eq!(cfg.experimental, Some(json!({"time_awareness": false})));
    let mut plain = create_ok(r#"{"model":"m"}"#);
    plain.apply(patch(r#"{"experimental":{}}"#));
    assert_eq!(plain.experimental, Some(json!({"time_awareness": false})));
}

#[test]
fn model_cannot_be_null_or_empty() {
    assert_error(
        parse_agent_update(&object(r#"{"model":null}"#)),
        Some("model"),
        "Invalid type for 'model': expected a string, but got null instead.",
    );
    assert_error(
        parse_agent_update(&object(r#"{"model":""}"#)),
        Some("model"),
        "Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead.",
    );
}

#[test]
fn update_checks_conflicts_in_what_it_sends() {
    assert_error(
        parse_agent_update(&object(
            r#"{"tools":[{"type":"tool_search"},{"type":"tool_search"}]}"#,
        )),
        None,
        "duplicate tool_search tool",
    );
    assert_error(
        parse_agent_update(&object(
            r#"{"text":{"format":{"type":"json_schema","schema":{"type":"string"}}}}"#,
        )),
        None,
        r#"text.format.schema must have top-level type "object"; got "string""#,
    );
}
