//! Session create and update bodies: one pass of protocol checks, nothing looked up.
//!
//! The parser only reads the body. It never resolves `agent_id`, Vaults or templates, and never
//! qualifies the agent against a harness (core-contracts §2.3 steps 2–6 come later). What it
//! owns is the *order* of the first error (§2.2, §2.3 step 1) over a Session create body:
//!
//! 1. unknown top-level members (`x_agents_core` is a known one);
//! 2. member values in document order; the inline `agent` is read without its whole-agent
//!    conflicts ([`parse_inline_agent_members`]);
//! 3. missing members: `environment`, then `agent.model` when there is no `agent_id` (also
//!    checked by [`crate::resolve`]; it is a protocol error, so it comes before step 6);
//! 4. `stream_options` without `stream: true`;
//! 5. the inline agent's conflicts, param null ("duplicate and schema-root checks last");
//! 6. the initial-input rules, param null: `none` without input, then `stream: true` without
//!    input on any placement but `self_hosted` ("Protocol errors come first").
//!
//! `input` is a string (one user message with one `input_text` part) or a nonempty list of
//! `{type?: "message", role: "user", content}` messages, where `content` is a string or a
//! nonempty list of `input_text{text}` / `input_image{image_url}` parts. The same forms are the
//! `input` of an `agent.session.input.message` event ([`crate::parse_input_events`]).
//!
//! Session update takes `metadata`, `agent{model, reasoning{effort}, service_tier, tools}`,
//! `prompt_cache_options` and `review`, each optional; null clears.

use serde_json::{Map, Value, json};
use switchboard_vocabulary::InputPart;

use crate::declarations::{Placement, Reasoning, ServiceTier, Tool, XAgentsCore};
use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::inline::{INLINE_AGENT_PATH, InlineAgent, parse_inline_agent_members};
use crate::json_path::{element_path, member_path};
use crate::metadata::parse_metadata;
use crate::object_reader::ObjectReader;
use crate::tool_form::ToolForm;
use crate::tools::{check_tool_conflicts, parse_tools};
use crate::x_agents_core::parse_x_agents_core;
use crate::{scalar, settings};

/// Every member of a Session create body.
const CREATE_MEMBERS: &[&str] = &[
    "environment",
    "agent",
    "agent_id",
    "input",
    "metadata",
    "vault_ids",
    "prompt_cache_options",
    "review",
    "stream",
    "stream_options",
    "x_agents_core",
];

/// Every member of a Session update body.
const UPDATE_MEMBERS: &[&str] = &["agent", "metadata", "prompt_cache_options", "review"];

/// The members of Session update's `agent`.
const UPDATE_AGENT_MEMBERS: &[&str] = &["model", "reasoning", "service_tier", "tools"];

/// The pinned `environment` union, in the SDK's order.
const ENVIRONMENT_TYPES: &[&str] = &["none", "openai_hosted", "self_hosted"];

const REVIEWS: &[(&str, &str)] = &[("none", "none"), ("auto_review", "auto_review")];
const TTLS: &[(&str, ())] = &[("30m", ()), ("12h", ())];

/// A parsed Session create body.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionCreate {
    pub environment: EnvironmentRequest,
    /// The inline agent's supplied members, conflicts checked.
    pub agent: Option<InlineAgent>,
    pub agent_id: Option<String>,
    /// The initial input: `None` when `input` was absent or null, otherwise at least one message.
    pub input: Option<Vec<InputMessage>>,
    /// `{}` when absent or null.
    pub metadata: Map<String, Value>,
    /// `[]` when absent or null.
    pub vault_ids: Vec<String>,
    /// The object as sent (`{"ttl": "12h"}`); `None` when absent or null.
    pub prompt_cache_options: Option<Value>,
    /// `none` or `auto_review`; `None` when absent or null.
    pub review: Option<String>,
    pub stream: bool,
    /// `stream_options.include_obfuscation`; true unless sent as false.
    pub include_obfuscation: bool,
    /// The Session's extension (overrides the saved Agent's field by field).
    pub x_agents_core: XAgentsCore,
}

