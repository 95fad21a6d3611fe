//! The inline `agent` of Session create, and its resolution against a saved Agent.
//!
//! The inline form has the Agent members except `name`, `metadata` and `x_agents_core` (those
//! are unknown parameters under `agent.`), and its MCP transports may carry `authorization` and
//! `env` (rejected when nonempty). Params are prefixed by the object's path:
//! `agent.tools[0].parameters`.
//!
//! With `agent_id`, each supplied inline member replaces the saved one for this Session, whole
//! (null clears or resets as on Agent update), except `experimental`, whose settings merge by
//! key. Without `agent_id`, `model` is required. The saved Agent itself never changes.
//!
//! The Session body parser validates the rest of its body between the two halves of
//! [`parse_inline_agent`]: [`parse_inline_agent_members`] first, then, once every other Session
//! member passed, [`InlineAgent::check_conflicts`] ("duplicate and schema-root checks last").

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::agent::{check_conflicts, read_members};
use crate::declarations::{
    AgentConfig, AgentPatch, MultiAgent, Reasoning, ServiceTier, TextConfig, Tool, XAgentsCore,
};
use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::json_path::member_path;
use crate::object_reader::ObjectReader;
use crate::tool_form::ToolForm;

/// The path of the inline agent in a Session create body.
pub const INLINE_AGENT_PATH: &str = "agent";

const MEMBERS: &[&str] = &[
    "model",
    "instructions",
    "tools",
    "text",
    "reasoning",
    "service_tier",
    "multi_agent",
    "compaction",
    "experimental",
];

/// The supplied members of an inline agent; `None` means "inherit" (or "default" without a
/// saved Agent). Nested `Option`s distinguish an explicit null (`Some(None)`: clear).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InlineAgent {
    pub model: Option<String>,
    pub instructions: Option<Option<String>>,
    /// `null` was sent as `Some(vec![])`: it clears the saved tools.
    pub tools: Option<Vec<Tool>>,
    pub text: Option<TextConfig>,
    pub reasoning: Option<Reasoning>,
    pub service_tier: Option<ServiceTier>,
    pub multi_agent: Option<MultiAgent>,
    /// `Some(None)`: blocking compaction; `Some(Some({"async": b}))`: replaces the settings.
    pub compaction: Option<Option<Value>>,
    /// The supplied experimental settings only; they merge into the saved ones by key.
    pub experimental: Option<Map<String, Value>>,
}

impl InlineAgent {
    /// The whole-agent conflicts (param null), for the Session parser to run last.
    /// `path` is the object's path (`agent`), which prefixes the text schema message.
    pub fn check_conflicts(&self, path: &str) -> Result<(), ValidationError> {
        check_conflicts(self.tools.as_deref(), self.text.as_ref(), path)
    }

    fn to_patch(&self) -> AgentPatch {
        AgentPatch {
            model: self.model.clone(),
            instructions: self.instructions.clone(),
            tools: self.tools.clone(),
            text: self.text.clone(),
            reasoning: self.reasoning,
            service_tier: self.service_tier,
            multi_agent: self.multi_agent,
            compaction: self.compaction.clone(),
            experimental: self.experimental.clone().map(|m| Some(Value::Object(m))),
            ..AgentPatch::default()
        }
    }
}

/// Parses and fully checks an inline agent at `path` (`agent` on Session create).
pub fn parse_inline_agent(value: &Value, path: &str) -> Result<InlineAgent, ValidationError> {
    let agent = parse_inline_agent_members(value, path)?;
    agent.check_conflicts(path)?;
    Ok(agent)
}

/// Reads an inline agent's members without the whole-agent conflicts.
pub fn parse_inline_agent_members(
    value: &Value,
    path: &str,
) -> Result<InlineAgent, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let patch = read_members(&obj, MEMBERS, ToolForm::Inline)?;
    Ok(InlineAgent {
        model: patch.model,
        instructions: patch.instructions,
        tools: patch.tools,
        text: patch.text,
        reasoning: patch.reasoning,
        service_tier: patch.service_tier,
        multi_agent: patch.multi_agent,
        compaction: patch.compaction,
        experimental: patch.experimental.flatten().and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        }),
    })
}

/// The agent configuration a Session runs with, before harness admission: the saved Agent (if
/// any) with the inline members applied, defaults everywhere else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResolvedAgent {
    /// The saved Agent's name when the Session was created; null for inline-only agents.
    pub name: Option<String>,
    pub model: String,
    pub instructions: Option<String>,
    /// The full tool set, `tool_search` included (the Session response projects it out).
    pub tools: Vec<Tool>,
    pub text: TextConfig,
    pub reasoning: Reasoning,
    pub service_tier: ServiceTier,
    pub multi_agent: MultiAgent,
    pub compaction: Option<Value>,
    pub experimental: Option<Value>,
    /// The saved Agent's extension; the Session's own `x_agents_core` overrides it field by field
    /// ([`XAgentsCore::overridden_by`]).
    pub x_agents_core: XAgentsCore,
}

/// Resolves the Session's agent: "with agent_id, inline fields override the saved agent for
/// this session; without agent_id, model is required".
pub fn resolve(
    saved: Option<&AgentConfig>,
    inline: Option<&InlineAgent>,
) -> Result<ResolvedAgent, ValidationError> {
    let mut config = match (saved, inline.and_then(|a| a.model.clone())) {
        (Some(saved), _) => saved.clone(),
        (None, Some(model)) => AgentConfig::new(model),
        (None, None) => {
            return Err(error_messages::missing(&member_path(
                INLINE_AGENT_PATH,
                "model",
            )));
        }
    };
    if let Some(inline) = inline {
        config.apply(inline.to_patch());
    }
    let AgentConfig {
        model,
        name,
        instructions,
        metadata: _,
        tools,
        text,
        reasoning,
        service_tier,
        multi_agent,
        compaction,
        experimental,
        x_agents_core,
    } = config;
    Ok(ResolvedAgent {
        name,
        model,
        instructions,
        tools,
        text,
        reasoning,
        service_tier,
        multi_agent,
        compaction,
        experimental,
        x_agents_core,
    })
}
