//! `environment: {type: "openai_hosted", …}` (Session create) and the `environment` of
//! `environments.create`: a managed workspace (agents-api-wire §5).
//!
//! Every member of the SDK's union is read and typed. What this service builds is kept
//! (`environment_id`, inline `files`, `setup_commands`, `network.access` enabled|disabled, `env`,
//! `capability_directories`); a member it does not build yet, when it asks for something, is
//! recorded in [`HostedEnvironment::unbuilt`] so admission refuses it naming the field (never
//! silently ignored). Paths are absolute paths inside the environment, under the workspace
//! mount `/workspace`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::json_path::element_path;
use crate::object_reader::ObjectReader;
use crate::scalar;

/// Where a managed workspace is mounted inside its sandbox (the protocol's
/// `MANAGED_WORKSPACE_DIRECTORY`).
pub const WORKSPACE_MOUNT: &str = "/workspace";

const SESSION_MEMBERS: &[&str] = &[
    "type",
    "environment_id",
    "environment_template_id",
    "container_size",
    "files",
    "skills",
    "plugins",
    "packages",
    "network",
    "env",
    "setup_commands",
    "capability_directories",
    "desktop",
];

/// `environments.create` takes the same configuration, without `environment_id` and
/// `container_size`.
const RESOURCE_MEMBERS: &[&str] = &[
    "type",
    "environment_template_id",
    "files",
    "skills",
    "plugins",
    "packages",
    "network",
    "env",
    "setup_commands",
    "capability_directories",
    "desktop",
];

const NETWORK_ACCESS: &[(&str, Access)] = &[
    ("enabled", Access::Enabled),
    ("disabled", Access::Disabled),
    ("restricted", Access::Restricted),
];
const CONTAINER_SIZES: &[(&str, ())] = &[("small", ()), ("medium", ()), ("large", ())];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Enabled,
    Disabled,
    Restricted,
}

/// An inline file: its path inside the environment and its base64 contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineFile {
    pub path: String,
    /// Standard base64, as sent (checked to decode).
    pub data: String,
    /// The decoded size.
    pub size_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupCommandRequest {
    pub command: String,
    pub cwd: Option<String>,
}

/// A parsed managed-workspace request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostedEnvironment {
    /// An existing Environment to run in (Session create only).
    pub environment_id: Option<String>,
    pub files: Vec<InlineFile>,
    pub setup_commands: Vec<SetupCommandRequest>,
    /// `enabled` when `network` is absent or null.
    pub network_disabled: bool,
    pub env: BTreeMap<String, String>,
    pub capability_directories: Vec<String>,
    /// The first member that asks for something not built yet: `(param, message)`.
    pub unbuilt: Option<(String, String)>,
    /// The first configuration member sent beside `environment_id` (its param).
    pub configured: Option<String>,
}

impl HostedEnvironment {
    fn refuse(&mut self, param: String, message: String) {
        self.unbuilt.get_or_insert((param, message));
    }
}

fn not_built(param: &str) -> String {
    format!("This service does not support {param} yet.")
}

/// `environment` of Session create (`openai_hosted`), at `path`.
pub fn parse_hosted_session_environment(
    obj: &ObjectReader<'_>,
) -> Result<HostedEnvironment, ValidationError> {
    parse(obj, SESSION_MEMBERS)
}

/// `environment` of `environments.create`, at `path`.
pub fn parse_hosted_environment(
    value: &Value,
    path: &str,
) -> Result<HostedEnvironment, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    obj.tag(&["openai_hosted"])?;
    parse(&obj, RESOURCE_MEMBERS)
}

fn parse(obj: &ObjectReader<'_>, members: &[&str]) -> Result<HostedEnvironment, ValidationError> {
    let mut env = HostedEnvironment::default();
    obj.read(members, |key, value, path| {
        let configures = !value.is_null();
        match key {
            "type" => return Ok(()),
            "environment_id" => {
                env.environment_id = Some(scalar::string(value, path)?.to_string());
                return Ok(());
            }
            "environment_template_id" => {
                scalar::string(value, path)?;
                env.refuse(path.to_string(), not_built(path));
            }
            "container_size" => {
                scalar::choice(value, path, CONTAINER_SIZES)?;
                env.refuse(
                    path.to_string(),
                    format!("This service does not size managed workspaces; omit {path}."),
                );
            }
            "files" => env.files = parse_files(value, path, &mut env.unbuilt)?,
            "skills" | "plugins" => {
                if let Some(items) = nullable_array(value, path)?
                    && !items.is_empty()
                {
                    env.refuse(path.to_string(), not_built(path));
                }
            }
            "packages" => parse_packages(value, path, &mut env)?,
            "network" => env.network_disabled = parse_network(value, path, &mut env)?,
            "env" if !value.is_null() => {
                for (name, v) in scalar::string_map(value, path)? {
                    check_env_name(&name, path)?;
                    env.env
                        .insert(name, v.as_str().unwrap_or_default().to_owned());
                }
            }
            "setup_commands" => env.setup_commands = parse_setup_commands(value, path)?,
            "capability_directories" => {
                env.capability_directories =
                    scalar::nullable_string_array(value, path)?.unwrap_or_default()
            }
            "desktop" if !value.is_null() => {
                let desk = ObjectReader::new(value, path, kind::OBJECT)?;
                let mut enabled = None;
                desk.read(&["enabled"], |_, v, p| {
                    enabled = Some(scalar::boolean(v, p)?);
                    Ok(())
                })?;
                if desk.required(enabled, "enabled")? {
                    env.refuse(path.to_string(), not_built(path));
                }
            }
            _ => {}
        }
        if configures {
            env.configured.get_or_insert_with(|| path.to_string());
        }
        Ok(())
    })?;
    Ok(env)
}