/// `environment`: where the Session executes.
#[derive(Debug, Clone, PartialEq)]
pub enum EnvironmentRequest {
    /// Conversation only, no workspace.
    None,
    SelfHosted {
        workspace_directory: String,
        /// The list as sent (strings); `None` when absent or null.
        capability_directories: Option<Value>,
    },
    /// A managed workspace (`openai_hosted`).
    OpenaiHosted(crate::hosted_environment::HostedEnvironment),
}

impl EnvironmentRequest {
    pub fn placement(&self) -> Placement {
        match self {
            EnvironmentRequest::None => Placement::None,
            EnvironmentRequest::SelfHosted {
                workspace_directory,
                ..
            } => Placement::SelfHosted {
                workspace_directory: workspace_directory.clone(),
            },
            EnvironmentRequest::OpenaiHosted(_) => Placement::OpenaiHosted,
        }
    }
}

/// One user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputMessage {
    /// At least one part.
    pub content: Vec<InputPart>,
}

/// The public part: `{"type": "input_text", "text"}` or `{"type": "input_image", "image_url"}`.
pub fn public_part(part: &InputPart) -> Value {
    match part {
        InputPart::InputText { text } => json!({"type": "input_text", "text": text}),
        InputPart::InputImage { image_url } => {
            json!({"type": "input_image", "image_url": image_url})
        }
    }
}

/// A parsed Session update body: only supplied members change.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionUpdate {
    /// `Some(None)`: `metadata: null` clears; `{}` clears too.
    pub metadata: Option<Option<Map<String, Value>>>,
    pub agent: Option<SessionAgentUpdate>,
    /// `Some(None)`: null clears. Otherwise the object as sent.
    pub prompt_cache_options: Option<Option<Value>>,
    /// `Some(None)`: null clears.
    pub review: Option<Option<String>>,
}

/// Session update's `agent`: the supplied members, read as on Agent update.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionAgentUpdate {
    pub model: Option<String>,
    /// Only `effort` may be sent; null resets to the model default, and `summary` stays null.
    pub reasoning: Option<Reasoning>,
    /// Null is `auto`.
    pub service_tier: Option<ServiceTier>,
    /// The Inline tool form; null is `[]`. Whole-list conflicts checked.
    pub tools: Option<Vec<Tool>>,
}

/// Parses a `POST /v1/agents/sessions` body (see the module documentation for the order).
pub fn parse_session_create(body: &Map<String, Value>) -> Result<SessionCreate, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let mut environment = None;
    let mut agent: Option<InlineAgent> = None;
    let mut agent_id = None;
    let mut input = None;
    let mut metadata = Map::new();
    let mut vault_ids = Vec::new();
    let mut prompt_cache_options = None;
    let mut review = None;
    let mut stream = false;
    // `include_obfuscation` when `stream_options` was sent (not null).
    let mut stream_options = None;
    let mut x_agents_core = XAgentsCore::default();
    obj.read(CREATE_MEMBERS, |key, value, path| {
        match key {
            "environment" => environment = Some(parse_environment(value, path)?),
            "agent" => agent = Some(parse_inline_agent_members(value, path)?),
            "agent_id" => agent_id = Some(scalar::string(value, path)?.to_string()),
            "input" if !value.is_null() => input = Some(parse_input(value, path)?),
            "metadata" => metadata = parse_metadata(value, path)?,
            "vault_ids" => {
                vault_ids = scalar::nullable_string_array(value, path)?.unwrap_or_default()
            }
            "prompt_cache_options" => {
                prompt_cache_options = parse_prompt_cache_options(value, path)?
            }
            "review" => review = scalar::nullable_choice(value, path, REVIEWS)?.map(str::to_string),
            "stream" => stream = scalar::boolean(value, path)?,
            "stream_options" if !value.is_null() => {
                stream_options = Some(parse_stream_options(value, path)?)
            }
            "x_agents_core" => x_agents_core = parse_x_agents_core(value, path)?,
            _ => {}
        }
        Ok(())
    })?;
    let environment = obj.required(environment, "environment")?;
    if agent_id.is_none() && agent.as_ref().and_then(|a| a.model.as_ref()).is_none() {
        return Err(error_messages::missing(&member_path(
            INLINE_AGENT_PATH,
            "model",
        )));
    }
    if stream_options.is_some() && !stream {
        return Err(error_messages::stream_options_require_stream(
            &obj.member("stream_options"),
        ));
    }
    if let Some(agent) = &agent {
        agent.check_conflicts(INLINE_AGENT_PATH)?;
    }
    if input.is_none() {
        if environment == EnvironmentRequest::None {
            return Err(error_messages::conversation_only_requires_input());
        }
        if stream && !matches!(environment, EnvironmentRequest::SelfHosted { .. }) {
            return Err(error_messages::streaming_requires_input());
        }
    }
    Ok(SessionCreate {
        environment,
        agent,
        agent_id,
        input,
        metadata,
        vault_ids,
        prompt_cache_options,
        review,
        stream,
        include_obfuscation: stream_options.unwrap_or(true),
        x_agents_core,
    })
}

