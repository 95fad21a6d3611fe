//! The Runtime's workspaces: where a Session's harness works, and the requests that touch it.
//!
//! - A self-hosted workspace is the configuration's `directory` on this machine; the harness
//!   runs there directly.
//! - A managed workspace is `<data>/environments/<env_id>/workspace/`, created on first need;
//!   its `files` and `setup_commands` are applied once per Environment (a `prepared` marker
//!   beside the workspace records it), and every process runs in the [`sandbox`], with the
//!   workspace at `/workspace`.
//!
//! Every path operation Switchboard performs stays inside the workspace root ([`paths`],
//! [`walk`]): `invalid_path` otherwise.

pub mod paths;
pub mod relay;
pub mod sandbox;
pub mod setup;
pub mod walk;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use base64::Engine;
use switchboard_protocol::workspace::{
    NetworkAccess, Workspace, WorkspaceEntry, WorkspaceFile, WorkspacePlacement,
};
use switchboard_protocol::{
    LoopbackBridge, MANAGED_WORKSPACE_DIRECTORY, ProcessPlacement, Sandbox,
};

use paths::WorkspacePath;
use relay::Forwarder;
use sandbox::{Bwrap, Layout};
use walk::WalkError;

/// Why a workspace operation failed; [`WorkspaceError::code`] is the wire `error_code`.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("{0}")]
    InvalidPath(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Sandbox(String),
    #[error("{0}")]
    Unsupported(String),
}

impl WorkspaceError {
    pub fn code(&self) -> &'static str {
        match self {
            WorkspaceError::InvalidPath(_) => "invalid_path",
            WorkspaceError::NotFound(_) => "not_found",
            WorkspaceError::Sandbox(_) => "sandbox_error",
            WorkspaceError::Unsupported(_) => "unsupported_operation",
        }
    }

    fn from_walk(shown: &str, error: WalkError) -> WorkspaceError {
        match error {
            WalkError::NotADirectory(_) => WorkspaceError::InvalidPath(format!(
                "The path `{shown}` leaves the workspace or crosses a symlink."
            )),
            WalkError::NotFound(_) => {
                WorkspaceError::NotFound(format!("The path `{shown}` does not exist."))
            }
            WalkError::Io { path, source } => {
                WorkspaceError::Sandbox(format!("`{shown}` ({path}): {source}"))
            }
        }
    }
}

/// Where the Runtime keeps workspaces and how it sandboxes them.
#[derive(Debug, Clone)]
pub struct WorkspaceOptions {
    /// Managed workspaces live in `<root>/<env_id>/workspace`.
    pub root: PathBuf,
    /// Each network-disabled Session's relay socket lives in `<relays>/<session_id>/`.
    pub relays: PathBuf,
    /// The program (and leading arguments) that runs [`relay::run_inside`]: the
    /// `switchboard sandbox-relay` subcommand of the running binary.
    pub relay_command: Vec<OsString>,
}

impl WorkspaceOptions {
    /// `<data_dir>/environments`, `<data_dir>/relays`, and this binary's `sandbox-relay`.
    pub fn for_data_dir(data_dir: &Path) -> WorkspaceOptions {
        let relay_command = std::env::current_exe()
            .map(|exe| vec![exe.into_os_string(), "sandbox-relay".into()])
            .unwrap_or_default();
        WorkspaceOptions {
            root: data_dir.join("environments"),
            relays: data_dir.join("relays"),
            relay_command,
        }
    }
}

/// What preparing a Session's workspace produced.
pub struct Placed {
    pub placement: ProcessPlacement,
    /// The provider URL the harness must use, when the relay changed it.
    pub base_url: Option<String>,
    /// Held while the Session is prepared (network disabled): its way to the provider.
    pub relay: Option<Forwarder>,
}

/// A network-disabled sandbox's way out: the provider's forwarder, the relay's command line,
/// the provider URL inside, and the loopback bridge.
struct Relayed {
    forwarder: Forwarder,
    tail: Vec<OsString>,
    base_url: String,
    bridge: LoopbackBridge,
}

