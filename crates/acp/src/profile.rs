//! A profile: everything agent-specific about one ACP agent, as data plus the smallest code that
//! cannot be data (how its model provider is configured).
//!
//! The adapter speaks ACP v1 the same way to every agent; a [`Profile`] says how to find and
//! start the agent, which version it must be, how the Session's frozen model provider reaches
//! it, which ACP extensions it has (a steer method or none) and what the adapter advertises for
//! it. `minimax_code` is the product; `codex_acp` stands in for it in the tests.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::{Capabilities, ProcessPlacement, SessionConfiguration};

use crate::provider::{self, ProviderError};

/// How the adapter finds and checks the agent's version.
#[derive(Debug, Clone, Copy)]
pub enum VersionProbe {
    /// `<binary> --version` prints the version (the first token that looks like one).
    VersionFlag,
    /// The npm install's own `package.json`, two folders above the binary (an agent without
    /// `--version`, like codex-acp).
    PackageJson,
}

/// What starting the agent for one Session needs, beyond the binary.
pub struct LaunchPlan {
    pub args: Vec<OsString>,
    /// Added to the hermetic environment (the provider key goes here, never on argv).
    pub env: Vec<(String, String)>,
}

/// Where the provider writer may put its files, and where the agent works.
pub struct ProviderSetup<'a> {
    pub config: &'a SessionConfiguration,
    /// The Session's private folder for the agent's own configuration and data.
    pub data_dir: &'a Path,
    /// Where the agent works: `None` on `environment: none`.
    pub placement: Option<&'a ProcessPlacement>,
}

/// One ACP agent.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The profile's name in logs and failure messages.
    pub name: &'static str,
    /// The harness this profile runs (the stand-ins run `minimax_code` Sessions too).
    pub harness: HarnessId,
    pub pinned_version: &'static str,
    /// The environment variable naming the binary explicitly.
    pub binary_env: &'static str,
    /// The environment variable listing (like `PATH`) what else of the host a managed sandbox
    /// must show for the agent to run: a Node program's runtime and package, say.
    pub sandbox_paths_env: Option<&'static str>,
    /// A program name looked up on `PATH` when the variable is unset.
    pub path_name: Option<&'static str>,
    /// The binary inside `scripts/install-harnesses.sh`'s install, under the repository root.
    pub installed: Option<&'static str>,
    pub version: VersionProbe,
    /// Why the agent may be absent, and what to do about it (the heartbeat's reason).
    pub missing_hint: &'static str,
    /// Writes the agent's provider configuration; returns its arguments and environment.
    pub configure: fn(&ProviderSetup<'_>) -> Result<LaunchPlan, ProviderError>,
    /// The agent's steering extension method, if it has one.
    pub steer_method: Option<&'static str>,
    /// What the adapter implements on this agent, for the Runtime's advertisement.
    pub capabilities: fn() -> Capabilities,
}

/// MiniMax Code: `mcode acp` with a private `MINIMAX_DATA_DIR` (harnesses.md §4).
pub const MINIMAX_CODE: Profile = Profile {
    name: "minimax_code",
    harness: HarnessId::MinimaxCode,
    pinned_version: switchboard_pins::MINIMAX_CODE_VERSION,
    binary_env: "SWITCHBOARD_MINIMAX_CODE_BIN",
    sandbox_paths_env: Some("SWITCHBOARD_MINIMAX_CODE_SANDBOX_PATHS"),
    path_name: Some("mcode"),
    installed: None,
    version: VersionProbe::VersionFlag,
    missing_hint: "mcode is not installed: the npm registry this machine reaches has no \
                   @minimax-ai/code; install MiniMax Code yourself and set \
                   SWITCHBOARD_MINIMAX_CODE_BIN to its mcode (or put mcode on PATH)",
    configure: provider::minimax_code,
    steer_method: Some("mcode/session/steer"),
    capabilities,
};

/// codex-acp, the tests' stand-in: Codex config overrides for the provider.
pub const CODEX_ACP: Profile = Profile {
    name: "codex_acp",
    harness: HarnessId::MinimaxCode,
    pinned_version: switchboard_pins::CODEX_ACP_VERSION,
    binary_env: "SWITCHBOARD_CODEX_ACP_BIN",
    sandbox_paths_env: None,
    path_name: None,
    installed: Some(switchboard_pins::CODEX_ACP_NATIVE),
    version: VersionProbe::PackageJson,
    missing_hint: "codex-acp is not installed (run scripts/install-harnesses.sh)",
    configure: provider::codex_acp,
    steer_method: None,
    capabilities,
};

