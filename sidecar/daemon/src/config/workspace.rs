//! `[workspace]`: where the task's files are, so grants root their paths there and resolve them
//! (symbolic links included) at the moment of each check.

use super::ConfigError;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `[workspace]` as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWorkspace {
    /// The workspace root; empty: the directory Blindfold runs in (`init` writes the project's).
    #[serde(default)]
    pub root: String,
    /// `true` when the harness and its tools run on this machine, so Blindfold sees their files;
    /// `false` compares paths as written and every allow says so.
    #[serde(default = "default_local")]
    pub local: bool,
}

fn default_local() -> bool {
    true
}

impl Default for RawWorkspace {
    fn default() -> Self {
        Self { root: String::new(), local: default_local() }
    }
}

/// `[workspace]`, validated: an absolute root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceConfig {
    /// The root (absolute; as configured, symbolic links not yet resolved).
    pub root: PathBuf,
    /// True when given explicitly (a client's declared MCP roots do not replace it then).
    pub explicit: bool,
    /// Whether Blindfold can see the files.
    pub local: bool,
}

impl RawWorkspace {
    /// Checks the root: absolute (a relative one is taken from the current directory), no NUL.
    pub fn validate(&self) -> Result<WorkspaceConfig, ConfigError> {
        let cwd = std::env::current_dir().map_err(|e| {
            ConfigError::field("workspace.root", format!("cannot read the current directory: {e}"))
        })?;
        let explicit = !self.root.trim().is_empty();
        let root = if explicit { cwd.join(self.root.trim()) } else { cwd };
        if root.to_str().is_none_or(|s| s.contains('\0')) {
            return Err(ConfigError::field("workspace.root", "must be a UTF-8 path"));
        }
        Ok(WorkspaceConfig { root, explicit, local: self.local })
    }
}
