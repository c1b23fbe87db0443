//! `[opencode]`: the OpenCode mode's configuration (the pinned task id). The sub-agents' true
//! identities are `[identity] agents`, shared with every other path.

use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// `[opencode]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOpenCode {
    /// Trajectory id pinned by the operator for this harness's sessions (grants name it); empty:
    /// Blindfold assigns a fresh id to every root session.
    #[serde(default)]
    pub task: String,
}

/// `[opencode]`, validated.
#[derive(Debug, Clone, Default)]
pub struct OpenCodeConfig {
    /// Pinned trajectory id, if any.
    pub task: Option<String>,
}

impl RawOpenCode {
    /// Checks the section; errors name the field.
    pub fn validate(&self) -> Result<OpenCodeConfig, ConfigError> {
        let task = (!self.task.is_empty()).then(|| self.task.clone());
        if let Some(t) = &task
            && (t.len() > 128 || !t.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c)))
        {
            return Err(ConfigError::field("opencode.task", "1-128 characters of [A-Za-z0-9-_.:]"));
        }
        Ok(OpenCodeConfig { task })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_task_id_is_checked() {
        let raw = RawOpenCode { task: "bad id!".into() };
        assert!(raw.validate().expect_err("bad task").to_string().contains("opencode.task"));
        let raw = RawOpenCode { task: "task-7".into() };
        assert_eq!(raw.validate().expect("valid").task.as_deref(), Some("task-7"));
        assert_eq!(RawOpenCode::default().validate().expect("empty").task, None);
    }
}
