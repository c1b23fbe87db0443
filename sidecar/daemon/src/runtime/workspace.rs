//! The workspace as the daemon sees it on this machine: the configured root (or an MCP client's
//! declared root for its trajectory) and paths resolved against the real file system, symbolic
//! links followed, at the moment of each check.

use crate::config::WorkspaceConfig;
use blindfold_engine::grants::{Root, Workspaces};
use dashmap::DashMap;
use std::path::{Component, Path, PathBuf};

/// Most symbolic links followed while resolving one path (as the kernel's `ELOOP` bound).
const MAX_LINKS: usize = 40;

/// The daemon's [`Workspaces`]: one configured root, per-trajectory declared roots.
pub struct LocalWorkspaces {
    config: WorkspaceConfig,
    /// Roots an MCP client declared (`roots/list`), by trajectory; used unless the root is
    /// configured explicitly.
    declared: DashMap<String, String>,
}

impl LocalWorkspaces {
    /// The workspaces `[workspace]` describes.
    pub fn new(config: WorkspaceConfig) -> Self {
        Self { config, declared: DashMap::new() }
    }

    /// Records the root a client declared for `task` (a `file://` URI's path); ignored when the
    /// root is configured explicitly or the path is not absolute.
    pub fn declare(&self, task: &str, root: &str) {
        if !self.config.explicit && root.starts_with('/') {
            self.declared.insert(task.to_owned(), root.to_owned());
        }
    }

    /// Forgets what a trajectory declared (it ended).
    pub fn forget(&self, task: &str) {
        self.declared.remove(task);
    }

    /// The configured root.
    pub fn configured(&self) -> &WorkspaceConfig {
        &self.config
    }
}

impl Workspaces for LocalWorkspaces {
    fn root(&self, task: &str) -> Root {
        let dir = match self.declared.get(task) {
            Some(d) => d.clone(),
            None => self.config.root.to_string_lossy().into_owned(),
        };
        let canonical = if self.config.local {
            std::fs::canonicalize(&dir).ok().and_then(|p| p.to_str().map(str::to_owned))
        } else {
            None
        };
        Root { dir: Some(blindfold_engine::text::target::normalise_path(&dir)), canonical }
    }

    fn resolve(&self, path: &str) -> Result<String, String> {
        resolve(Path::new(path))
            .and_then(|p| p.to_str().map(str::to_owned).ok_or_else(|| "not UTF-8".to_owned()))
    }
}

/// `path` (absolute) with every symbolic link resolved; the part that does not exist yet is kept
/// as written (it cannot be a link). An error (a loop, no permission) is returned, never guessed.
pub fn resolve(path: &Path) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        return Err(format!("`{}` is not absolute", path.display()));
    }
    let mut pending: Vec<PathBuf> = components(path);
    pending.reverse();
    let mut resolved = PathBuf::from("/");
    let mut links = 0;
    while let Some(part) = pending.pop() {
        if part.as_os_str() == ".." {
            resolved.pop();
            continue;
        }
        let next = resolved.join(&part);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(format!("too many symbolic links under `{}`", path.display()));
                }
                let target = std::fs::read_link(&next).map_err(|e| format!("{}: {e}", next.display()))?;
                if target.is_absolute() {
                    resolved = PathBuf::from("/");
                }
                let mut more = components(&target);
                more.reverse();
                pending.extend(more);
            }
            Ok(_) => resolved = next,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                resolved = next;
                while let Some(rest) = pending.pop() {
                    if rest.as_os_str() == ".." {
                        resolved.pop();
                    } else {
                        resolved.push(rest);
                    }
                }
            }
            Err(e) => return Err(format!("{}: {e}", next.display())),
        }
    }
    Ok(resolved)
}

/// The normal and `..` components of `path` (root and `.` dropped).
fn components(path: &Path) -> Vec<PathBuf> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(PathBuf::from(n)),
            Component::ParentDir => Some(PathBuf::from("..")),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_to_files_and_directories_are_followed_and_missing_tails_kept() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::create_dir_all(root.join("ws/src")).expect("mkdir");
        std::fs::create_dir_all(root.join("victim")).expect("mkdir");
        std::fs::write(root.join("victim/secret.conf"), "s").expect("write");
        symlink(root.join("victim/secret.conf"), root.join("ws/report.md")).expect("link");
        symlink("../victim", root.join("ws/src/out")).expect("link");
        symlink(root.join("victim/gone.txt"), root.join("ws/dangling")).expect("link");
        assert_eq!(resolve(&root.join("ws/report.md")).expect("r"), root.join("victim/secret.conf"));
        assert_eq!(resolve(&root.join("ws/src/out/new/x.txt")).expect("r"), root.join("ws/victim/new/x.txt"));
        assert_eq!(resolve(&root.join("ws/dangling")).expect("r"), root.join("victim/gone.txt"));
        assert_eq!(resolve(&root.join("ws/src/a.rs")).expect("r"), root.join("ws/src/a.rs"));
        assert_eq!(resolve(&root.join("ws/src/../report.md")).expect("r"), root.join("victim/secret.conf"));
        symlink(root.join("loop-b"), root.join("loop-a")).expect("link");
        symlink(root.join("loop-a"), root.join("loop-b")).expect("link");
        assert!(resolve(&root.join("loop-a/x")).is_err());
    }
}
