//! Agent create and update bodies (the saved form), and the member walker the inline Session
//! `agent` shares.
//!
//! Saving is protocol validation only: a saved Agent keeps every pinned declaration as resource
//! data and is never checked against a harness (execution-tools.md, "Admission").
//!
//! The order of checks over a body (core-contracts §2.2):
//!
//! 1. unknown top-level members (`tool_choice`, case variants), by exact name;
//! 2. member values in document order, except that `tools` is always read before `text`;
//! 3. missing members (`model` on create);
//! 4. the whole-body conflicts, param null: repeated function names, a second `web_search` or
//!    `tool_search`, function schema roots, then the `text.format.schema` root.
//!
//! Create applies every default ([`AgentConfig::new`]); update returns an [`AgentPatch`] where
//! null clears a nullable member and resets a defaulted one (`tools: null` is `[]`,
//! `text: null` the default text, `metadata: null` `{}`), and `model: null` is invalid.

use serde_json::{Map, Value};

use crate::declarations::{AgentConfig, AgentPatch, TextConfig, Tool};
use crate::error::ValidationError;
use crate::json_path::member_path;
use crate::object_reader::ObjectReader;
use crate::tool_form::ToolForm;
use crate::tools::{check_tool_conflicts, parse_tools};
use crate::{metadata, scalar, settings, text, x_agents_core};

/// Every member of an Agent create or update body.
const MEMBERS: &[&str] = &[
    "model",
    "name",
    "instructions",
    "metadata",
    "tools",
    "text",
    "reasoning",
    "service_tier",
    "multi_agent",
    "compaction",
    "experimental",
    "x_agents_core",
];

/// The official limit of `name`, in characters.
pub const MAX_NAME_CHARS: usize = 128;

/// Parses an Agent create body into the saved configuration, defaults applied.
pub fn parse_agent_create(body: &Map<String, Value>) -> Result<AgentConfig, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let mut patch = read_members(&obj, MEMBERS, ToolForm::Saved)?;
    let model = obj.required(patch.model.take(), "model")?;
    check_conflicts(patch.tools.as_deref(), patch.text.as_ref(), "")?;
    let mut config = AgentConfig::new(model);
    config.apply(patch);
    Ok(config)
}

/// Parses an Agent update body into the members it changes.
pub fn parse_agent_update(body: &Map<String, Value>) -> Result<AgentPatch, ValidationError> {
    let obj = ObjectReader::from_map(body, "");
    let patch = read_members(&obj, MEMBERS, ToolForm::Saved)?;
    check_conflicts(patch.tools.as_deref(), patch.text.as_ref(), "")?;
    Ok(patch)
}

/// Reads the members of an agent object (`known` is the form's member set) into a patch of the
/// supplied members. Unknown members first, then values, `tools` before `text`.
pub(crate) fn read_members(
    obj: &ObjectReader,
    known: &[&str],
    form: ToolForm,
) -> Result<AgentPatch, ValidationError> {
    obj.check_unknown(known)?;
    let mut patch = AgentPatch::default();
    for (key, value) in tools_before_text(obj.entries().collect()) {
        let member = obj.member(key);
        let path = member.as_str();
        match key {
            "model" => patch.model = Some(scalar::nonempty_string(value, path)?.to_string()),
            "name" => {
                patch.name = Some(match value {
                    Value::Null => None,
                    _ => Some(scalar::bounded_string(value, path, MAX_NAME_CHARS)?.to_string()),
                })
            }
            "instructions" => {
                patch.instructions = Some(scalar::nullable_string(value, path)?.map(str::to_string))
            }
            "metadata" => patch.metadata = Some(metadata::parse_metadata(value, path)?),
            "tools" => patch.tools = Some(parse_tools(value, path, form)?),
            "text" => patch.text = Some(text::parse_text(value, path)?),
            "reasoning" => patch.reasoning = Some(settings::reasoning(value, path)?),
            "service_tier" => patch.service_tier = Some(settings::service_tier(value, path)?),
            "multi_agent" => patch.multi_agent = Some(settings::multi_agent(value, path)?),
            "compaction" => patch.compaction = Some(settings::compaction(value, path)?),
            "experimental" => {
                patch.experimental = Some(Some(Value::Object(settings::experimental(value, path)?)))
            }
            "x_agents_core" => {
                patch.x_agents_core = Some(x_agents_core::parse_x_agents_core(value, path)?)
            }
            _ => {}
        }
    }
    Ok(patch)
}

/// Document order, with `text` moved right after `tools` when it came first ("Tools before
/// `text`"), so a body's tool errors never hide behind its text errors.
fn tools_before_text<'a>(mut entries: Vec<(&'a str, &'a Value)>) -> Vec<(&'a str, &'a Value)> {
    let text = entries.iter().position(|(k, _)| *k == "text");
    let tools = entries.iter().position(|(k, _)| *k == "tools");
    if let (Some(text), Some(tools)) = (text, tools)
        && text < tools
    {
        let item = entries.remove(text);
        // After the removal `tools` sits at `tools - 1`; `tools` is the slot right after it.
        entries.insert(tools, item);
    }
    entries
}

/// The whole-body conflicts (param null), after every member was read: tools first, then the
/// text schema root. `prefix` is the agent object's path (`""` or `"agent"`).
pub(crate) fn check_conflicts(
    tools: Option<&[Tool]>,
    text: Option<&TextConfig>,
    prefix: &str,
) -> Result<(), ValidationError> {
    if let Some(tools) = tools {
        check_tool_conflicts(tools)?;
    }
    if let Some(text) = text {
        text::check_text_schema_root(text, &member_path(prefix, "text"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_moves_after_tools_only_when_it_came_first() {
        let (a, b, c) = (json!(1), json!(2), json!(3));
        fn order<'a>(entries: Vec<(&'a str, &'a Value)>) -> Vec<&'a str> {
            tools_before_text(entries)
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        }
        assert_eq!(
            order(vec![("text", &a), ("model", &b), ("tools", &c)]),
            ["model", "tools", "text"]
        );
        assert_eq!(
            order(vec![("tools", &a), ("model", &b), ("text", &c)]),
            ["tools", "model", "text"]
        );
        assert_eq!(order(vec![("text", &a), ("model", &b)]), ["text", "model"]);
    }
}
