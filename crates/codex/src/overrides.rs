//! The frozen Session configuration as `codex app-server -c key=value` overrides.
//!
//! Every launch of a Session's process (first start and every resume) passes the same list, so
//! the provider and controls are re-applied unchanged after eviction; codex keeps nothing of the
//! provider in its rollout. Values are TOML (codex parses each `-c` value as TOML).
//!
//! Hermetic defaults: one custom provider whose key comes from an environment variable (never
//! on the command line), no retries (a failing provider fails the Turn at once instead of
//! backing off for minutes), no update check, no analytics or feedback, and no plugin sync (the
//! only startup traffic codex makes besides the provider) on `environment: none` (a workspace
//! keeps codex's native plugins), native Subagents only on a multi-agent Session
//! (`features.multi_agent`, the limit as `agents.max_threads`), and the
//! key's variable left out of the environment of the model's commands
//! (`shell_environment_policy.exclude`).
//!
//! Execution controls are sent only when present, so an absent option leaves codex's native
//! default untouched:
//! - `web_search`: `web_search = "disabled"|"cached"|"live"`, plus `tools.web_search.context_size`,
//!   `tools.web_search.allowed_domains` and `tools.web_search.location.{city,country,region,timezone}`
//!   (codex 0.171.0 turns these into the Responses `web_search` tool's `search_context_size`,
//!   `filters.allowed_domains` and `user_location`).
//! - `programmatic_tool_calling`: `features.code_mode = true|false`; `false` also sets
//!   `features.code_mode_only` and `features.code_mode_prewarm` to false.
//! - `text_verbosity` → `model_verbosity`; `reasoning` → `model_reasoning_effort` /
//!   `model_reasoning_summary`; `service_tier` → `service_tier`.
//!
//! `text.format` is not here: it travels as `outputSchema` on every `turn/start`.

use serde::Serialize;
use switchboard_protocol::configuration::{ExecutionControls, WebSearchControl};
use switchboard_protocol::{ModelProviderConfig, SessionConfiguration};

/// The provider id codex knows Switchboard's provider by.
pub const PROVIDER_ID: &str = "switchboard";

/// The environment variable that carries the provider's API key into codex.
pub const API_KEY_ENV: &str = "SWITCHBOARD_MODEL_API_KEY";

/// All `-c` overrides for a Session, in order (a later override wins in codex). On a workspace
/// placement (`on_workspace`) plugins keep codex's native behaviour: the Session works in a
/// directory, where undeclared servers, apps and plugins behave as they natively do.
pub fn config_overrides(config: &SessionConfiguration, on_workspace: bool) -> Vec<String> {
    let mut out = Overrides::default();
    out.set("model", &config.model);
    out.set("model_provider", PROVIDER_ID);
    provider(&mut out, &config.model_provider);
    out.set("check_for_update_on_startup", false);
    out.set("analytics.enabled", false);
    out.set("feedback.enabled", false);
    if !on_workspace {
        out.set("features.plugins", false);
    }
    // codex hands its own environment to the model's commands; the provider key is not the
    // workspace's to read.
    out.set("shell_environment_policy.exclude", [API_KEY_ENV]);
    // Native Subagents only on a multi-agent Session (observed by `subagents`); off otherwise,
    // which is the `subagent_control` capability.
    match &config.execution_controls.subagents {
        Some(control) => {
            out.set("features.multi_agent", true);
            if let Some(max) = control.max_concurrent {
                out.set("agents.max_threads", max);
            }
        }
        None => out.set("features.multi_agent", false),
    }
    controls(&mut out, &config.execution_controls);
    out.0
}

fn provider(out: &mut Overrides, provider: &ModelProviderConfig) {
    let key = |field: &str| format!("model_providers.{PROVIDER_ID}.{field}");
    out.set(&key("name"), "Switchboard model provider");
    out.set(&key("base_url"), &provider.base_url);
    out.set(&key("wire_api"), "responses");
    out.set(&key("env_key"), API_KEY_ENV);
    out.set(&key("request_max_retries"), 0);
    out.set(&key("stream_max_retries"), 0);
    if let Some(window) = provider.context_window {
        out.set("model_context_window", window);
    }
}

fn controls(out: &mut Overrides, controls: &ExecutionControls) {
    if let Some(web_search) = &controls.web_search {
        web_search_overrides(out, web_search);
    }
    if let Some(ptc) = &controls.programmatic_tool_calling {
        out.set("features.code_mode", ptc.enabled);
        if !ptc.enabled {
            out.set("features.code_mode_only", false);
            out.set("features.code_mode_prewarm", false);
        }
    }
    if let Some(verbosity) = controls.text_verbosity {
        out.set("model_verbosity", verbosity);
    }
    if let Some(reasoning) = controls.reasoning {
        if let Some(effort) = reasoning.effort {
            out.set("model_reasoning_effort", effort);
        }
        if let Some(summary) = reasoning.summary {
            out.set("model_reasoning_summary", summary);
        }
    }
    if let Some(tier) = controls.service_tier {
        out.set("service_tier", tier);
    }
}

fn web_search_overrides(out: &mut Overrides, web_search: &WebSearchControl) {
    out.set("web_search", web_search.mode);
    out.set("tools.web_search.context_size", web_search.context_size);
    if let Some(domains) = &web_search.allowed_domains {
        out.set("tools.web_search.allowed_domains", domains);
    }
    if let Some(location) = &web_search.location {
        let fields = [
            ("city", &location.city),
            ("country", &location.country),
            ("region", &location.region),
            ("timezone", &location.timezone),
        ];
        for (name, value) in fields {
            if let Some(value) = value {
                out.set(&format!("tools.web_search.location.{name}"), value);
            }
        }
    }
}