/// What the adapter implements on every profile: text Turns with message and reasoning Items,
/// functions through the `functions` MCP server, environment-origin HTTP MCP servers, cancel, and
/// the execution controls the declaration admits (web search disabled, PTC off). Steering is
/// advertised by the declaration but runs only on a profile with a steer method
/// ([`Profile::capabilities_for`]).
///
/// Every Session needs the Turn contract of the adapter kit (one terminal event, receipts only
/// on the agent's own record: `durable_turns`, `durable_input_receipts`), `tool_observations`
/// (on `environment: none` the agent's native tools are refused at its permission request; on a
/// workspace its commands are `command_execution` Items, [`crate::commands`]) and `subagent_control` (no Subagent is ever enabled).
fn capabilities() -> Capabilities {
    Capabilities {
        streaming: true,
        durable_turns: true,
        durable_input_receipts: true,
        tool_observations: true,
        subagent_control: true,
        message_items: true,
        environment_none: true,
        preparation: true,
        function_tools: true,
        programmatic_tool_calling_disable: true,
        web_search_control: true,
        execution_controls: true,
        mcp_http_tools: true,
        mcp_http_bearer_auth: true,
        ..Capabilities::default()
    }
}

impl Profile {
    /// What the Runtime may advertise for this profile.
    pub fn advertised(&self) -> Capabilities {
        Capabilities {
            steering: self.steer_method.is_some(),
            ..(self.capabilities)()
        }
    }

    /// The binary: the variable when set, else `PATH` (by [`Profile::path_name`]), else the
    /// install under `repo_root`. `None` when no such file exists.
    pub fn locate(&self, repo_root: &Path) -> Option<PathBuf> {
        if let Some(explicit) = std::env::var_os(self.binary_env).filter(|v| !v.is_empty()) {
            let path = switchboard_adapter_kit::paths::absolute(&explicit)
                .unwrap_or_else(|_| PathBuf::from(explicit));
            return path.is_file().then_some(path);
        }
        if let Some(found) = self.path_name.and_then(on_path) {
            return Some(found);
        }
        let installed = repo_root
            .join(".harnesses")
            .join(self.name.replace('_', "-"))
            .join(self.installed?);
        installed.is_file().then_some(installed)
    }

    /// What a managed sandbox shows of the host, read-only, for `binary` to run there: its
    /// directory, the directory above the file it resolves to (an npm `bin` link points into
    /// its package), and every path of [`Profile::sandbox_paths_env`].
    pub fn sandbox_paths(&self, binary: &Path) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = binary.parent().map(Path::to_owned).into_iter().collect();
        if let Some(package) = binary
            .canonicalize()
            .ok()
            .and_then(|b| b.parent()?.parent().map(Path::to_owned))
        {
            paths.push(package);
        }
        if let Some(listed) = self.sandbox_paths_env.and_then(std::env::var_os) {
            paths.extend(std::env::split_paths(&listed).filter(|p| p.is_absolute()));
        }
        paths.dedup();
        paths
    }

    /// The binary's version, or `None` when it does not tell.
    pub async fn probe_version(&self, binary: &Path) -> Option<String> {
        match self.version {
            VersionProbe::VersionFlag => {
                let output = tokio::process::Command::new(binary)
                    .arg("--version")
                    .env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .output()
                    .await
                    .ok()?;
                if !output.status.success() {
                    return None;
                }
                parse_version(&String::from_utf8_lossy(&output.stdout))
            }
            VersionProbe::PackageJson => {
                let manifest = binary.parent()?.parent()?.join("package.json");
                let text = tokio::fs::read_to_string(manifest).await.ok()?;
                let value: serde_json::Value = serde_json::from_str(&text).ok()?;
                value.get("version")?.as_str().map(str::to_owned)
            }
        }
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The first whitespace-separated token that is digits and dots (`mcode 0.4.12` → `0.4.12`).
pub fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .map(|t| t.trim_start_matches('v'))
        .find(|t| t.contains('.') && t.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_the_first_version_token() {
        assert_eq!(parse_version("mcode 0.4.12\n").as_deref(), Some("0.4.12"));
        assert_eq!(parse_version("v0.4.12").as_deref(), Some("0.4.12"));
        assert_eq!(parse_version("no version"), None);
    }

    #[test]
    fn only_a_profile_with_a_steer_method_advertises_steering() {
        assert!(MINIMAX_CODE.advertised().steering);
        assert!(!CODEX_ACP.advertised().steering);
    }
}
