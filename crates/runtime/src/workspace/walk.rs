//! File operations inside a workspace root that never follow a symlink.
//!
//! Everything in a workspace may have been written by the model, so every step is an `openat`
//! relative to the directory already opened, with `O_NOFOLLOW`: a symlink anywhere on the way
//! (to `/etc`, to the data dir) stops the operation instead of being walked through, and no
//! check-then-use window exists for the model to swap a directory for a symlink. A write lands
//! in a fresh file that is then renamed over the name, so a planted symlink or hard link at the
//! target is replaced, never written through.

use std::ffi::CStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;

#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// A symlink or a non-directory stands where a directory must be.
    #[error("`{0}` is a symlink or not a directory")]
    NotADirectory(String),
    #[error("`{0}` does not exist")]
    NotFound(String),
    #[error("`{path}`: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

fn io(path: &str, errno: Errno) -> WalkError {
    WalkError::Io {
        path: path.to_owned(),
        source: errno.into(),
    }
}

const DIR_FLAGS: OFlags = OFlags::DIRECTORY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::RDONLY)
    .union(OFlags::CLOEXEC);

/// Opens the workspace root itself (trusted: the Runtime made it, or the user configured it).
pub fn open_root(root: &Path) -> Result<OwnedFd, WalkError> {
    let shown = root.display().to_string();
    rustix::fs::open(
        root,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| match e {
        Errno::NOENT => WalkError::NotFound(shown),
        e => io(&root.display().to_string(), e),
    })
}

/// Opens the directory `components` below `root`, one component at a time, creating missing
/// ones when `create`.
pub fn open_dir(root: &OwnedFd, components: &[String], create: bool) -> Result<OwnedFd, WalkError> {
    let mut dir = rustix::io::dup(root).map_err(|e| io(".", e))?;
    for (i, name) in components.iter().enumerate() {
        let shown = components[..=i].join("/");
        let next = match rustix::fs::openat(&dir, name.as_str(), DIR_FLAGS, Mode::empty()) {
            Err(Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&dir, name.as_str(), Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(io(&shown, e)),
                }
                rustix::fs::openat(&dir, name.as_str(), DIR_FLAGS, Mode::empty())
            }
            other => other,
        };
        dir = next.map_err(|e| match e {
            Errno::NOENT => WalkError::NotFound(shown.clone()),
            Errno::LOOP | Errno::NOTDIR => WalkError::NotADirectory(shown.clone()),
            e => io(&shown, e),
        })?;
    }
    Ok(dir)
}

/// Writes `data` as `name` in `dir`, replacing whatever entry had that name (a file, a
/// symlink), and returns the size written.
pub fn write_file(dir: &OwnedFd, name: &str, data: &[u8]) -> Result<u64, WalkError> {
    let temp = format!(".{name}.switchboard-{}", std::process::id());
    let fd = rustix::fs::openat(
        dir,
        temp.as_str(),
        OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )
    .or_else(|e| {
        // A leftover of an interrupted write: it is ours to replace.
        if e != Errno::EXIST {
            return Err(e);
        }
        rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty())?;
        rustix::fs::openat(
            dir,
            temp.as_str(),
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
    })
    .map_err(|e| io(name, e))?;
    let mut file = File::from(fd);
    let written = file.write_all(data).and_then(|()| file.sync_data());
    if let Err(source) = written {
        let _ = rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty());
        return Err(WalkError::Io {
            path: name.to_owned(),
            source,
        });
    }
    if let Err(e) = rustix::fs::renameat(dir, temp.as_str(), dir, name) {
        let _ = rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty());
        return Err(match e {
            Errno::ISDIR | Errno::NOTEMPTY | Errno::EXIST => {
                WalkError::NotADirectory(name.to_owned())
            }
            e => io(name, e),
        });
    }
    Ok(data.len() as u64)
}

/// What a name in a directory is, without following it.
pub enum Kind {
    Directory,
    File {
        size: u64,
    },
    /// A symlink, socket, device…: never listed, never entered.
    Other,
}

pub fn kind(dir: &impl AsFd, name: &CStr) -> Result<Kind, Errno> {
    let stat = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    Ok(match FileType::from_raw_mode(stat.st_mode) {
        FileType::Directory => Kind::Directory,
        FileType::RegularFile => Kind::File {
            size: u64::try_from(stat.st_size).unwrap_or(0),
        },
        _ => Kind::Other,
    })
}

/// Every regular file under `dir`, recursively, as (components below `dir`, size). Symlinks
/// are skipped, so nothing outside the tree is listed.
pub fn list_files(dir: OwnedFd) -> Result<Vec<(Vec<String>, u64)>, WalkError> {
    let mut out = Vec::new();
    let mut pending = vec![(Vec::<String>::new(), dir)];
    while let Some((prefix, fd)) = pending.pop() {
        let shown = prefix.join("/");
        let entries = Dir::read_from(&fd).map_err(|e| io(&shown, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(&shown, e))?;
            let name = entry.file_name();
            let bytes = name.to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            let Ok(text) = std::str::from_utf8(bytes) else {
                // Not nameable as an environment path (paths are JSON strings).
                continue;
            };
            let mut path = prefix.clone();
            path.push(text.to_owned());
            match kind(&fd, name) {
                Ok(Kind::File { size }) => out.push((path, size)),
                Ok(Kind::Directory) => {
                    match rustix::fs::openat(&fd, name, DIR_FLAGS, Mode::empty()) {
                        Ok(child) => pending.push((path, child)),
                        // Replaced by a symlink or removed since it was read: not listed.
                        Err(Errno::LOOP | Errno::NOTDIR | Errno::NOENT) => {}
                        Err(e) => return Err(io(&path.join("/"), e)),
                    }
                }
                Ok(Kind::Other) | Err(Errno::NOENT) => {}
                Err(e) => return Err(io(&path.join("/"), e)),
            }
        }
    }
    out.sort();
    Ok(out)
}
