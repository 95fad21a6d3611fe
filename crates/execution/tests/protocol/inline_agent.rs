//! Session create's inline `agent` and its resolution against a saved Agent.

use crate::common::{assert_error, create_ok, json};
use serde_json::json as j;
use switchboard_execution::{
    InlineAgent, ServiceTier, TextConfig, Tool, parse_inline_agent, parse_inline_agent_members,
    resolve,
};

fn inline(text: &str) -> InlineAgent {
    parse_inline_agent(&json(text), "agent").unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

#[test]
fn the_agent_is_an_object() {
    assert_error(
        parse_inline_agent(&j!(null), "agent"),
        Some("agent"),
        "Invalid type for 'agent': expected an object, but got null instead.",
    );
    assert_error(
        parse_inline_agent(&j!([]), "agent"),
        Some("agent"),
        "Invalid type for 'agent': expected an object, but got an array instead.",
    );
}

#[test]
fn saved_only_members_are_unknown() {
    for member in [
        "name",
        "metadata",
        "x_agents_core",
        "agent_id",
        "tool_choice",
    ] {
        assert_error(
            parse_inline_agent(
                &json(&format!(r#"{{"model":"m","{member}":{{}}}}"#)),
                "agent",
            ),
            Some(&format!("agent.{member}")),
            &format!("Unknown parameter: 'agent.{member}'."),
        );
    }
}

#[test]
fn model_is_a_string_when_present() {
    assert_error(
        parse_inline_agent(&json(r#"{"model":null}"#), "agent"),
        Some("agent.model"),
        "Invalid type for 'agent.model': expected a string, but got null instead.",
    );
    assert_error(
        parse_inline_agent(&json(r#"{"model":4}"#), "agent"),
        Some("agent.model"),
        "Invalid type for 'agent.model': expected a string, but got an integer instead.",
    );
    assert_eq!(inline("{}"), InlineAgent::default());
}

#[test]
fn conflicts_can_run_after_the_rest_of_the_session_body() {
    let value = json(
        r#"{"tools":[{"type":"tool_search"},{"type":"tool_search"}],"text":{"format":{"type":"json_schema","schema":{"type":"array"}}}}"#,
    );
    let members = parse_inline_agent_members(&value, "agent").unwrap();
    assert_error(
        members.check_conflicts("agent"),
        None,
        "duplicate tool_search tool",
    );
    let value = json(r#"{"text":{"format":{"type":"json_schema","schema":{"type":"array"}}}}"#);
    assert_error(
        parse_inline_agent(&value, "agent"),
        None,
        r#"agent.text.format.schema must have top-level type "object"; got "array""#,
    );
}

#[test]
fn without_a_saved_agent_model_is_required() {
    assert_error(
        resolve(None, None),
        Some("agent.model"),
        "Missing required parameter: 'agent.model'.",
    );
    assert_error(
        resolve(None, Some(&inline(r#"{"instructions":"x"}"#))),
        Some("agent.model"),
        "Missing required parameter: 'agent.model'.",
    );
    let resolved = resolve(
        None,
        Some(&inline(
            r#"{"model":"gpt-x","tools":[{"type":"tool_search"}]}"#,
        )),
    )
    .unwrap();
    assert_eq!(resolved.model, "gpt-x");
    assert_eq!(resolved.name, None);
    assert_eq!(resolved.tools, vec![Tool::ToolSearch]);
    assert_eq!(resolved.text, TextConfig::default());
    assert_eq!(resolved.service_tier, ServiceTier::Auto);
}

#[test]
fn inline_members_override_the_saved_agent_whole() {
    let saved = create_ok(
        r#"{"model":"m","name":"saved","instructions":"i","tools":[{"type":"tool_search"}],
            "reasoning":{"effort":"high","summary":"auto"},"compaction":{"async":true},
            "experimental":{"time_awareness":true},"x_agents_core":{"harness":"codex"}}"#,
    );
    let resolved = resolve(Some(&saved), None).unwrap();
    assert_eq!(
        (
            resolved.name.as_deref(),
            resolved.model.as_str(),
            resolved.tools.len()
        ),
        (Some("saved"), "m", 1)
    );

    let over = inline(
        r#"{"reasoning":{"effort":"low"},"instructions":null,"tools":null,"compaction":null,"experimental":{}}"#,
    );
    let resolved = resolve(Some(&saved), Some(&over)).unwrap();
    assert_eq!(resolved.name.as_deref(), Some("saved"));
    assert_eq!(resolved.model, "m");
    assert_eq!(resolved.instructions, None);
    assert!(resolved.tools.is_empty());
    // Whole member: the saved summary does not survive a reasoning override.
    assert_eq!(resolved.reasoning.summary, None);
    assert_eq!(resolved.compaction, None);
    // Experimental settings merge by key.
    assert_eq!(resolved.experimental, Some(j!({"time_awareness": true})));
    assert_eq!(
        resolved.x_agents_core.harness,
        Some(switchboard_execution::HarnessId::Codex)
    );

    let resolved = resolve(Some(&saved), Some(&inline(r#"{"model":"other"}"#))).unwrap();
    assert_eq!(resolved.model, "other");
    assert_eq!(resolved.instructions.as_deref(), Some("i"));
    // The saved Agent is untouched.
    assert_eq!(saved.instructions.as_deref(), Some("i"));
}

#[test]
fn the_inline_form_prefixes_every_param() {
    assert_error(
        parse_inline_agent(
            &json(r#"{"tools":[{"type":"function","name":"f","description":"","parameters":[]}]}"#),
            "agent",
        ),
        Some("agent.tools[0].parameters"),
        "Invalid type for 'agent.tools[0].parameters': expected an object with string keys and unknown value values, but got an array instead.",
    );
}
