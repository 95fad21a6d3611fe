//! The public JSON shapes of saved and resolved agents.
//!
//! Three tool families exist on the wire (agents-api-wire.md §4). Requests are parsed elsewhere;
//! this module writes the two response families:
//!
//! - **persisted** (`Agent.tools`): every field present (`async` null when unset, MCP
//!   `request_metadata` `{}`, `allowed_tools` null or a list), HTTP transport
//!   `{type, server_url, headers}`, stdio `{type, command, cwd, args, env_vars}`. This is
//!   exactly the serde form of [`Tool`].
//! - **session response** (`AgentSession.agent.tools`): the pinned union has no `tool_search`,
//!   so it is projected out (the frozen configuration keeps it), and an HTTP transport shows
//!   only `{type, server_url}`.
//!
//! Secrets never appear: `x_agents_core` is echoed without `api_key`.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::declarations::{AgentConfig, McpTransport, Tool, XAgentsCore};
use crate::inline::ResolvedAgent;

/// The public Agent fields of a saved configuration. The caller adds `id`, `object`,
/// `created_at` and `updated_at`. `compaction`, `experimental` and `x_agents_core` appear only
/// when set, as the official service omits them.
pub fn agent_public_fields(cfg: &AgentConfig) -> Map<String, Value> {
    match to_json(&AgentPublic(cfg)) {
        Value::Object(fields) => fields,
        // `AgentPublic` always writes a map.
        _ => Map::new(),
    }
}

/// [`agent_public_fields`] as a serializer of its own, so a response can be written straight
/// to bytes without building a `Value` tree first (Agent create answers with it on every
/// request: issue 16's front door). The members and their order are those of the fields above;
/// `#[serde(flatten)]` it under the caller's `id`, `object`, `created_at`, `updated_at`.
pub struct AgentPublic<'a>(pub &'a AgentConfig);

impl Serialize for AgentPublic<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let cfg = self.0;
        let settings = SettingsView::of_config(cfg);
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("model", &cfg.model)?;
        map.serialize_entry("name", &cfg.name)?;
        map.serialize_entry("instructions", &cfg.instructions)?;
        map.serialize_entry("metadata", &cfg.metadata)?;
        // The persisted form is exactly the serde form of `Tool`.
        map.serialize_entry("tools", &cfg.tools)?;
        map.serialize_entry("text", settings.text)?;
        map.serialize_entry("reasoning", settings.reasoning)?;
        map.serialize_entry("service_tier", settings.service_tier)?;
        map.serialize_entry("multi_agent", settings.multi_agent)?;
        if let Some(compaction) = settings.compaction {
            map.serialize_entry("compaction", compaction)?;
        }
        if let Some(experimental) = settings.experimental {
            map.serialize_entry("experimental", experimental)?;
        }
        if cfg.x_agents_core != XAgentsCore::default() {
            map.serialize_entry("x_agents_core", &cfg.x_agents_core.public())?;
        }
        map.end()
    }
}

/// The `agent` object of a Session response, without `id` (the caller adds the saved Agent's ID).
pub fn session_agent_fields(agent: &ResolvedAgent) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("name".into(), json!(agent.name));
    fields.insert("instructions".into(), json!(agent.instructions));
    fields.insert("model".into(), json!(agent.model));
    fields.insert(
        "tools".into(),
        Value::Array(session_agent_tools(&agent.tools)),
    );
    insert_settings(&mut fields, &SettingsView::of_resolved(agent));
    fields
}

/// Tools in the persisted response form.
pub fn persisted_tools(tools: &[Tool]) -> Vec<Value> {
    tools.iter().map(to_json).collect()
}

/// Tools in the session response form: no `tool_search`, HTTP transports without headers.
pub fn session_agent_tools(tools: &[Tool]) -> Vec<Value> {
    tools
        .iter()
        .filter(|t| !matches!(t, Tool::ToolSearch))
        .map(|tool| {
            let mut value = to_json(tool);
            if let (Tool::Mcp(mcp), Some(fields)) = (tool, value.as_object_mut())
                && let McpTransport::Http { server_url, .. } = &mcp.transport
            {
                fields.insert(
                    "transport".into(),
                    json!({ "type": "http", "server_url": server_url }),
                );
            }
            value
        })
        .collect()
}

/// The settings both agent shapes share, borrowed from either source.
struct SettingsView<'a> {
    text: &'a crate::declarations::TextConfig,
    reasoning: &'a crate::declarations::Reasoning,
    service_tier: &'a crate::declarations::ServiceTier,
    multi_agent: &'a crate::declarations::MultiAgent,
    compaction: Option<&'a Value>,
    experimental: Option<&'a Value>,
}

impl<'a> SettingsView<'a> {
    fn of_config(c: &'a AgentConfig) -> Self {
        SettingsView {
            text: &c.text,
            reasoning: &c.reasoning,
            service_tier: &c.service_tier,
            multi_agent: &c.multi_agent,
            compaction: c.compaction.as_ref(),
            experimental: c.experimental.as_ref(),
        }
    }

    fn of_resolved(a: &'a ResolvedAgent) -> Self {
        SettingsView {
            text: &a.text,
            reasoning: &a.reasoning,
            service_tier: &a.service_tier,
            multi_agent: &a.multi_agent,
            compaction: a.compaction.as_ref(),
            experimental: a.experimental.as_ref(),
        }
    }
}

fn insert_settings(fields: &mut Map<String, Value>, s: &SettingsView) {
    fields.insert("text".into(), to_json(s.text));
    fields.insert("reasoning".into(), to_json(s.reasoning));
    fields.insert("service_tier".into(), to_json(s.service_tier));
    fields.insert("multi_agent".into(), to_json(s.multi_agent));
    if let Some(compaction) = s.compaction {
        fields.insert("compaction".into(), compaction.clone());
    }
    if let Some(experimental) = s.experimental {
        fields.insert("experimental".into(), experimental.clone());
    }
}

/// The model types have string keys and no failing serializers, so this cannot fail: the one
/// documented invariant of this crate, kept as a panic rather than a `Result` every response
/// writer would carry without ever seeing an error.
#[expect(
    clippy::expect_used,
    reason = "serializing the model types cannot fail (string keys, derived serializers)"
)]
fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("execution model types always serialize")
}