/// The workspaces of one Runtime.
pub struct Workspaces {
    options: WorkspaceOptions,
    bwrap: Option<Bwrap>,
    /// Self-hosted directories by Environment, learnt from prepared Sessions: the `workspace_*`
    /// frames name only the Environment.
    self_hosted: Mutex<HashMap<String, PathBuf>>,
    /// One preparation of an Environment's files and setup at a time (two Sessions may share an
    /// Environment); other Environments do not wait.
    setup: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl Workspaces {
    pub fn new(options: WorkspaceOptions, bwrap: Option<Bwrap>) -> Workspaces {
        Workspaces {
            options,
            bwrap,
            self_hosted: Mutex::new(HashMap::new()),
            setup: Mutex::new(HashMap::new()),
        }
    }

    /// `<root>/<env_id>`: everything the Runtime keeps for a managed Environment.
    fn environment_dir(&self, environment_id: &str) -> Result<PathBuf, WorkspaceError> {
        if !crate::frame_loop::is_safe_dir_name(environment_id) {
            return Err(WorkspaceError::InvalidPath(format!(
                "The environment id `{environment_id}` may hold only letters, digits, `_` and `-`."
            )));
        }
        Ok(self.options.root.join(environment_id))
    }

    /// The managed workspace of `environment_id`, created if missing.
    fn ensure_managed(&self, environment_id: &str) -> Result<PathBuf, WorkspaceError> {
        let dir = self.environment_dir(environment_id)?.join("workspace");
        std::fs::create_dir_all(&dir).map_err(|e| {
            WorkspaceError::Sandbox(format!(
                "cannot create the workspace {}: {e}",
                dir.display()
            ))
        })?;
        Ok(dir)
    }

    /// The host root and the mount the environment's paths are under.
    fn root_of(
        &self,
        environment_id: &str,
        placement: WorkspacePlacement,
        create: bool,
    ) -> Result<Option<(PathBuf, PathBuf)>, WorkspaceError> {
        match placement {
            WorkspacePlacement::Managed => {
                let dir = if create {
                    self.ensure_managed(environment_id)?
                } else {
                    self.environment_dir(environment_id)?.join("workspace")
                };
                if !create && !dir.is_dir() {
                    return Ok(None);
                }
                Ok(Some((dir, PathBuf::from(MANAGED_WORKSPACE_DIRECTORY))))
            }
            WorkspacePlacement::SelfHosted => {
                let known = self
                    .self_hosted
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(environment_id)
                    .cloned();
                let dir = known.ok_or_else(|| {
                    WorkspaceError::NotFound(format!(
                        "This Runtime has prepared no Session of Environment {environment_id}, so its workspace directory is not known here."
                    ))
                })?;
                Ok(Some((dir.clone(), dir)))
            }
        }
    }

    /// Writes one file (`workspace_write`), creating the workspace and parent directories.
    pub fn write(
        &self,
        environment_id: &str,
        placement: WorkspacePlacement,
        file: &WorkspaceFile,
    ) -> Result<WorkspaceEntry, WorkspaceError> {
        let data = base64::engine::general_purpose::STANDARD
            .decode(&file.data)
            .map_err(|e| {
                WorkspaceError::InvalidPath(format!(
                    "The data of `{}` is not base64: {e}",
                    file.path
                ))
            })?;
        let Some((root, mount)) = self.root_of(environment_id, placement, true)? else {
            return Err(WorkspaceError::NotFound(format!(
                "The workspace of {environment_id} does not exist."
            )));
        };
        let path = parse(&file.path, &mount)?;
        let Some((parent, name)) = path.split_last() else {
            return Err(WorkspaceError::InvalidPath(format!(
                "The path `{}` names the workspace itself, not a file.",
                file.path
            )));
        };
        let shown = &file.path;
        let root_fd = walk::open_root(&root).map_err(|e| WorkspaceError::from_walk(shown, e))?;
        let dir = walk::open_dir(&root_fd, parent, true)
            .map_err(|e| WorkspaceError::from_walk(shown, e))?;
        let size =
            walk::write_file(&dir, name, &data).map_err(|e| WorkspaceError::from_walk(shown, e))?;
        Ok(WorkspaceEntry {
            path: WorkspacePath::display_under(&mount, path.components()),
            size_bytes: size,
        })
    }

    /// Lists the regular files under `path` (the whole workspace when `None`), sorted.
    pub fn list(
        &self,
        environment_id: &str,
        placement: WorkspacePlacement,
        path: Option<&str>,
    ) -> Result<Vec<WorkspaceEntry>, WorkspaceError> {
        let Some((root, mount)) = self.root_of(environment_id, placement, false)? else {
            // A managed workspace nothing was written to yet holds no files.
            if let Some(path) = path {
                parse(path, Path::new(MANAGED_WORKSPACE_DIRECTORY))?;
            }
            return Ok(Vec::new());
        };
        let shown = path.unwrap_or(MANAGED_WORKSPACE_DIRECTORY);
        let path = match path {
            Some(path) => parse(path, &mount)?,
            None => WorkspacePath::parse(&mount.to_string_lossy(), &mount)
                .map_err(|e| WorkspaceError::InvalidPath(e.to_string()))?,
        };
        let root_fd = walk::open_root(&root).map_err(|e| WorkspaceError::from_walk(shown, e))?;
        let components = path.components();
        let dir = match walk::open_dir(&root_fd, components, false) {
            Ok(dir) => dir,
            // The path names a regular file: the listing is that file.
            Err(WalkError::NotADirectory(_)) if !components.is_empty() => {
                return self.list_one(&root_fd, &mount, components, shown);
            }
            Err(e) => return Err(WorkspaceError::from_walk(shown, e)),
        };
        let files = walk::list_files(dir).map_err(|e| WorkspaceError::from_walk(shown, e))?;
        Ok(files
            .into_iter()
            .map(|(below, size)| {
                let mut all = components.to_vec();
                all.extend(below);
                WorkspaceEntry {
                    path: WorkspacePath::display_under(&mount, &all),
                    size_bytes: size,
                }
            })
            .collect())
    }

    fn list_one(
        &self,
        root_fd: &std::os::fd::OwnedFd,
        mount: &Path,
        components: &[String],
        shown: &str,
    ) -> Result<Vec<WorkspaceEntry>, WorkspaceError> {
        let (last, parent) = components
            .split_last()
            .ok_or_else(|| WorkspaceError::InvalidPath(shown.to_owned()))?;
        let dir = walk::open_dir(root_fd, parent, false)
            .map_err(|e| WorkspaceError::from_walk(shown, e))?;
        let name = std::ffi::CString::new(last.as_str())
            .map_err(|_| WorkspaceError::InvalidPath(shown.to_owned()))?;
        match walk::kind(&dir, &name) {
            Ok(walk::Kind::File { size }) => Ok(vec![WorkspaceEntry {
                path: WorkspacePath::display_under(mount, components),
                size_bytes: size,
            }]),
            _ => Err(WorkspaceError::from_walk(
                shown,
                WalkError::NotADirectory(shown.to_owned()),
            )),
        }
    }

    /// Removes everything kept for a managed Environment (`workspace_remove`). A self-hosted
    /// workspace is the user's directory and is never touched.
    pub fn remove(&self, environment_id: &str) -> Result<(), WorkspaceError> {
        self.self_hosted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(environment_id);
        self.setup
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(environment_id);
        let dir = self.environment_dir(environment_id)?;
        // `remove_dir_all` does not follow symlinks, so a planted one removes only itself.
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(WorkspaceError::Sandbox(format!(
                "cannot remove the workspace of {environment_id}: {e}"
            ))),
        }
    }

