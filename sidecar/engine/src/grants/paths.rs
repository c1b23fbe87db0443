//! Paths as grants compare them: rooted in the task's workspace and, where Blindfold can see the
//! file system, resolved with every symbolic link at the moment of the check.
//!
//! The engine reads no file system itself: a [`Workspaces`] implementation (the daemon's, over the
//! real file system) answers where a task's workspace is and what a path resolves to now. A link
//! created after the check, before the tool opens the path, is outside what a proxy can see.

use crate::text::target::normalise_path;

/// Where a task's workspace is, as Blindfold sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Root {
    /// The workspace root as configured or declared (absolute), if known.
    pub dir: Option<String>,
    /// The same root with its symbolic links resolved, when Blindfold can see the file system.
    pub canonical: Option<String>,
}

impl Root {
    /// A root Blindfold cannot see: paths are compared as written, rooted in `dir` when given.
    pub fn invisible(dir: Option<String>) -> Self {
        Self { dir: dir.map(|d| normalise_path(&d)), canonical: None }
    }

    /// True when paths under it are resolved against the file system.
    pub fn visible(&self) -> bool {
        self.canonical.is_some()
    }
}

/// Answers where each task's workspace is and what a path resolves to at this moment.
pub trait Workspaces: Send + Sync {
    /// The workspace root of `task`.
    fn root(&self, task: &str) -> Root;

    /// `path` (absolute, lexically normalised) with every symbolic link resolved, a missing tail
    /// kept as written; only asked for visible roots. An error (a loop, no permission) refuses.
    fn resolve(&self, path: &str) -> Result<String, String>;
}

/// No workspace visible and none known: paths are compared as written (the replay, a remote
/// harness).
#[derive(Debug, Clone, Default)]
pub struct NoWorkspace(pub Option<String>);

impl Workspaces for NoWorkspace {
    fn root(&self, _task: &str) -> Root {
        Root::invisible(self.0.clone())
    }

    fn resolve(&self, path: &str) -> Result<String, String> {
        Ok(path.to_owned())
    }
}

/// One path an action names, as written and as it lands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathFact {
    /// The argument it came from.
    pub arg: String,
    /// As written in the call.
    pub written: String,
    /// Absolute and lexically normalised, rooted in the workspace (rebased onto the canonical
    /// root); `None` for a relative path when no root is known.
    pub lexical: Option<String>,
    /// Where it lands now, symbolic links resolved; `None` when the file system is not visible,
    /// `Err` when resolving failed.
    pub real: Option<Result<String, String>>,
}

impl PathFact {
    /// The path relative to the workspace root as written (`None` outside the workspace).
    pub fn lexical_in(&self, root: &Root) -> Option<String> {
        match &self.lexical {
            Some(abs) => relative_to(root, abs),
            None => {
                let p = normalise_path(&self.written);
                (!p.starts_with(['/', '~']) && p != ".." && !p.starts_with("../")).then_some(p)
            }
        }
    }

    /// The resolved path relative to the canonical root (`None` outside it, or not visible).
    pub fn real_in(&self, root: &Root) -> Option<String> {
        match &self.real {
            Some(Ok(real)) => relative_to(root, real),
            _ => None,
        }
    }

    /// True when the file system is visible and the path lands somewhere other than where it
    /// reads (a symbolic link on the way), or could not be resolved.
    pub fn redirected(&self) -> bool {
        match (&self.real, &self.lexical) {
            (Some(Ok(real)), Some(lexical)) => real != lexical,
            (Some(Err(_)), _) => true,
            _ => false,
        }
    }

    /// Where it lands, for a refusal: the resolved path, or why it could not be resolved.
    pub fn landing(&self) -> String {
        match &self.real {
            Some(Ok(real)) => real.clone(),
            Some(Err(e)) => format!("(unresolvable: {e})"),
            None => self.lexical.clone().unwrap_or_else(|| self.written.clone()),
        }
    }
}

/// `abs` relative to the root (its canonical form when visible, else the configured one).
fn relative_to(root: &Root, abs: &str) -> Option<String> {
    let base = root.canonical.as_deref().or(root.dir.as_deref())?;
    if abs == base {
        return Some(".".to_owned());
    }
    let base = base.trim_end_matches('/');
    abs.strip_prefix(base).and_then(|rest| rest.strip_prefix('/')).map(str::to_owned)
}

/// The absolute, lexically normalised form of `written` in `root`, rebased onto the canonical
/// root when it lies under the configured one.
pub fn anchor(root: &Root, written: &str) -> Option<String> {
    if written.starts_with('~') {
        // A home path: outside the workspace whatever the root (never joined to it).
        return Some(normalise_path(written));
    }
    let abs = if written.starts_with('/') {
        normalise_path(written)
    } else {
        normalise_path(&format!("{}/{written}", root.dir.as_deref()?))
    };
    if let (Some(dir), Some(canonical)) = (&root.dir, &root.canonical)
        && dir != canonical
    {
        if abs == *dir {
            return Some(canonical.clone());
        }
        if let Some(rest) = abs.strip_prefix(dir.trim_end_matches('/')).and_then(|r| r.strip_prefix('/')) {
            return Some(format!("{}/{rest}", canonical.trim_end_matches('/')));
        }
    }
    Some(abs)
}

/// The fact for one path argument: anchored, and resolved when the root is visible.
pub fn fact(workspaces: &dyn Workspaces, root: &Root, arg: &str, written: &str) -> PathFact {
    let lexical = anchor(root, written);
    let real = match (&lexical, root.visible()) {
        (Some(abs), true) => Some(workspaces.resolve(abs)),
        _ => None,
    };
    PathFact { arg: arg.to_owned(), written: written.to_owned(), lexical, real }
}

/// Argument names that hold a path whatever their value looks like (`Makefile` is a path).
pub const PATH_ARGS: &[&str] = &[
    "path",
    "paths",
    "file",
    "file_path",
    "filepath",
    "filename",
    "source",
    "destination",
    "src",
    "dst",
    "dest",
    "dir",
    "directory",
    "workdir",
    "cwd",
    "old_path",
    "new_path",
];

/// True when argument `name` with string `value` names a path: a path-holding name, or a value
/// written in path syntax (absolute, `./`, `../`, `~/`).
pub fn is_path_arg(name: &str, value: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    PATH_ARGS.contains(&lower.as_str())
        || value.starts_with('/')
        || value.starts_with("./")
        || value.starts_with("../")
        || value.starts_with("~/")
}
