//! The response shapes: persisted tools, the session projection, and what is never echoed.

use crate::common::{create_ok, json};
use switchboard_execution::public::{
    agent_public_fields, session_agent_fields, session_agent_tools,
};
use switchboard_execution::{parse_inline_agent, resolve};

const TOOLS: &str = r#"[
    {"type":"tool_search"},
    {"type":"function","name":"f","description":"d","parameters":{"type":"object"},"defer_loading":true,"async":true},
    {"type":"mcp","server_label":"h","transport":{"type":"http","server_url":"https://a.example/mcp?x=1","headers":{"X-A":"1"}},"allowed_tools":["t"],"required":true,"credential_id":"cred_1"},
    {"type":"mcp","server_label":"s","transport":{"type":"stdio","command":"npx","cwd":"/w","args":["srv"],"env_vars":["HOME"]}},
    {"type":"web_search","mode":"disabled"}
]"#;

#[test]
fn persisted_tools_show_every_field() {
    let fields = agent_public_fields(&create_ok(&format!(r#"{{"model":"m","tools":{TOOLS}}}"#)));
    assert_eq!(
        fields["tools"],
        json(
            r#"[
            {"type":"tool_search"},
            {"type":"function","name":"f","description":"d","parameters":{"type":"object"},"defer_loading":true,"async":true},
            {"type":"mcp","server_label":"h","transport":{"type":"http","server_url":"https://a.example/mcp?x=1","headers":{"X-A":"1"}},
             "connection_origin":"service","allowed_tools":["t"],"required":true,"credential_id":"cred_1","request_metadata":{}},
            {"type":"mcp","server_label":"s","transport":{"type":"stdio","command":"npx","args":["srv"],"cwd":"/w","env_vars":["HOME"]},
             "connection_origin":"environment","allowed_tools":null,"required":false,"credential_id":null,"request_metadata":{}},
            {"type":"web_search","mode":"disabled","context_size":"medium","allowed_domains":null,"location":null}
        ]"#
        )
    );
}

#[test]
fn session_tools_drop_tool_search_and_http_headers() {
    let tools = create_ok(&format!(r#"{{"model":"m","tools":{TOOLS}}}"#)).tools;
    assert_eq!(
        serde_json::Value::Array(session_agent_tools(&tools)),
        json(
            r#"[
            {"type":"function","name":"f","description":"d","parameters":{"type":"object"},"defer_loading":true,"async":true},
            {"type":"mcp","server_label":"h","transport":{"type":"http","server_url":"https://a.example/mcp?x=1"},
             "connection_origin":"service","allowed_tools":["t"],"required":true,"credential_id":"cred_1","request_metadata":{}},
            {"type":"mcp","server_label":"s","transport":{"type":"stdio","command":"npx","args":["srv"],"cwd":"/w","env_vars":["HOME"]},
             "connection_origin":"environment","allowed_tools":null,"required":false,"credential_id":null,"request_metadata":{}},
            {"type":"web_search","mode":"disabled","context_size":"medium","allowed_domains":null,"location":null}
        ]"#
        )
    );
    // The frozen configuration keeps tool_search.
    assert_eq!(tools.len(), 5);
}

#[test]
fn x_agents_core_is_echoed_without_the_key() {
    let cfg = create_ok(
        r#"{"model":"m","x_agents_core":{"harness":"claude_code","model_provider":{"protocol":"anthropic","base_url":"http://127.0.0.1:9/","api_key":"sk-secret","context_window":200000},"harness_config":{"effort":"high"}}}"#,
    );
    let fields = agent_public_fields(&cfg);
    assert_eq!(
        fields["x_agents_core"],
        json(
            r#"{"harness":"claude_code","model_provider":{"protocol":"anthropic","base_url":"http://127.0.0.1:9/","context_window":200000,"max_output_tokens":null},"harness_config":{"effort":"high"}}"#
        )
    );
    assert!(
        !serde_json::to_string(&fields)
            .unwrap()
            .contains("sk-secret")
    );
    assert!(!agent_public_fields(&create_ok(r#"{"model":"m"}"#)).contains_key("x_agents_core"));
}

#[test]
fn compaction_and_experimental_appear_when_set() {
    let fields = agent_public_fields(&create_ok(
        r#"{"model":"m","compaction":{"async":true},"experimental":{}}"#,
    ));
    assert_eq!(fields["compaction"], json(r#"{"async":true}"#));
    assert_eq!(fields["experimental"], json(r#"{"time_awareness":false}"#));
}

#[test]
fn the_session_agent_object() {
    let saved = create_ok(&format!(
        r#"{{"model":"m","name":"n","tools":{TOOLS},"metadata":{{"k":"v"}}}}"#
    ));
    let inline = parse_inline_agent(
        &json(r#"{"instructions":"be brief","service_tier":"flex"}"#),
        "agent",
    )
    .unwrap();
    let fields = session_agent_fields(&resolve(Some(&saved), Some(&inline)).unwrap());
    let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "name",
            "instructions",
            "model",
            "tools",
            "text",
            "reasoning",
            "service_tier",
            "multi_agent"
        ]
    );
    assert_eq!(fields["instructions"], json(r#""be brief""#));
    assert_eq!(fields["service_tier"], json(r#""flex""#));
    assert_eq!(fields["tools"].as_array().unwrap().len(), 4);
}
