//! The `tools` array: one union of declarations, and the rules that span the whole list.
//!
//! Each element is an object tagged by `type`. The small controls are read here
//! (`tool_search` has only `type`; `programmatic_tool_calling.enabled` defaults to true;
//! `computer_use.include_screenshots` defaults to false; `automations` has only `type`); the
//! larger declarations have their own modules (`function`, `web_search`, `mcp`).
//!
//! Two families of request shapes differ only in the MCP transport ([`ToolForm`]). The list as
//! a whole must fit in 3 MiB of compact JSON. The whole-list conflicts (a repeated function
//! name, a second `web_search` or `tool_search`, a function schema with a non-object root) are
//! checked by [`check_tool_conflicts`], which the body parsers call only after every other
//! member of the body was validated.

use std::collections::HashSet;
use std::io;

use serde_json::Value;

use crate::declarations::{ComputerUseTool, ProgrammaticToolCalling, Tool};
use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::json_path::element_path;
use crate::object_reader::ObjectReader;
use crate::schema_root::non_object_root_type;
use crate::tool_form::ToolForm;
use crate::{function, mcp, scalar, web_search};

/// The pinned tool types, in the order the supported-values message lists them.
pub const TOOL_TYPES: &[&str] = &[
    "function",
    "tool_search",
    "programmatic_tool_calling",
    "mcp",
    "web_search",
    "computer_use",
    "automations",
];

/// 3 MiB (3,145,728 bytes) of compact UTF-8 JSON.
pub const MAX_TOOLS_JSON_BYTES: usize = 3 * 1024 * 1024;

/// Parses a `tools` member; `null` is the empty list.
pub fn parse_tools(
    value: &Value,
    path: &str,
    form: ToolForm,
) -> Result<Vec<Tool>, ValidationError> {
    if value.is_null() {
        return Ok(Vec::new());
    }
    let tools = scalar::array(value, path)?
        .iter()
        .enumerate()
        .map(|(i, item)| parse_tool(item, &element_path(path, i), form))
        .collect::<Result<Vec<_>, _>>()?;
    let size = compact_json_len(value);
    if size > MAX_TOOLS_JSON_BYTES {
        return Err(error_messages::tools_too_large(
            path,
            MAX_TOOLS_JSON_BYTES,
            size,
        ));
    }
    Ok(tools)
}

fn parse_tool(value: &Value, path: &str, form: ToolForm) -> Result<Tool, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    Ok(match obj.tag(TOOL_TYPES)? {
        "function" => Tool::Function(function::parse(&obj)?),
        "tool_search" => {
            obj.read_tag_only()?;
            Tool::ToolSearch
        }
        "programmatic_tool_calling" => {
            let mut enabled = true;
            obj.read(&["type", "enabled"], |key, value, path| {
                if key == "enabled" {
                    enabled = scalar::boolean(value, path)?;
                }
                Ok(())
            })?;
            Tool::ProgrammaticToolCalling(ProgrammaticToolCalling { enabled })
        }
        "mcp" => Tool::Mcp(mcp::parse(&obj, form)?),
        "web_search" => Tool::WebSearch(web_search::parse(&obj)?),
        "computer_use" => {
            let mut include_screenshots = false;
            obj.read(&["type", "include_screenshots"], |key, value, path| {
                if key == "include_screenshots" {
                    include_screenshots = scalar::boolean(value, path)?;
                }
                Ok(())
            })?;
            Tool::ComputerUse(ComputerUseTool {
                include_screenshots,
            })
        }
        _ => {
            obj.read_tag_only()?;
            Tool::Automations
        }
    })
}

/// The whole-list protocol rules, param null: repeats first (in list order), then function
/// schema roots. MCP labels may repeat here; distinct labels are a Session admission rule.
pub fn check_tool_conflicts(tools: &[Tool]) -> Result<(), ValidationError> {
    let mut names = HashSet::new();
    let (mut web_search, mut tool_search) = (false, false);
    for tool in tools {
        match tool {
            Tool::Function(f) if !names.insert(f.name.as_str()) => {
                return Err(error_messages::duplicate_function_name(&f.name));
            }
            Tool::WebSearch(_) if std::mem::replace(&mut web_search, true) => {
                return Err(error_messages::duplicate_web_search());
            }
            Tool::ToolSearch if std::mem::replace(&mut tool_search, true) => {
                return Err(error_messages::duplicate_tool_search());
            }
            _ => {}
        }
    }
    for tool in tools {
        if let Tool::Function(f) = tool
            && let Some(root) = non_object_root_type(&f.parameters)
        {
            return Err(error_messages::function_schema_root(&f.name, root));
        }
    }
    Ok(())
}

/// The length of `value` written as compact JSON, without building the text.
fn compact_json_len(value: &Value) -> usize {
    struct Counter(usize);
    impl io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing a Value into an infallible sink cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}
