//! A `shell` reply: run one command with the harness's own shell tool.
//!
//! Each harness brings its shell under its own name and argument shape, so a scenario names
//! only the command line and the request decides the call: the first of these tools the request
//! offers gets it, with its arguments in that tool's shape.
//!
//! | tool | harness | arguments |
//! | --- | --- | --- |
//! | `exec_command` | Codex (unified exec) | `{"cmd": COMMAND}` |
//! | `shell_command` | Codex | `{"command": COMMAND}` |
//! | `shell` | Codex (older shell tool) | `{"command": ["bash", "-lc", COMMAND]}` |
//! | `Bash` | Claude Code | `{"command": COMMAND, "description": "Run a shell command"}` |
//!
//! A request that offers none of them gets the text `NO SHELL TOOL OFFERED: COMMAND`, so a
//! scenario that expected a command fails visibly instead of calling a tool that is not there.

use serde_json::{Value, json};

use crate::answer::{Block, Call};
use crate::request::RequestView;

/// How a shell tool takes a command line.
type Arguments = fn(&str) -> Value;

/// The shell tools tried, in order.
const SHELLS: [(&str, Arguments); 4] = [
    ("exec_command", |c| json!({"cmd": c})),
    ("shell_command", |c| json!({"command": c})),
    ("shell", |c| json!({"command": ["bash", "-lc", c]})),
    (
        "Bash",
        |c| json!({"command": c, "description": "Run a shell command"}),
    ),
];

/// The block that runs `command` with the offered shell tool.
pub fn block(command: &str, view: &RequestView) -> Block {
    for (name, arguments) in SHELLS {
        if let Some(tool) = view.find_tool(name) {
            return Block::Call(Call {
                name: tool.name.clone(),
                namespace: tool.namespace.clone(),
                id: None,
                arguments: arguments(command),
            });
        }
    }
    Block::Text(format!("NO SHELL TOOL OFFERED: {command}"))
}
