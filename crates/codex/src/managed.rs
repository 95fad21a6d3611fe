//! Codex's managed requirements, checked before a thread starts or resumes.
//!
//! An administrator can pin codex features in files outside the Session's hermetic
//! `CODEX_HOME`, which codex 0.171.0 reads on every launch from a fixed system directory on Unix
//! (`/etc/codex`, no environment override): `requirements.toml`, whose `[features]` table (alias
//! `feature_requirements`) constrains feature values, and the legacy `managed_config.toml`, a
//! config layer above the `-c` session flags. Either can turn code mode back on under a Session
//! that sets `programmatic_tool_calling.enabled: false`, which would let the model run tools
//! through code mode's `exec` past the adapter's receipts and observations. So such a Session
//! refuses to start when they force `features.code_mode` or `features.code_mode_only` on; a file
//! that cannot be read or parsed refuses it too, since codex would not start on it either.
//!
//! The directory is the adapter's launch configuration ([`crate::Codex::with_managed_dir`]),
//! so tests plant files in a temporary one instead of `/etc`.

use std::path::{Path, PathBuf};

use switchboard_protocol::{AdapterError, SessionConfiguration};
use toml_edit::{DocumentMut, Item};

/// Where codex reads managed files on Unix.
pub const SYSTEM_DIR: &str = "/etc/codex";

/// The managed files and the tables in them that pin features.
const FEATURE_TABLES: [(&str, &[&str]); 2] = [
    ("requirements.toml", &["features", "feature_requirements"]),
    ("managed_config.toml", &["features"]),
];

/// The features that turn code mode on.
const CODE_MODE_FEATURES: [&str; 2] = ["code_mode", "code_mode_only"];

/// Refuses the Session when it turns programmatic tool calling off and the managed files in
/// `dir` force code mode on. Other Sessions are not affected.
pub fn check(config: &SessionConfiguration, dir: &Path) -> Result<(), AdapterError> {
    let off = config
        .execution_controls
        .programmatic_tool_calling
        .is_some_and(|ptc| !ptc.enabled);
    if !off {
        return Ok(());
    }
    for (file, tables) in FEATURE_TABLES {
        let path = dir.join(file);
        let Some(document) = read(&path)? else {
            continue;
        };
        for table in tables {
            for feature in CODE_MODE_FEATURES {
                let forced = document
                    .get(table)
                    .and_then(|t| t.get(feature))
                    .and_then(Item::as_bool)
                    == Some(true);
                if forced {
                    return Err(AdapterError::InvalidConfiguration(format!(
                        "codex managed requirements force code mode on ({}: {table}.{feature} = true), \
                         but this Session sets programmatic_tool_calling.enabled to false",
                        path.display()
                    )));
                }
            }
        }
    }
    Ok(())
}

fn read(path: &PathBuf) -> Result<Option<DocumentMut>, AdapterError> {
    let unusable = |reason: String| {
        AdapterError::InvalidConfiguration(format!(
            "cannot check codex managed requirements in {}: {reason}",
            path.display()
        ))
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unusable(e.to_string())),
    };
    text.parse::<DocumentMut>()
        .map(Some)
        .map_err(|e| unusable(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
    use switchboard_protocol::{
        ExecutionControls, ModelProviderConfig, ProgrammaticToolCallingControl,
    };

    fn config(ptc: Option<bool>) -> SessionConfiguration {
        SessionConfiguration {
            harness: HarnessId::Codex,
            model: "m".into(),
            instructions: None,
            model_provider: ModelProviderConfig {
                protocol: ProviderProtocol::Responses,
                base_url: "http://127.0.0.1:1/v1".into(),
                api_key: "k".into(),
                context_window: None,
                max_output_tokens: None,
            },
            function_tools: vec![],
            tool_search: false,
            execution_controls: ExecutionControls {
                programmatic_tool_calling: ptc
                    .map(|enabled| ProgrammaticToolCallingControl { enabled }),
                ..Default::default()
            },
            mcp_servers: vec![],
            mcp_stdio_servers: vec![],
            mcp_environment_servers: vec![],
            harness_config: None,
            workspace: None,
        }
    }

    fn dir_with(file: &str, text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(file), text).unwrap();
        dir
    }

    fn message(result: Result<(), AdapterError>) -> String {
        match result {
            Err(AdapterError::InvalidConfiguration(m)) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn forced_code_mode_refuses_only_sessions_that_turn_it_off() {
        let cases = [
            (
                "requirements.toml",
                "[features]\ncode_mode = true\n",
                "features.code_mode",
            ),
            (
                "requirements.toml",
                "[feature_requirements]\ncode_mode_only = true\n",
                "feature_requirements.code_mode_only",
            ),
            (
                "managed_config.toml",
                "features.code_mode = true\n",
                "features.code_mode",
            ),
            (
                "managed_config.toml",
                "[features]\ncode_mode_only = true\n",
                "features.code_mode_only",
            ),
        ];
        for (file, text, key) in cases {
            let dir = dir_with(file, text);
            let m = message(check(&config(Some(false)), dir.path()));
            assert!(m.contains(&format!("{file}: {key} = true")), "{m}");
            assert!(check(&config(Some(true)), dir.path()).is_ok());
            assert!(check(&config(None), dir.path()).is_ok());
        }
    }

    #[test]
    fn files_that_allow_code_mode_off_or_are_absent_pass() {
        let dir = dir_with(
            "requirements.toml",
            "[features]\ncode_mode = false\nweb_search_request = true\n",
        );
        assert!(check(&config(Some(false)), dir.path()).is_ok());
        let empty = tempfile::tempdir().unwrap();
        assert!(check(&config(Some(false)), empty.path()).is_ok());
    }

    #[test]
    fn an_unparsable_file_refuses_the_session() {
        let dir = dir_with("managed_config.toml", "features = [\n");
        let m = message(check(&config(Some(false)), dir.path()));
        assert!(
            m.starts_with("cannot check codex managed requirements in "),
            "{m}"
        );
    }
}
