//! The bubblewrap sandbox of a managed workspace: the `bwrap …` command line every process of
//! the workspace starts under.
//!
//! The sandbox gets fresh namespaces of every kind (`--unshare-all`; `--share-net` only when the
//! workspace's network is enabled) and a root assembled from: the system directories read-only
//! (`/usr` and its `/bin`, `/lib*`, `/sbin` links; from `/etc` only what programs need to run and
//! resolve names, never `shadow` or the host's keys), the harness install read-only, the
//! Session's state dir (the harness's home) read-write at its own path, the workspace at
//! `/workspace` read-write, and private `/proc`, `/dev`, `/tmp`. Nothing else of the host is
//! there: not the Core or Runtime data dirs, not another workspace or Session.
//! `--die-with-parent` ties the sandbox to the Runtime's child process, and `--new-session`
//! keeps a sandboxed program from pushing input into the Runtime's terminal.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use switchboard_protocol::MANAGED_WORKSPACE_DIRECTORY;
use switchboard_protocol::workspace::NetworkAccess;

/// Overrides where `bwrap` is; set to an empty value, managed workspaces are off.
pub const BWRAP_ENV: &str = "SWITCHBOARD_BWRAP";

/// System directories a program needs; on merged-/usr systems most are symlinks into `/usr`.
const SYSTEM_DIRS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// What of `/etc` is visible: the loader, users, names, certificates, time zone, and the
/// harnesses' own managed settings.
const ETC_FILES: &[&str] = &[
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/localtime",
    "/etc/mime.types",
    "/etc/codex",
    "/etc/claude-code",
];

/// A working `bwrap`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bwrap {
    program: PathBuf,
}

/// What one sandboxed process sees beyond the system directories.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The host directory mounted read-write at `/workspace`.
    pub workspace: PathBuf,
    /// The working directory inside the sandbox.
    pub chdir: String,
    pub network: NetworkAccess,
    /// Host paths visible read-only at the same path (the harness install, the relay program).
    pub read_only: Vec<PathBuf>,
    /// Host paths visible read-write at the same path (the Session's state dir).
    pub read_write: Vec<PathBuf>,
    /// Host paths visible read-write at another path (the relay's socket directory).
    pub mounts: Vec<(PathBuf, String)>,
    /// Replaces `/etc/hosts` (the relay maps the provider's name to loopback).
    pub hosts_file: Option<PathBuf>,
}

impl Layout {
    pub fn new(workspace: PathBuf, network: NetworkAccess) -> Layout {
        Layout {
            workspace,
            chdir: MANAGED_WORKSPACE_DIRECTORY.to_owned(),
            network,
            read_only: Vec::new(),
            read_write: Vec::new(),
            mounts: Vec::new(),
            hosts_file: None,
        }
    }
}

impl Bwrap {
    /// Finds `bwrap` ([`BWRAP_ENV`], else `PATH`) and checks that it can build a sandbox here,
    /// namespaces included; `None` when it cannot, and managed workspaces are not offered.
    pub fn probe() -> Option<Bwrap> {
        match std::env::var_os(BWRAP_ENV) {
            Some(path) if path.is_empty() => None,
            Some(path) => Bwrap::at(Path::new(&path)),
            None => Bwrap::at(&find_in_path("bwrap")?),
        }
    }

    /// The `bwrap` at `program`, if it builds a sandbox here: a no-op runs in the same layout a
    /// workspace gets, without network.
    pub fn at(program: &Path) -> Option<Bwrap> {
        let bwrap = Bwrap {
            program: program.to_owned(),
        };
        let layout = Layout::new(std::env::temp_dir(), NetworkAccess::Disabled);
        let mut args = bwrap.wrapper(&layout);
        args.extend(["/bin/sh".into(), "-c".into(), "exit 0".into()]);
        let (program, args) = args.split_first()?;
        let ok = std::process::Command::new(program)
            .args(args)
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            tracing::warn!(bwrap = %bwrap.program.display(), "bwrap cannot build a sandbox here; managed workspaces are off");
        }
        ok.then_some(bwrap)
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    /// `bwrap <options> --`: the sandboxed program and its arguments follow.
    pub fn wrapper(&self, layout: &Layout) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![
            self.program.clone().into(),
            "--die-with-parent".into(),
            "--new-session".into(),
            "--unshare-all".into(),
        ];
        if layout.network == NetworkAccess::Enabled {
            args.push("--share-net".into());
        }
        let mut push = |items: &[&dyn AsRef<std::ffi::OsStr>]| {
            args.extend(items.iter().map(|i| i.as_ref().to_owned()));
        };
        push(&[&"--ro-bind", &"/usr", &"/usr"]);
        for dir in SYSTEM_DIRS {
            let path = Path::new(dir);
            match std::fs::read_link(path) {
                Ok(target) => push(&[&"--symlink", &target, dir]),
                Err(_) if path.is_dir() => push(&[&"--ro-bind", dir, dir]),
                Err(_) => {}
            }
        }
        for file in ETC_FILES {
            push(&[&"--ro-bind-try", file, file]);
        }
        if let Some(hosts) = &layout.hosts_file {
            push(&[&"--ro-bind", hosts, &"/etc/hosts"]);
        }
        push(&[&"--proc", &"/proc", &"--dev", &"/dev", &"--tmpfs", &"/tmp"]);
        for path in &layout.read_only {
            push(&[&"--ro-bind", path, path]);
        }
        for path in &layout.read_write {
            push(&[&"--bind", path, path]);
        }
        for (host, inside) in &layout.mounts {
            push(&[&"--bind", host, inside]);
        }
        push(&[
            &"--bind",
            &layout.workspace,
            &MANAGED_WORKSPACE_DIRECTORY,
            &"--chdir",
            &layout.chdir,
            &"--",
        ]);
        args
    }
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}
