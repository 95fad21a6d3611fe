//! Codex on a workspace placement: where the thread works, how far codex's own sandbox and
//! approvals reach, and the trust that makes codex load the workspace's project configuration.
//!
//! - **Working directory.** The thread's `cwd` is the placement's `work_dir` (the self-hosted
//!   `workspace_directory`, or `/workspace` inside a managed sandbox), sent on `thread/start`
//!   and again on every `thread/resume`, so a cold resume works in the same place.
//! - **Sandbox and approvals.** Nobody can answer an approval, so `approvalPolicy` is `never`
//!   everywhere. Inside a managed bubblewrap sandbox the sandbox *is* the boundary (the
//!   workspace read-write, nothing else of the host): codex's own sandbox would only nest a
//!   second bubblewrap inside the first, which cannot set up its namespaces there and would
//!   block every command, so it is `danger-full-access`. On a self-hosted workspace (the user's
//!   own machine, where Switchboard adds no sandbox) codex's native `workspace-write` stays: the
//!   model's commands may write the workspace (and temp dirs) but not the rest of the user's
//!   machine, with codex's native default of no network for those commands. `environment:
//!   none` keeps `read-only` in the state directory's empty working directory.
//! - **Trust.** codex loads a project's `.codex/config.toml` only for a trusted project, and the
//!   trust is a `[projects."<path>"] trust_level = "trusted"` table in its user config. The
//!   Session's `CODEX_HOME` is hermetic, so the adapter writes that table into its
//!   `config.toml` before every launch (a start or a cold resume). A `-c` override cannot carry
//!   it: codex splits `-c` keys at every dot, and a path may contain dots.

use std::path::PathBuf;

use serde_json::{Value, json};
use switchboard_protocol::{AdapterError, ProcessPlacement};

use crate::launch::StateLayout;
use crate::overrides::toml_string;

/// codex's sandbox mode for the Session's thread.
pub fn sandbox_mode(placement: Option<&ProcessPlacement>) -> &'static str {
    match placement {
        None => "read-only",
        Some(p) if p.sandbox.is_some() => "danger-full-access",
        Some(_) => "workspace-write",
    }
}

/// The thread's working directory as codex sees it.
pub fn cwd(layout: &StateLayout, placement: Option<&ProcessPlacement>) -> PathBuf {
    placement.map_or_else(|| layout.work_dir(), |p| p.work_dir.clone())
}

/// What `thread/start` and `thread/resume` both carry about the place: `cwd`, `sandbox` and
/// `approvalPolicy`.
pub fn place_params(layout: &StateLayout, placement: Option<&ProcessPlacement>) -> Value {
    json!({
        "cwd": cwd(layout, placement),
        // Unattended: nobody can answer an approval.
        "approvalPolicy": "never",
        "sandbox": sandbox_mode(placement),
    })
}

/// Marks the workspace trusted in the Session's own codex config (nothing on `environment:
/// none`). The adapter owns that file (everything else it sets travels as `-c` overrides), so
/// it is written whole.
pub fn trust(
    layout: &StateLayout,
    placement: Option<&ProcessPlacement>,
) -> Result<(), AdapterError> {
    let Some(placement) = placement else {
        return Ok(());
    };
    let path = layout.codex_home().join("config.toml");
    let work_dir = placement.work_dir.to_string_lossy();
    let text = format!(
        "[projects.{}]\ntrust_level = \"trusted\"\n",
        toml_string(&work_dir)
    );
    std::fs::write(&path, text).map_err(|e| {
        AdapterError::Launch(format!(
            "cannot trust the workspace in {}: {e}",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_protocol::Sandbox;

    fn placement(sandboxed: bool) -> ProcessPlacement {
        ProcessPlacement {
            work_dir: "/work/my.project".into(),
            sandbox: sandboxed.then(|| Sandbox {
                wrapper: vec!["bwrap".into(), "--".into()],
                env: vec![],
            }),
            mcp_env: vec![],
            loopback: None,
        }
    }

    #[test]
    fn sandbox_per_placement() {
        assert_eq!(sandbox_mode(None), "read-only");
        assert_eq!(sandbox_mode(Some(&placement(false))), "workspace-write");
        assert_eq!(sandbox_mode(Some(&placement(true))), "danger-full-access");
        let layout = StateLayout::new("/state".into());
        assert_eq!(
            place_params(&layout, Some(&placement(true))),
            json!({"cwd": "/work/my.project", "approvalPolicy": "never",
                   "sandbox": "danger-full-access"})
        );
        assert_eq!(place_params(&layout, None)["cwd"], "/state/work");
    }

    #[test]
    fn trust_writes_a_quoted_project_table() {
        let dir = tempfile::tempdir().unwrap();
        let layout = StateLayout::new(dir.path().to_owned());
        std::fs::create_dir_all(layout.codex_home()).unwrap();
        let config = layout.codex_home().join("config.toml");
        trust(&layout, None).unwrap();
        assert!(!config.exists());
        trust(&layout, Some(&placement(false))).unwrap();
        trust(&layout, Some(&placement(false))).unwrap();
        let text = std::fs::read_to_string(&config).unwrap();
        let parsed: toml_edit::DocumentMut = text.parse().unwrap();
        assert_eq!(
            parsed["projects"]["/work/my.project"]["trust_level"].as_str(),
            Some("trusted"),
            "{text}"
        );
    }
}