/// Parses a `POST /v1/agents/sessions/{id}` body: unknown members, values in document order,
/// then the `agent.tools` conflicts.
pub fn parse_session_update(body: &Map<String, Value>) -> Result<SessionUpdate, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let mut update = SessionUpdate::default();
    obj.read(UPDATE_MEMBERS, |key, value, path| {
        match key {
            "agent" => update.agent = Some(parse_agent_update(value, path)?),
            "metadata" => {
                update.metadata = Some(match value {
                    Value::Null => None,
                    _ => Some(parse_metadata(value, path)?),
                })
            }
            "prompt_cache_options" => {
                update.prompt_cache_options = Some(parse_prompt_cache_options(value, path)?)
            }
            "review" => {
                update.review =
                    Some(scalar::nullable_choice(value, path, REVIEWS)?.map(str::to_string))
            }
            _ => {}
        }
        Ok(())
    })?;
    if let Some(tools) = update.agent.as_ref().and_then(|a| a.tools.as_deref()) {
        check_tool_conflicts(tools)?;
    }
    Ok(update)
}

fn parse_environment(value: &Value, path: &str) -> Result<EnvironmentRequest, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    match obj.tag(ENVIRONMENT_TYPES)? {
        "none" => {
            obj.read_tag_only()?;
            Ok(EnvironmentRequest::None)
        }
        "self_hosted" => {
            let (mut workspace_directory, mut capability_directories) = (None, None);
            obj.read(
                &["type", "workspace_directory", "capability_directories"],
                |key, value, path| {
                    match key {
                        "workspace_directory" => {
                            workspace_directory = Some(scalar::string(value, path)?.to_string())
                        }
                        "capability_directories" => {
                            capability_directories =
                                scalar::nullable_string_array(value, path)?.map(|_| value.clone())
                        }
                        _ => {}
                    }
                    Ok(())
                },
            )?;
            Ok(EnvironmentRequest::SelfHosted {
                workspace_directory: obj.required(workspace_directory, "workspace_directory")?,
                capability_directories,
            })
        }
        _ => Ok(EnvironmentRequest::OpenaiHosted(
            crate::hosted_environment::parse_hosted_session_environment(&obj)?,
        )),
    }
}

/// `prompt_cache_options`: null, or `{ttl?: "30m" | "12h"}` kept as sent.
fn parse_prompt_cache_options(value: &Value, path: &str) -> Result<Option<Value>, ValidationError> {
    if value.is_null() {
        return Ok(None);
    }
    ObjectReader::new(value, path, kind::OBJECT)?
        .read(&["ttl"], |_, value, path| scalar::choice(value, path, TTLS))?;
    Ok(Some(value.clone()))
}

