//! Native tool names: when the native client renames declared tools (Claude Code's
//! `mcp__<server>__<tool>` normalization), two declared tools must not end up with one name,
//! or the model could not tell them apart and calls would reach the wrong tool.
//!
//! Functions and the `allowed_tools` of each MCP server are the names known at admission
//! (discovered MCP tools are known only to the native client). The later tool in tool order is
//! the one named in `param`.

use std::collections::HashSet;

use switchboard_execution::{SessionSnapshot, Tool};

use super::{AdmissionError, tool_path};
use crate::Declaration;

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    let names = decl.native_tool_names;
    let mut seen = HashSet::new();
    let mut claim = |native: Option<String>, param: String| match native {
        Some(native) if !seen.insert(native.clone()) => Err(AdmissionError::at(
            param,
            format!(
                "The harness names this tool {native}, as it names another tool of the Session."
            ),
        )),
        _ => Ok(()),
    };
    for (i, tool) in snapshot.tools.iter().enumerate() {
        match tool {
            Tool::Function(f) => claim(names.function(&f.name), format!("{}.name", tool_path(i)))?,
            Tool::Mcp(server) => {
                for (k, name) in server.allowed_tools.iter().flatten().enumerate() {
                    claim(
                        names.mcp_tool(&server.server_label, name),
                        format!("{}.allowed_tools[{k}]", tool_path(i)),
                    )?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}