    /// Prepares `workspace` for a Session whose native state is in `state_dir`, with the
    /// harness installed in `install_dirs` (what a managed sandbox shows of the host, read-only):
    /// the placement the adapter starts processes through.
    pub async fn place(
        &self,
        session_id: &str,
        workspace: &Workspace,
        base_url: &str,
        state_dir: &Path,
        install_dirs: &[PathBuf],
    ) -> Result<Placed, WorkspaceError> {
        match workspace.placement {
            WorkspacePlacement::SelfHosted => {
                let dir = PathBuf::from(&workspace.directory);
                if !dir.is_absolute() || !dir.is_dir() {
                    return Err(WorkspaceError::Sandbox(format!(
                        "The workspace directory {} does not exist on this machine.",
                        workspace.directory
                    )));
                }
                self.self_hosted
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(workspace.environment_id.clone(), dir.clone());
                Ok(Placed {
                    placement: ProcessPlacement {
                        work_dir: dir,
                        sandbox: None,
                        mcp_env: vec![],
                        loopback: None,
                    },
                    base_url: None,
                    relay: None,
                })
            }
            WorkspacePlacement::Managed => {
                self.place_managed(session_id, workspace, base_url, state_dir, install_dirs)
                    .await
            }
        }
    }

    async fn place_managed(
        &self,
        session_id: &str,
        workspace: &Workspace,
        base_url: &str,
        state_dir: &Path,
        install_dirs: &[PathBuf],
    ) -> Result<Placed, WorkspaceError> {
        let Some(bwrap) = &self.bwrap else {
            return Err(WorkspaceError::Sandbox(
                "This Runtime cannot create managed workspaces: bubblewrap (bwrap) is not available."
                    .to_owned(),
            ));
        };
        let root = self.ensure_managed(&workspace.environment_id)?;
        let env: Vec<(String, String)> = workspace
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.prepare_once(bwrap, &root, workspace, &env).await?;

        // The harness's home must exist before it can be mounted.
        std::fs::create_dir_all(state_dir).map_err(|e| {
            WorkspaceError::Sandbox(format!("cannot create {}: {e}", state_dir.display()))
        })?;
        let mut layout = Layout::new(root, workspace.network);
        layout.read_write.push(state_dir.to_owned());
        layout.read_only.extend(install_dirs.iter().cloned());
        let mut wrapper_tail = Vec::new();
        let (mut relay, mut new_base_url, mut loopback) = (None, None, None);
        if workspace.network == NetworkAccess::Disabled {
            let relayed = self.relay(session_id, base_url, &mut layout)?;
            relay = Some(relayed.forwarder);
            wrapper_tail = relayed.tail;
            new_base_url = (relayed.base_url != base_url).then_some(relayed.base_url);
            loopback = Some(relayed.bridge);
        }
        let mut wrapper = bwrap.wrapper(&layout);
        wrapper.extend(wrapper_tail);
        Ok(Placed {
            placement: ProcessPlacement {
                work_dir: PathBuf::from(MANAGED_WORKSPACE_DIRECTORY),
                sandbox: Some(Sandbox { wrapper, env }),
                mcp_env: vec![],
                loopback,
            },
            base_url: new_base_url,
            relay,
        })
    }