/// `stream_options`: `{include_obfuscation?: bool}`; returns `include_obfuscation` (default true).
fn parse_stream_options(value: &Value, path: &str) -> Result<bool, ValidationError> {
    let mut include = true;
    ObjectReader::new(value, path, kind::OBJECT)?.read(
        &["include_obfuscation"],
        |_, value, path| {
            include = scalar::boolean(value, path)?;
            Ok(())
        },
    )?;
    Ok(include)
}

/// Session update's `agent` (not nullable).
fn parse_agent_update(value: &Value, path: &str) -> Result<SessionAgentUpdate, ValidationError> {
    let mut agent = SessionAgentUpdate::default();
    ObjectReader::new(value, path, kind::OBJECT)?.read(
        UPDATE_AGENT_MEMBERS,
        |key, value, path| {
            match key {
                "model" => agent.model = Some(scalar::nonempty_string(value, path)?.to_string()),
                "reasoning" => {
                    if !value.is_null() {
                        ObjectReader::new(value, path, kind::OBJECT)?.check_unknown(&["effort"])?;
                    }
                    agent.reasoning = Some(settings::reasoning(value, path)?);
                }
                "service_tier" => agent.service_tier = Some(settings::service_tier(value, path)?),
                _ => agent.tools = Some(parse_tools(value, path, ToolForm::Inline)?),
            }
            Ok(())
        },
    )?;
    Ok(agent)
}

/// A user message list at `path`: a string (one message, one text part) or a nonempty array of
/// messages.
pub(crate) fn parse_input(value: &Value, path: &str) -> Result<Vec<InputMessage>, ValidationError> {
    match value {
        Value::String(text) => Ok(vec![InputMessage {
            content: vec![InputPart::InputText { text: text.clone() }],
        }]),
        Value::Array(items) if items.is_empty() => Err(error_messages::empty_array(path)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| parse_message(item, &element_path(path, i)))
            .collect(),
        other => Err(error_messages::invalid_type(
            path,
            kind::STRING_OR_ARRAY,
            other,
        )),
    }
}

/// `{type?: "message", role: "user", content}`. The optional `type` is checked first, as a
/// union tag would be.
fn parse_message(value: &Value, path: &str) -> Result<InputMessage, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    if let Some(tag) = value.get("type") {
        scalar::choice(tag, &obj.member("type"), &[("message", ())])?;
    }
    let (mut role, mut content) = (None, None);
    obj.read(&["type", "role", "content"], |key, value, path| {
        match key {
            "role" => role = Some(scalar::choice(value, path, &[("user", ())])?),
            "content" => content = Some(parse_content(value, path)?),
            _ => {}
        }
        Ok(())
    })?;
    obj.required(role, "role")?;
    Ok(InputMessage {
        content: obj.required(content, "content")?,
    })
}

/// A message's `content`: a string (one text part) or a nonempty array of parts.
fn parse_content(value: &Value, path: &str) -> Result<Vec<InputPart>, ValidationError> {
    match value {
        Value::String(text) => Ok(vec![InputPart::InputText { text: text.clone() }]),
        Value::Array(items) if items.is_empty() => Err(error_messages::empty_array(path)),
        Value::Array(items) => parse_parts(items, path),
        other => Err(error_messages::invalid_type(
            path,
            kind::STRING_OR_ARRAY,
            other,
        )),
    }
}

/// `input_text{text}` / `input_image{image_url}` parts, each at `path[i]`.
pub(crate) fn parse_parts(items: &[Value], path: &str) -> Result<Vec<InputPart>, ValidationError> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_part(item, &element_path(path, i)))
        .collect()
}

fn parse_part(value: &Value, path: &str) -> Result<InputPart, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let image = obj.tag(&["input_text", "input_image"])? == "input_image";
    let member = if image { "image_url" } else { "text" };
    let mut text = None;
    obj.read(&["type", member], |key, value, path| {
        if key == member {
            text = Some(scalar::string(value, path)?.to_string());
        }
        Ok(())
    })?;
    let text = obj.required(text, member)?;
    Ok(if image {
        InputPart::InputImage { image_url: text }
    } else {
        InputPart::InputText { text }
    })
}
