//! A Session's agent, rendered once.
//!
//! A Session's agent is fixed when the Session is created (`update` refuses to change it), yet
//! every commit used to print it again into the stored Session document, every change copied it
//! with the rest of the state, and every session snapshot on the event stream (four in a
//! function-call Turn) rebuilt its public fields, tools and all. [`FrozenAgent`] keeps the
//! agent behind one shared pointer with both renderings made when it is made: the document's
//! JSON, spliced verbatim into each stored document, and the public object's `agent` fields and
//! `x_agents_core`, cloned into each snapshot; the `agent` fields also as JSON text, spliced into
//! each Session event (`state::session_event_head`), whose instructions and tools would
//! otherwise be serialized again for every one. It reads as a [`ResolvedAgent`] (`Deref`), and
//! is stored exactly as one: a document written before this type existed loads unchanged.

use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use switchboard_execution::ResolvedAgent;
use switchboard_execution::public::session_agent_fields;

/// A Session's agent (model provider key sealed, as stored) and its renderings.
#[derive(Debug, Clone)]
pub struct FrozenAgent(Arc<Rendered>);

#[derive(Debug)]
struct Rendered {
    agent: ResolvedAgent,
    /// The agent as the Session document stores it.
    stored: Box<RawValue>,
    /// The public object's `agent` fields, all but its `id`.
    public: Map<String, Value>,
    /// The same fields as a JSON object's text.
    public_text: Box<str>,
    /// The public object's `x_agents_core`, all but its `harness`.
    x_agents_core: Value,
}

impl FrozenAgent {
    pub fn new(agent: ResolvedAgent) -> Result<FrozenAgent, serde_json::Error> {
        let stored = serde_json::value::to_raw_value(&agent)?;
        let public = session_agent_fields(&agent);
        Ok(FrozenAgent(Arc::new(Rendered {
            public_text: serde_json::to_string(&public)?.into(),
            public,
            x_agents_core: agent.x_agents_core.public(),
            stored,
            agent,
        })))
    }

    /// The public `agent` fields other than its `id`.
    pub fn public_fields(&self) -> &Map<String, Value> {
        &self.0.public
    }

    /// [`FrozenAgent::public_fields`] as a JSON object's text.
    pub fn public_text(&self) -> &str {
        &self.0.public_text
    }

    /// The public `x_agents_core` other than its `harness`.
    pub fn public_x_agents_core(&self) -> &Value {
        &self.0.x_agents_core
    }
}

impl Deref for FrozenAgent {
    type Target = ResolvedAgent;

    fn deref(&self) -> &ResolvedAgent {
        &self.0.agent
    }
}

impl Serialize for FrozenAgent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.stored.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FrozenAgent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let agent = ResolvedAgent::deserialize(deserializer)?;
        FrozenAgent::new(agent).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An agent as a Session document stored it before [`FrozenAgent`] existed.
    const STORED: &str = r#"{"name":null,"model":"gpt-test","instructions":"Be brief.","tools":[{"type":"function","name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"defer_loading":false,"async":null},{"type":"tool_search"}],"text":{"format":{"type":"text"},"verbosity":"medium"},"reasoning":{"effort":null,"summary":null},"service_tier":"auto","multi_agent":{"enabled":false,"max_concurrent_subagents":null},"compaction":null,"experimental":{"k":1.50},"x_agents_core":{"harness":null,"model_provider":null,"harness_config":null}}"#;

    #[test]
    fn it_is_stored_and_shown_exactly_as_the_agent_it_holds() {
        let frozen: FrozenAgent = serde_json::from_str(STORED).unwrap();
        // Stored byte for byte as before, inside a document as on its own.
        assert_eq!(serde_json::to_string(&frozen).unwrap(), STORED);
        let doc = serde_json::to_string(&serde_json::json!({ "agent": frozen })).unwrap();
        assert_eq!(doc, format!(r#"{{"agent":{STORED}}}"#));
        // Shown as the plain agent's public fields would be.
        let agent: ResolvedAgent = serde_json::from_str(STORED).unwrap();
        assert_eq!(frozen.public_fields(), &session_agent_fields(&agent));
        assert_eq!(frozen.public_x_agents_core(), &agent.x_agents_core.public());
        let shown = Value::Object(session_agent_fields(&agent));
        assert_eq!(frozen.public_text(), shown.to_string());
        assert_eq!(frozen.model, "gpt-test");
    }
}