    /// Starts the Session's provider relay: its forwarder, the relay program's command line
    /// (run inside the sandbox before the harness), the harness's provider URL, and the
    /// loopback bridge the adapter may serve its harness on.
    fn relay(
        &self,
        session_id: &str,
        base_url: &str,
        layout: &mut Layout,
    ) -> Result<Relayed, WorkspaceError> {
        let route = relay::route(base_url).map_err(|e| WorkspaceError::Sandbox(e.to_string()))?;
        let Some((program, leading)) = self.options.relay_command.split_first() else {
            return Err(WorkspaceError::Sandbox(
                "This Runtime has no relay program for a sandbox without network.".to_owned(),
            ));
        };
        let dir = self.options.relays.join(session_id);
        std::fs::create_dir_all(&dir).map_err(|e| {
            WorkspaceError::Sandbox(format!("cannot create {}: {e}", dir.display()))
        })?;
        let forwarder = Forwarder::start(&dir.join(relay::SOCKET_NAME), route.upstream.clone())
            .map_err(|e| WorkspaceError::Sandbox(e.to_string()))?;
        if let Some(name) = &route.hosts_name {
            let hosts = dir.join("hosts");
            std::fs::write(&hosts, relay::hosts_file(name)).map_err(|e| {
                WorkspaceError::Sandbox(format!("cannot write {}: {e}", hosts.display()))
            })?;
            layout.hosts_file = Some(hosts);
        }
        layout.read_only.push(PathBuf::from(program));
        layout
            .mounts
            .push((dir.clone(), relay::INSIDE_DIR.to_owned()));
        let mut tail: Vec<OsString> = vec![program.clone()];
        tail.extend(leading.iter().cloned());
        let bridge = LoopbackBridge {
            inside: relay::bridge_listen(route.listen),
            socket: dir.join(relay::BRIDGE_SOCKET_NAME),
        };
        tail.extend([
            "--listen".into(),
            route.listen.to_string().into(),
            "--socket".into(),
            format!("{}/{}", relay::INSIDE_DIR, relay::SOCKET_NAME).into(),
            "--listen".into(),
            bridge.inside.to_string().into(),
            "--socket".into(),
            format!("{}/{}", relay::INSIDE_DIR, relay::BRIDGE_SOCKET_NAME).into(),
            "--".into(),
        ]);
        Ok(Relayed {
            forwarder,
            tail,
            base_url: route.base_url,
            bridge,
        })
    }