fn nullable_array<'a>(
    value: &'a Value,
    path: &str,
) -> Result<Option<&'a [Value]>, ValidationError> {
    if value.is_null() {
        return Ok(None);
    }
    scalar::array(value, path).map(Some)
}

fn parse_files(
    value: &Value,
    path: &str,
    unbuilt: &mut Option<(String, String)>,
) -> Result<Vec<InlineFile>, ValidationError> {
    let mut files = Vec::new();
    for (i, item) in nullable_array(value, path)?
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let at = element_path(path, i);
        let file = ObjectReader::new(item, &at, kind::OBJECT)?;
        match file.tag(&["file_id", "inline"])? {
            "file_id" => {
                let (mut file_id, mut file_path) = (None, None);
                file.read(&["type", "file_id", "path"], |key, v, p| {
                    match key {
                        "file_id" => file_id = Some(scalar::string(v, p)?.to_string()),
                        "path" => file_path = Some(workspace_path(v, p)?),
                        _ => {}
                    }
                    Ok(())
                })?;
                file.required(file_id, "file_id")?;
                file.required(file_path, "path")?;
                let param = file.member("type");
                unbuilt.get_or_insert((
                    param.clone(),
                    format!(
                        "This service does not support file_id files ({param}); send the contents inline with type 'inline'."
                    ),
                ));
            }
            _ => files.push(parse_inline_file(&file)?),
        }
    }
    Ok(files)
}

/// The body of `environments.files.create`: an inline file, or `None` for the `file_id` form
/// (which needs a Files API this service does not have).
pub fn parse_file_create(body: &Value) -> Result<Option<InlineFile>, ValidationError> {
    let obj = ObjectReader::new(body, "", kind::OBJECT)?;
    match obj.tag(&["file_id", "inline"])? {
        "file_id" => Ok(None),
        _ => parse_inline_file(&obj).map(Some),
    }
}

/// `{type: "inline", data, path}`.
fn parse_inline_file(file: &ObjectReader<'_>) -> Result<InlineFile, ValidationError> {
    let (mut data, mut file_path) = (None, None);
    file.read(&["type", "data", "path"], |key, v, p| {
        match key {
            "data" => {
                let text = scalar::string(v, p)?;
                let size = base64_size(text)
                    .ok_or_else(|| error_messages::rule(p, "The file data must be base64."))?;
                data = Some((text.to_string(), size));
            }
            "path" => file_path = Some(workspace_path(v, p)?),
            _ => {}
        }
        Ok(())
    })?;
    let (data, size_bytes) = file.required(data, "data")?;
    Ok(InlineFile {
        path: file.required(file_path, "path")?,
        data,
        size_bytes,
    })
}

/// The decoded length of standard padded base64, or `None` when it does not decode.
fn base64_size(text: &str) -> Option<u64> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .ok()
        .map(|bytes| bytes.len() as u64)
}

/// An absolute path inside the environment, under [`WORKSPACE_MOUNT`], without `.`/`..`
/// components or NUL.
pub fn workspace_path(value: &Value, path: &str) -> Result<String, ValidationError> {
    let text = scalar::string(value, path)?;
    if is_workspace_path(text) {
        Ok(text.to_string())
    } else {
        Err(error_messages::rule(
            path,
            &format!(
                "Invalid '{path}': expected an absolute path inside the environment, under {WORKSPACE_MOUNT}."
            ),
        ))
    }
}

pub fn is_workspace_path(text: &str) -> bool {
    let Some(rest) = text.strip_prefix(WORKSPACE_MOUNT) else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let Some(rest) = rest.strip_prefix('/') else {
        return false;
    };
    !text.contains('\0')
        && rest
            .split('/')
            .all(|c| !matches!(c, "." | "..") && (!c.is_empty() || rest.is_empty()))
}

fn check_env_name(name: &str, path: &str) -> Result<(), ValidationError> {
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        return Ok(());
    }
    let at = crate::json_path::member_path(path, name);
    Err(error_messages::rule(
        &at,
        "Environment variable names must be letters, digits and underscores, not starting with a digit.",
    ))
}

fn parse_packages(
    value: &Value,
    path: &str,
    env: &mut HostedEnvironment,
) -> Result<(), ValidationError> {
    if value.is_null() {
        return Ok(());
    }
    ObjectReader::new(value, path, kind::OBJECT)?.read(&["npm", "python", "system"], |_, v, p| {
        if scalar::nullable_string_array(v, p)?.is_some_and(|l| !l.is_empty()) {
            env.refuse(p.to_string(), not_built(p));
        }
        Ok(())
    })
}

