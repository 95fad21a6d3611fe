//! Environment paths: absolute paths inside the environment, turned into components under the
//! workspace root, or refused.
//!
//! A managed workspace is mounted at `/workspace`, a self-hosted one is its `directory`; a path
//! names something in the workspace only when it is absolute and under that mount. `..` is
//! refused outright rather than resolved: resolving it lexically would be right only if no
//! component were a symlink, and that is exactly what the model controls. Symlinks themselves
//! are handled by the walk ([`super::walk`]), which never follows one.

use std::path::{Component, Path};

/// A path inside the workspace, as the components below its root (empty: the root itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspacePath {
    components: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("The path `{path}` {why}.")]
pub struct PathError {
    pub path: String,
    pub why: &'static str,
}

impl WorkspacePath {
    /// Parses `path`, which must be absolute and at or under `mount` (an absolute path without
    /// `..`, e.g. `/workspace`).
    pub fn parse(path: &str, mount: &Path) -> Result<WorkspacePath, PathError> {
        let refuse = |why| PathError {
            path: path.to_owned(),
            why,
        };
        if path.contains('\0') {
            return Err(refuse("contains a NUL byte"));
        }
        if !path.starts_with('/') {
            return Err(refuse("is not absolute"));
        }
        let mut components = Vec::new();
        for component in path.split('/') {
            match component {
                "" | "." => {}
                ".." => return Err(refuse("contains `..`")),
                name => components.push(name.to_owned()),
            }
        }
        let mut rest = components.into_iter();
        for expected in mount.components() {
            let Component::Normal(expected) = expected else {
                continue;
            };
            if rest.next().as_deref().map(std::ffi::OsStr::new) != Some(expected) {
                return Err(refuse("is outside the workspace"));
            }
        }
        Ok(WorkspacePath {
            components: rest.collect(),
        })
    }

    /// The components below the workspace root.
    pub fn components(&self) -> &[String] {
        &self.components
    }

    /// The parent components and the last name; `None` for the root itself.
    pub fn split_last(&self) -> Option<(&[String], &str)> {
        self.components
            .split_last()
            .map(|(last, parent)| (parent, last.as_str()))
    }

    /// The path as the environment names it, below `mount`.
    pub fn display_under(mount: &Path, components: &[String]) -> String {
        let mut out = mount.to_string_lossy().trim_end_matches('/').to_owned();
        for c in components {
            out.push('/');
            out.push_str(c);
        }
        if out.is_empty() {
            out.push('/');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(path: &str) -> Result<Vec<String>, &'static str> {
        WorkspacePath::parse(path, Path::new("/workspace"))
            .map(|p| p.components)
            .map_err(|e| e.why)
    }

    #[test]
    fn paths_under_the_mount_become_components() {
        assert_eq!(parse("/workspace"), Ok(vec![]));
        assert_eq!(parse("/workspace/"), Ok(vec![]));
        assert_eq!(
            parse("/workspace/a//./b.txt"),
            Ok(vec!["a".into(), "b.txt".into()])
        );
    }

    #[test]
    fn other_roots_relative_paths_and_dot_dot_are_refused() {
        assert_eq!(parse("/etc/passwd"), Err("is outside the workspace"));
        assert_eq!(parse("/workspaces/x"), Err("is outside the workspace"));
        assert_eq!(parse("/"), Err("is outside the workspace"));
        assert_eq!(parse("workspace/a"), Err("is not absolute"));
        assert_eq!(parse("/workspace/../etc"), Err("contains `..`"));
        assert_eq!(parse("/workspace/a/../../x"), Err("contains `..`"));
        assert_eq!(parse("/workspace/a\0b"), Err("contains a NUL byte"));
    }

    #[test]
    fn a_self_hosted_mount_is_its_directory() {
        let mount = Path::new("/home/me/project");
        let p = WorkspacePath::parse("/home/me/project/src/x.rs", mount).unwrap();
        assert_eq!(p.components, vec!["src".to_owned(), "x.rs".to_owned()]);
        assert!(WorkspacePath::parse("/home/me/other", mount).is_err());
        assert_eq!(
            WorkspacePath::display_under(mount, &p.components),
            "/home/me/project/src/x.rs"
        );
    }
}
