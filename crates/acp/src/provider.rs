//! How the Session's frozen model provider reaches each agent: the smallest code a profile
//! needs that is not data.
//!
//! - MiniMax Code reads `$MINIMAX_DATA_DIR/config.yaml` (JSON is valid YAML) with a
//!   `custom_provider` entry (harnesses.md §4): `api` from the provider's protocol,
//!   `options.baseURL` and `options.apiKey`, and the model with its token limits, which MiniMax
//!   requires. Native web search is switched off there (`features.webSearch=false`): it is the
//!   only mode the declaration admits. On a workspace placement the native tools run, and
//!   `web_search: disabled` also switches off the native fetch (`features.webFetch=false`); an
//!   omitted control keeps it. In a managed sandbox MiniMax Code's own command sandbox is off
//!   (`sandbox.enabled=false`): the bubblewrap sandbox is the boundary, as for Codex.
//! - codex-acp embeds Codex: the same `-c` overrides as the app-server (resume-and-acp §3), the
//!   key in an environment variable, its home in the Session's folder.

use serde_json::json;
use switchboard_protocol::configuration::{ProviderProtocol, WebSearchMode};

use crate::profile::{LaunchPlan, ProviderSetup};

/// The name of the custom provider in MiniMax Code's config (and its model selector).
pub const MINIMAX_PROVIDER_ID: &str = "switchboard";

/// The environment variable codex-acp reads the provider key from.
pub const CODEX_ACP_KEY_ENV: &str = "SWITCHBOARD_PROVIDER_KEY";

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("{0}")]
    Unsupported(String),
    #[error("cannot write the agent's configuration {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// MiniMax Code's `api` for a provider protocol.
pub fn minimax_api(protocol: ProviderProtocol) -> &'static str {
    match protocol {
        ProviderProtocol::Anthropic => "anthropic-messages",
        ProviderProtocol::ChatCompletions => "openai-completions",
        ProviderProtocol::Responses => "openai-responses",
    }
}

/// The value of MiniMax Code's `model` config option that selects the Session's model.
pub fn minimax_model_option(model: &str) -> String {
    format!("m:custom_provider%3A{MINIMAX_PROVIDER_ID}:{model}:v:")
}

/// Writes `config.yaml` into the data dir; `mcode acp` with `MINIMAX_DATA_DIR` set to it.
pub fn minimax_code(setup: &ProviderSetup<'_>) -> Result<LaunchPlan, ProviderError> {
    let config = setup.config;
    let provider = &config.model_provider;
    let (Some(context_window), Some(max_tokens)) =
        (provider.context_window, provider.max_output_tokens)
    else {
        return Err(ProviderError::Unsupported(
            "selected harness requires positive model context_window and max_output_tokens".into(),
        ));
    };
    let file = json!({
        "custom_provider": {
            MINIMAX_PROVIDER_ID: {
                "kind": "custom",
                "api": minimax_api(provider.protocol),
                "options": {"baseURL": provider.base_url, "apiKey": provider.api_key},
                "models": {
                    config.model.as_str(): {
                        "name": config.model,
                        "contextWindow": context_window,
                        "maxTokens": max_tokens,
                    }
                }
            }
        },
        "features": minimax_features(setup),
    });
    let mut file = file;
    if setup.placement.is_some_and(|p| p.sandbox.is_some()) {
        file["sandbox"] = json!({"enabled": false});
    }
    write(setup, "config.yaml", &file.to_string())?;
    // MiniMax Code reads the Agent's instructions from AGENTS.md in its data dir.
    if let Some(instructions) = &config.instructions {
        write(setup, "AGENTS.md", instructions)?;
    }
    Ok(LaunchPlan {
        args: vec!["acp".into()],
        env: vec![(
            "MINIMAX_DATA_DIR".into(),
            setup.data_dir.display().to_string(),
        )],
    })
}

/// MiniMax Code's `features`: never native web search; on a workspace, no native fetch
/// either when `web_search` is `disabled` (execution-tools, MiniMax Code's row).
fn minimax_features(setup: &ProviderSetup<'_>) -> serde_json::Value {
    let disabled = setup
        .config
        .execution_controls
        .web_search
        .as_ref()
        .is_some_and(|w| w.mode == WebSearchMode::Disabled);
    if setup.placement.is_some() && disabled {
        json!({"webSearch": false, "webFetch": false})
    } else {
        json!({"webSearch": false})
    }
}

fn write(setup: &ProviderSetup<'_>, name: &str, contents: &str) -> Result<(), ProviderError> {
    let path = setup.data_dir.join(name);
    std::fs::create_dir_all(setup.data_dir)
        .and_then(|()| std::fs::write(&path, contents))
        .map_err(|source| ProviderError::Write {
            path: path.display().to_string(),
            source,
        })
}

/// codex-acp: Codex's provider overrides; its home in the data dir.
pub fn codex_acp(setup: &ProviderSetup<'_>) -> Result<LaunchPlan, ProviderError> {
    let config = setup.config;
    let provider = &config.model_provider;
    if provider.protocol != ProviderProtocol::Responses {
        return Err(ProviderError::Unsupported(
            "codex-acp needs a model provider that speaks the Responses protocol".into(),
        ));
    }
    let home = setup.data_dir.join("codex-home");
    std::fs::create_dir_all(&home).map_err(|source| ProviderError::Write {
        path: home.display().to_string(),
        source,
    })?;
    let overrides = codex_overrides(
        &config.model,
        &provider.base_url,
        config.instructions.as_deref(),
    );
    Ok(LaunchPlan {
        args: overrides
            .into_iter()
            .flat_map(|o| ["-c".into(), o.into()])
            .collect(),
        env: vec![
            ("CODEX_HOME".into(), home.display().to_string()),
            ("HOME".into(), setup.data_dir.display().to_string()),
            (CODEX_ACP_KEY_ENV.into(), provider.api_key.clone()),
        ],
    })
}

/// Codex's `-c` overrides for a Responses provider at `base_url` (shared with the test
/// launcher that stands in for `mcode`, which derives the same from MiniMax's config).
pub fn codex_overrides(model: &str, base_url: &str, instructions: Option<&str>) -> Vec<String> {
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    let mut overrides = vec![
        format!("model={}", quoted(model)),
        "model_provider=\"switchboard\"".into(),
        "model_providers.switchboard.name=\"Switchboard\"".into(),
        format!("model_providers.switchboard.base_url={}", quoted(base_url)),
        "model_providers.switchboard.wire_api=\"responses\"".into(),
        format!("model_providers.switchboard.env_key=\"{CODEX_ACP_KEY_ENV}\""),
        "model_providers.switchboard.request_max_retries=0".into(),
        "model_providers.switchboard.stream_max_retries=0".into(),
        "web_search=\"disabled\"".into(),
        "check_for_update_on_startup=false".into(),
        "analytics.enabled=false".into(),
        "feedback.enabled=false".into(),
        "features.plugins=false".into(),
    ];
    if let Some(instructions) = instructions {
        overrides.push(format!("developer_instructions={}", quoted(instructions)));
    }
    overrides
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_option_names_the_custom_provider() {
        assert_eq!(
            minimax_model_option("MiniMax-M2"),
            "m:custom_provider%3Aswitchboard:MiniMax-M2:v:"
        );
        assert_eq!(
            minimax_api(ProviderProtocol::ChatCompletions),
            "openai-completions"
        );
    }
}
