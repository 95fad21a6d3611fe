//! The saved defaults of agents-api-wire.md §11, compared in the public serialized form.

use crate::common::{create_ok, json};
use switchboard_execution::public::agent_public_fields;

fn public(body: &str) -> String {
    serde_json::to_string(&agent_public_fields(&create_ok(body))).unwrap()
}

fn public_tools(tools: &str) -> serde_json::Value {
    agent_public_fields(&create_ok(&format!(r#"{{"model":"m","tools":{tools}}}"#)))["tools"].clone()
}

const DEFAULT_AGENT: &str = r#"{"model":"m","name":null,"instructions":null,"metadata":{},"tools":[],"text":{"format":{"type":"text"},"verbosity":"medium"},"reasoning":{"effort":null,"summary":null},"service_tier":"auto","multi_agent":{"enabled":false,"max_concurrent_subagents":null}}"#;

#[test]
fn an_agent_with_only_a_model() {
    assert_eq!(public(r#"{"model":"m"}"#), DEFAULT_AGENT);
}

#[test]
fn null_members_save_the_same_defaults() {
    assert_eq!(
        public(
            r#"{"model":"m","name":null,"instructions":null,"metadata":null,"multi_agent":null,"reasoning":null,
                "service_tier":null,"text":null,"tools":null,"compaction":null,"x_agents_core":null}"#
        ),
        DEFAULT_AGENT
    );
    assert_eq!(
        public(r#"{"model":"m","text":{"format":null,"verbosity":null},"reasoning":{}}"#),
        DEFAULT_AGENT
    );
}

#[test]
fn tool_defaults() {
    assert_eq!(
        public_tools(
            r#"[{"type":"function","name":"f","description":"","parameters":{}},{"type":"programmatic_tool_calling"},{"type":"computer_use"},{"type":"tool_search"},{"type":"automations"}]"#
        ),
        json(
            r#"[{"type":"function","name":"f","description":"","parameters":{},"defer_loading":false,"async":null},
                {"type":"programmatic_tool_calling","enabled":true},
                {"type":"computer_use","include_screenshots":false},
                {"type":"tool_search"},
                {"type":"automations"}]"#
        )
    );
}

#[test]
fn web_search_saved_values() {
    let live = r#"{"type":"web_search","mode":"live","context_size":"medium","allowed_domains":null,"location":null}"#;
    for (sent, saved) in [
        (r#"{"type":"web_search"}"#, live),
        (
            r#"{"type":"web_search","mode":null,"context_size":null,"allowed_domains":null,"location":null}"#,
            live,
        ),
        (
            r#"{"type":"web_search","mode":"live","allowed_domains":[]}"#,
            r#"{"type":"web_search","mode":"live","context_size":"medium","allowed_domains":[],"location":null}"#,
        ),
        (
            r#"{"type":"web_search","mode":"cached","context_size":"high","allowed_domains":["example.com"],"location":{"country":"FR","city":"Paris"}}"#,
            r#"{"type":"web_search","mode":"cached","context_size":"high","allowed_domains":["example.com"],"location":{"city":"Paris","country":"FR","region":null,"timezone":null}}"#,
        ),
        (
            r#"{"type":"web_search","mode":"disabled","location":{}}"#,
            r#"{"type":"web_search","mode":"disabled","context_size":"medium","allowed_domains":null,"location":{"city":null,"country":null,"region":null,"timezone":null}}"#,
        ),
    ] {
        assert_eq!(
            public_tools(&format!("[{sent}]")),
            json(&format!("[{saved}]")),
            "{sent}"
        );
    }
}

#[test]
fn mcp_saved_values() {
    assert_eq!(
        public_tools(
            r#"[{"type":"mcp","server_label":"x","transport":{"type":"http","server_url":"https://example.invalid"}}]"#
        ),
        json(
            r#"[{"type":"mcp","server_label":"x","transport":{"type":"http","server_url":"https://example.invalid","headers":{}},
                "connection_origin":"service","allowed_tools":null,"required":false,"credential_id":null,"request_metadata":{}}]"#
        )
    );
    assert_eq!(
        public_tools(
            r#"[{"type":"mcp","server_label":"y","transport":{"type":"stdio","command":"npx","cwd":"/w"},"allowed_tools":[]}]"#
        ),
        json(
            r#"[{"type":"mcp","server_label":"y","transport":{"type":"stdio","command":"npx","args":[],"cwd":"/w","env_vars":[]},
                "connection_origin":"environment","allowed_tools":[],"required":false,"credential_id":null,"request_metadata":{}}]"#
        )
    );
}

#[test]
fn multi_agent_enabled_without_a_maximum_means_six() {
    let fields = agent_public_fields(&create_ok(
        r#"{"model":"m","multi_agent":{"enabled":true}}"#,
    ));
    assert_eq!(
        fields["multi_agent"],
        json(r#"{"enabled":true,"max_concurrent_subagents":6}"#)
    );
}