#[derive(Default)]
struct Overrides(Vec<String>);

impl Overrides {
    /// Adds `key=<value as TOML>`. Values go through their serde form, so enums use exactly the
    /// snake_case spelling of the protocol (which is also codex's).
    fn set(&mut self, key: &str, value: impl Serialize) {
        let json = serde_json::to_value(&value).unwrap_or(serde_json::Value::Null);
        self.0.push(format!("{key}={}", toml_value(&json)));
    }
}

/// Renders a JSON scalar or array as a TOML value.
fn toml_value(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(s) => toml_string(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_value).collect();
            format!("[{}]", items.join(","))
        }
        // Not produced by this module: objects are spelled as dotted keys instead.
        Value::Null | Value::Object(_) => "\"\"".to_owned(),
    }
}

/// A TOML basic string. Control characters are escaped so a value can never end the line or
/// smuggle a second key.
pub(crate) fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use switchboard_protocol::configuration::{
        ContextSize, HarnessId, ProgrammaticToolCallingControl, ProviderProtocol,
        WebSearchLocation, WebSearchMode,
    };

    /// A Codex Session's configuration with `controls` (also for other modules' tests).
    pub(crate) fn config(controls: ExecutionControls) -> SessionConfiguration {
        SessionConfiguration {
            harness: HarnessId::Codex,
            model: "gpt-\"x\"".into(),
            instructions: None,
            model_provider: ModelProviderConfig {
                protocol: ProviderProtocol::Responses,
                base_url: "http://127.0.0.1:1/v1".into(),
                api_key: "secret".into(),
                context_window: None,
                max_output_tokens: None,
            },
            function_tools: vec![],
            tool_search: false,
            execution_controls: controls,
            mcp_servers: vec![],
            mcp_stdio_servers: vec![],
            mcp_environment_servers: vec![],
            harness_config: None,
            workspace: None,
        }
    }

    #[test]
    fn native_subagents_only_on_a_multi_agent_session() {
        let off = config_overrides(&config(ExecutionControls::default()), false);
        assert!(off.contains(&"features.multi_agent=false".to_owned()));
        assert!(off.iter().all(|x| !x.starts_with("agents.")));
        let on = config_overrides(
            &config(ExecutionControls {
                subagents: Some(switchboard_protocol::subagents::SubagentControl {
                    max_concurrent: Some(3),
                }),
                ..Default::default()
            }),
            false,
        );
        assert!(on.contains(&"features.multi_agent=true".to_owned()));
        assert!(on.contains(&"agents.max_threads=3".to_owned()));
    }

    #[test]
    fn provider_and_hermetic_defaults() {
        let o = config_overrides(&config(ExecutionControls::default()), false);
        assert_eq!(o[0], r#"model="gpt-\"x\"""#);
        assert!(o.contains(&r#"model_provider="switchboard""#.to_owned()));
        assert!(o.contains(
            &r#"model_providers.switchboard.base_url="http://127.0.0.1:1/v1""#.to_owned()
        ));
        assert!(o.contains(
            &r#"model_providers.switchboard.env_key="SWITCHBOARD_MODEL_API_KEY""#.to_owned()
        ));
        assert!(o.contains(&"model_providers.switchboard.request_max_retries=0".to_owned()));
        assert!(o.contains(&"features.plugins=false".to_owned()));
        assert!(o.contains(
            &r#"shell_environment_policy.exclude=["SWITCHBOARD_MODEL_API_KEY"]"#.to_owned()
        ));
        assert!(
            o.iter().all(|x| !x.contains("secret")),
            "the key never reaches argv"
        );
        assert!(
            o.iter()
                .all(|x| !x.contains("web_search") && !x.contains("code_mode"))
        );
    }

    #[test]
    fn web_search_and_code_mode_only_when_present() {
        let o = config_overrides(
            &config(ExecutionControls {
                web_search: Some(WebSearchControl {
                    mode: WebSearchMode::Live,
                    context_size: ContextSize::High,
                    allowed_domains: Some(vec!["example.com".into()]),
                    location: Some(WebSearchLocation {
                        city: Some("Paris".into()),
                        ..Default::default()
                    }),
                }),
                programmatic_tool_calling: Some(ProgrammaticToolCallingControl { enabled: false }),
                ..Default::default()
            }),
            true,
        );
        assert!(
            !o.iter().any(|x| x.starts_with("features.plugins")),
            "plugins keep their native behaviour on a workspace"
        );
        for expected in [
            r#"web_search="live""#,
            r#"tools.web_search.context_size="high""#,
            r#"tools.web_search.allowed_domains=["example.com"]"#,
            r#"tools.web_search.location.city="Paris""#,
            "features.code_mode=false",
            "features.code_mode_only=false",
            "features.code_mode_prewarm=false",
        ] {
            assert!(
                o.contains(&expected.to_owned()),
                "{expected} missing from {o:?}"
            );
        }
        assert!(!o.iter().any(|x| x.contains("location.country")));
    }

    #[test]
    fn toml_strings_escape_control_characters() {
        assert_eq!(toml_string("a\nb=\"c\"\\\u{1}"), r#""a\nb=\"c\"\\\u0001""#);
    }
}