/// `network{access*, allowed_domains?, blocked_domains?}`; returns whether access is disabled.
fn parse_network(
    value: &Value,
    path: &str,
    env: &mut HostedEnvironment,
) -> Result<bool, ValidationError> {
    if value.is_null() {
        return Ok(false);
    }
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let mut access = None;
    obj.read(
        &["access", "allowed_domains", "blocked_domains"],
        |key, v, p| {
            match key {
                "access" => access = Some(scalar::choice(v, p, NETWORK_ACCESS)?),
                _ => {
                    if scalar::nullable_string_array(v, p)?.is_some_and(|l| !l.is_empty()) {
                        env.refuse(p.to_string(), not_built(p));
                    }
                }
            }
            Ok(())
        },
    )?;
    let access = obj.required(access, "access")?;
    if access == Access::Restricted {
        let p = obj.member("access");
        env.refuse(
            p.clone(),
            format!("This service does not support {p} restricted yet; use enabled or disabled."),
        );
    }
    Ok(access == Access::Disabled)
}

fn parse_setup_commands(
    value: &Value,
    path: &str,
) -> Result<Vec<SetupCommandRequest>, ValidationError> {
    let mut commands = Vec::new();
    for (i, item) in nullable_array(value, path)?
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let at = element_path(path, i);
        let obj = ObjectReader::new(item, &at, kind::OBJECT)?;
        let (mut command, mut cwd) = (None, None);
        obj.read(&["command", "cwd"], |key, v, p| {
            match key {
                "command" => command = Some(scalar::nonempty_string(v, p)?.to_string()),
                _ if !v.is_null() => cwd = Some(workspace_path(v, p)?),
                _ => {}
            }
            Ok(())
        })?;
        commands.push(SetupCommandRequest {
            command: obj.required(command, "command")?,
            cwd,
        });
    }
    Ok(commands)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_session(v: Value) -> Result<HostedEnvironment, ValidationError> {
        let obj = ObjectReader::new(&v, "environment", kind::OBJECT)?;
        parse_hosted_session_environment(&obj)
    }

    #[test]
    fn workspace_paths_stay_under_the_mount() {
        for ok in ["/workspace", "/workspace/a", "/workspace/a/b.txt"] {
            assert!(is_workspace_path(ok), "{ok}");
        }
        for bad in [
            "workspace/a",
            "/etc/passwd",
            "/workspaces/a",
            "/workspace/../etc",
            "/workspace/./a",
            "/workspace//a",
            "/workspace/a/",
            "/workspace/a\0",
        ] {
            assert!(!is_workspace_path(bad), "{bad}");
        }
    }

    #[test]
    fn built_members_are_kept() {
        let env = parse_session(json!({
            "type": "openai_hosted",
            "files": [{"type": "inline", "path": "/workspace/a.txt", "data": "aGk="}],
            "setup_commands": [{"command": "make", "cwd": "/workspace"}],
            "network": {"access": "disabled"},
            "env": {"TOKEN": "s"},
            "capability_directories": ["/workspace/caps"],
            "packages": {"npm": []},
            "desktop": {"enabled": false},
        }))
        .unwrap();
        assert_eq!(env.files[0].size_bytes, 2);
        assert_eq!(env.setup_commands[0].command, "make");
        assert!(env.network_disabled);
        assert_eq!(env.env["TOKEN"], "s");
        assert_eq!(env.unbuilt, None);
        assert_eq!(env.configured.as_deref(), Some("environment.files"));
    }

    #[test]
    fn a_path_outside_the_mount_names_the_field() {
        let e = parse_session(json!({
            "type": "openai_hosted",
            "files": [{"type": "inline", "path": "/etc/x", "data": ""}],
        }))
        .unwrap_err();
        assert_eq!(e.param.as_deref(), Some("environment.files[0].path"));
    }

    #[test]
    fn unbuilt_members_are_recorded_with_their_param() {
        for (body, param) in [
            (
                json!({"network": {"access": "restricted"}}),
                "environment.network.access",
            ),
            (
                json!({"network": {"access": "enabled", "allowed_domains": ["a.com"]}}),
                "environment.network.allowed_domains",
            ),
            (
                json!({"packages": {"system": ["git"]}}),
                "environment.packages.system",
            ),
            (
                json!({"skills": [{"type": "inline"}]}),
                "environment.skills",
            ),
            (json!({"plugins": [{}]}), "environment.plugins"),
            (json!({"desktop": {"enabled": true}}), "environment.desktop"),
            (
                json!({"environment_template_id": "t"}),
                "environment.environment_template_id",
            ),
            (
                json!({"container_size": "small"}),
                "environment.container_size",
            ),
            (
                json!({"files": [{"type": "file_id", "file_id": "f", "path": "/workspace/a"}]}),
                "environment.files[0].type",
            ),
        ] {
            let mut body = body;
            body["type"] = json!("openai_hosted");
            let env = parse_session(body).unwrap();
            assert_eq!(env.unbuilt.map(|u| u.0).as_deref(), Some(param));
        }
    }
}
