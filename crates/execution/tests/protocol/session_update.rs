//! Session update bodies: `metadata`, `agent{model, reasoning{effort}, service_tier, tools}`,
//! `prompt_cache_options`, `review`; null clears.

use crate::common::{assert_error, object};
use serde_json::json as j;
use switchboard_execution::{
    Reasoning, ReasoningEffort, ServiceTier, SessionUpdate, Tool, ValidationError,
    parse_session_update,
};

fn update(text: &str) -> Result<SessionUpdate, ValidationError> {
    parse_session_update(&object(text))
}

fn update_ok(text: &str) -> SessionUpdate {
    update(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

#[test]
fn an_empty_body_changes_nothing() {
    assert_eq!(update_ok("{}"), SessionUpdate::default());
}

#[test]
fn the_recorded_sdk_body_parses() {
    let u = update_ok(
        r#"{"agent":{"model":"gpt-y","tools":null},"metadata":null,"prompt_cache_options":null}"#,
    );
    let agent = u.agent.unwrap();
    assert_eq!(agent.model.as_deref(), Some("gpt-y"));
    assert_eq!(agent.tools, Some(vec![]));
    assert_eq!((agent.reasoning, agent.service_tier), (None, None));
    assert_eq!(u.metadata, Some(None));
    assert_eq!(u.prompt_cache_options, Some(None));
    assert_eq!(u.review, None);
}

#[test]
fn supplied_members_are_kept() {
    let u = update_ok(
        r#"{"metadata":{"k":"v"},"review":"auto_review","prompt_cache_options":{"ttl":"30m"},
            "agent":{"reasoning":{"effort":"high"},"service_tier":null,"tools":[{"type":"tool_search"}]}}"#,
    );
    assert_eq!(u.metadata.unwrap().unwrap()["k"], "v");
    assert_eq!(u.review, Some(Some("auto_review".into())));
    assert_eq!(u.prompt_cache_options, Some(Some(j!({"ttl": "30m"}))));
    let agent = u.agent.unwrap();
    assert_eq!(
        agent.reasoning,
        Some(Reasoning {
            effort: Some(ReasoningEffort::High),
            summary: None
        })
    );
    assert_eq!(agent.service_tier, Some(ServiceTier::Auto));
    assert_eq!(agent.tools, Some(vec![Tool::ToolSearch]));
    assert_eq!(update_ok(r#"{"review":null}"#).review, Some(None));
    assert_eq!(
        update_ok(r#"{"agent":{"reasoning":null}}"#)
            .agent
            .unwrap()
            .reasoning,
        Some(Reasoning::default())
    );
}

#[test]
fn unknown_members_are_rejected() {
    for (body, param) in [
        (r#"{"environment":{"type":"none"}}"#, "environment"),
        (r#"{"x_agents_core":{}}"#, "x_agents_core"),
        (r#"{"agent":{"instructions":"i"}}"#, "agent.instructions"),
        (r#"{"agent":{"text":null}}"#, "agent.text"),
        (
            r#"{"agent":{"reasoning":{"effort":"low","summary":"auto"}}}"#,
            "agent.reasoning.summary",
        ),
    ] {
        assert_error(
            update(body),
            Some(param),
            &format!("Unknown parameter: '{param}'."),
        );
    }
}

#[test]
fn member_values_are_checked() {
    assert_error(
        update(r#"{"agent":null}"#),
        Some("agent"),
        "Invalid type for 'agent': expected an object, but got null instead.",
    );
    assert_error(
        update(r#"{"agent":{"model":null}}"#),
        Some("agent.model"),
        "Invalid type for 'agent.model': expected a string, but got null instead.",
    );
    assert_error(
        update(r#"{"agent":{"reasoning":{"effort":"huge"}}}"#),
        Some("agent.reasoning.effort"),
        "Invalid value: 'huge'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.",
    );
    assert_error(
        update(r#"{"metadata":{"k":1}}"#),
        Some("metadata.k"),
        "Invalid type for 'metadata.k': expected a string, but got an integer instead.",
    );
    assert_error(
        update(r#"{"review":"later"}"#),
        Some("review"),
        "Invalid value: 'later'. Supported values are: 'none' and 'auto_review'.",
    );
}

#[test]
fn tools_use_the_inline_form_and_conflicts_come_last() {
    let mcp = r#"{"type":"mcp","server_label":"s","transport":{"type":"http","server_url":"https://mcp.example/","authorization":"tok"}}"#;
    assert_error(
        update(&format!(r#"{{"agent":{{"tools":[{mcp}]}}}}"#)),
        Some("agent.tools[0].transport.authorization"),
        "Inline MCP authorization is not supported; use credential_id.",
    );
    let twice = r#"[{"type":"tool_search"},{"type":"tool_search"}]"#;
    assert_error(
        update(&format!(r#"{{"agent":{{"tools":{twice}}}}}"#)),
        None,
        "duplicate tool_search tool",
    );
    assert_error(
        update(&format!(r#"{{"agent":{{"tools":{twice}}},"review":"x"}}"#)),
        Some("review"),
        "Invalid value: 'x'. Supported values are: 'none' and 'auto_review'.",
    );
}
