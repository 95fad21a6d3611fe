//! The values of the stdio MCP servers' `env_vars`, from the Session's Environment.
//!
//! Core sends only the names. The Environment holds the values: a managed workspace's `env`
//! (delivered sealed with the Session and opened only in `execution_prepare`), or, for a
//! self-hosted workspace, the environment of this Runtime process, which runs on the user's
//! own machine. A name the Environment does not set fails the preparation before anything is
//! placed or written, with `sandbox_error` (the Environment cannot start what was declared).

use switchboard_protocol::SessionConfiguration;
use switchboard_protocol::workspace::WorkspacePlacement;

/// The preparation's error code: the Environment cannot be made ready.
pub const CODE: &str = "sandbox_error";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpEnvError {
    #[error(
        "MCP server {label} needs the environment variable {name}, which the environment does not set."
    )]
    Unset { label: String, name: String },
    #[error("MCP server {label} runs in a workspace, and this Session has none.")]
    NoWorkspace { label: String },
}

/// Every declared `env_vars` name with its value, in declared order and once each; `host`
/// reads this process's environment (a parameter so tests need not change their own).
pub fn resolve(
    config: &SessionConfiguration,
    host: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, McpEnvError> {
    let mut resolved: Vec<(String, String)> = Vec::new();
    for server in &config.mcp_stdio_servers {
        let label = &server.server_label;
        let Some(workspace) = &config.workspace else {
            return Err(McpEnvError::NoWorkspace {
                label: label.clone(),
            });
        };
        for name in &server.env_vars {
            if resolved.iter().any(|(k, _)| k == name) {
                continue;
            }
            let value = match workspace.placement {
                WorkspacePlacement::Managed => workspace.env.get(name).cloned(),
                WorkspacePlacement::SelfHosted => host(name),
            };
            let Some(value) = value else {
                return Err(McpEnvError::Unset {
                    label: label.clone(),
                    name: name.clone(),
                });
            };
            resolved.push((name.clone(), value));
        }
    }
    Ok(resolved)
}

/// [`resolve`] from this process's environment.
pub fn resolve_from_process(
    config: &SessionConfiguration,
) -> Result<Vec<(String, String)>, McpEnvError> {
    resolve(config, |name| std::env::var(name).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(placement: &str, env: serde_json::Value) -> SessionConfiguration {
        serde_json::from_value(json!({
            "harness": "codex", "model": "m", "instructions": null,
            "model_provider": {"protocol": "responses", "base_url": "http://127.0.0.1:1/v1",
                "api_key": "k", "context_window": null, "max_output_tokens": null},
            "function_tools": [], "tool_search": false, "execution_controls": {},
            "mcp_servers": [],
            "mcp_stdio_servers": [
                {"server_label": "a", "command": "/bin/a", "args": [], "cwd": "/w",
                 "env_vars": ["ONE", "TWO"], "allowed_tools": null, "required": false},
                {"server_label": "b", "command": "/bin/b", "args": [], "cwd": "/w",
                 "env_vars": ["TWO"], "allowed_tools": null, "required": false}],
            "harness_config": null,
            "workspace": {"environment_id": "env_1", "placement": placement, "directory": "/w",
                "capability_directories": [], "network": "enabled", "env": env,
                "files": [], "setup_commands": []},
        }))
        .unwrap()
    }

    #[test]
    fn managed_values_come_from_the_workspace_env_only() {
        let config = config("managed", json!({"ONE": "1", "TWO": "2"}));
        let resolved = resolve(&config, |_| Some("host".into())).unwrap();
        assert_eq!(
            resolved,
            vec![("ONE".into(), "1".into()), ("TWO".into(), "2".into())]
        );
        let missing = self::config("managed", json!({"ONE": "1"}));
        let error = resolve(&missing, |_| Some("host".into())).unwrap_err();
        assert_eq!(
            error.to_string(),
            "MCP server a needs the environment variable TWO, which the environment does not set."
        );
    }

    #[test]
    fn self_hosted_values_come_from_the_runtime_process() {
        let config = config("self_hosted", json!({}));
        let resolved = resolve(&config, |name| (name == "ONE").then(|| "host-1".into()));
        assert_eq!(
            resolved,
            Err(McpEnvError::Unset {
                label: "a".into(),
                name: "TWO".into()
            })
        );
        let resolved = resolve(&config, |name| Some(format!("host-{name}"))).unwrap();
        assert_eq!(resolved[1], ("TWO".into(), "host-TWO".into()));
    }
}