    /// Writes the Environment's `files` and runs its `setup_commands`, once: the `prepared`
    /// marker is written only after all of them succeeded.
    async fn prepare_once(
        &self,
        bwrap: &Bwrap,
        root: &Path,
        workspace: &Workspace,
        env: &[(String, String)],
    ) -> Result<(), WorkspaceError> {
        let lock = self
            .setup
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(workspace.environment_id.clone())
            .or_default()
            .clone();
        let _one_at_a_time = lock.lock().await;
        let marker = self
            .environment_dir(&workspace.environment_id)?
            .join("prepared");
        if marker.exists() {
            return Ok(());
        }
        for file in &workspace.files {
            self.write(&workspace.environment_id, WorkspacePlacement::Managed, file)
                .map_err(|e| WorkspaceError::Sandbox(format!("cannot write {}: {e}", file.path)))?;
        }
        for command in &workspace.setup_commands {
            let cwd = command
                .cwd
                .as_deref()
                .unwrap_or(MANAGED_WORKSPACE_DIRECTORY);
            // The cwd must be a real directory of the workspace, reached without a symlink.
            let path = parse(cwd, Path::new(MANAGED_WORKSPACE_DIRECTORY))
                .map_err(|e| WorkspaceError::Sandbox(e.to_string()))?;
            let root_fd = walk::open_root(root).map_err(|e| {
                WorkspaceError::Sandbox(WorkspaceError::from_walk(cwd, e).to_string())
            })?;
            walk::open_dir(&root_fd, path.components(), false).map_err(|e| {
                WorkspaceError::Sandbox(format!(
                    "the setup command `{}` cannot run in {cwd}: {}",
                    command.command,
                    WorkspaceError::from_walk(cwd, e)
                ))
            })?;
            let mut layout = Layout::new(root.to_owned(), workspace.network);
            layout.chdir = WorkspacePath::display_under(
                Path::new(MANAGED_WORKSPACE_DIRECTORY),
                path.components(),
            );
            setup::run(bwrap, &layout, env, command)
                .await
                .map_err(WorkspaceError::Sandbox)?;
        }
        std::fs::write(&marker, b"").map_err(|e| {
            WorkspaceError::Sandbox(format!("cannot write {}: {e}", marker.display()))
        })?;
        Ok(())
    }

    /// Forgets what a released Session held (its relay directory).
    pub fn release(&self, session_id: &str) {
        if crate::frame_loop::is_safe_dir_name(session_id) {
            let _ = std::fs::remove_dir_all(self.options.relays.join(session_id));
        }
    }

    /// Whether managed workspaces can be created here.
    pub fn can_sandbox(&self) -> bool {
        self.bwrap.is_some()
    }
}

fn parse(path: &str, mount: &Path) -> Result<WorkspacePath, WorkspaceError> {
    WorkspacePath::parse(path, mount).map_err(|e| WorkspaceError::InvalidPath(e.to_string()))
}
