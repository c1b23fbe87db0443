//! OpenCode sessions → Blindfold trajectories. A root session (no parent) opens its own trajectory
//! (`opencode-<session id>`, or the one the operator pinned); child sessions — sub-agents started
//! by `task` — join their root's trajectory and act as the sub-agent they run. The id follows
//! from the session, so a restarted daemon maps a session it meets again to the same trajectory.

use dashmap::DashMap;

/// Where one session belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// The trajectory id (Blindfold's, never a model's).
    pub trajectory: String,
    /// The sub-agent the session runs as (its OpenCode name as seen by the harness), `None` for
    /// the coordinator's own session.
    pub agent: Option<String>,
}

/// The session map of one OpenCode mode.
#[derive(Debug, Default)]
pub struct Sessions {
    map: DashMap<String, SessionInfo>,
    pinned: Option<String>,
}

impl Sessions {
    /// A map whose root sessions all join `pinned` when set, else get fresh ids.
    pub fn new(pinned: Option<String>) -> Self {
        Self { map: DashMap::new(), pinned }
    }

    /// Resolves `session`, registering it on first sight: with `parent`, it joins the parent's
    /// trajectory as `agent`; without, it is a root session. A session keeps its first mapping
    /// (a later, different parent claim cannot move it to another trajectory).
    pub fn resolve(&self, session: &str, parent: Option<&str>, agent: Option<&str>) -> SessionInfo {
        if let Some(known) = self.map.get(session) {
            return known.clone();
        }
        let info = match parent.filter(|p| !p.is_empty() && *p != session) {
            Some(p) => SessionInfo {
                trajectory: self.resolve(p, None, None).trajectory,
                agent: agent.filter(|a| !a.is_empty()).map(str::to_owned),
            },
            None => SessionInfo { trajectory: self.root_id(session), agent: None },
        };
        self.map.entry(session.to_owned()).or_insert(info).clone()
    }

    /// The mapping of a session already seen.
    pub fn get(&self, session: &str) -> Option<SessionInfo> {
        self.map.get(session).map(|s| s.clone())
    }

    /// The trajectory of root session `session`: the pinned one, else `opencode-<session id>`
    /// (characters a task id may not hold replaced, long ids cut and suffixed with a hash).
    fn root_id(&self, session: &str) -> String {
        if let Some(id) = &self.pinned {
            return id.clone();
        }
        let clean: String = session
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "._:-".contains(c) { c } else { '_' })
            .collect();
        if !clean.is_empty() && clean.len() <= 100 && clean == session {
            return format!("opencode-{clean}");
        }
        use sha2::Digest;
        let digest = hex::encode(sha2::Sha256::digest(session.as_bytes()));
        format!("opencode-{}-{}", &clean[..clean.len().min(60)], &digest[..16])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_join_the_root_trajectory_as_their_agent() {
        let s = Sessions::new(None);
        let root = s.resolve("ses_root", None, None);
        assert!(root.trajectory.starts_with("opencode-"));
        assert_eq!(root.agent, None);
        let child = s.resolve("ses_child", Some("ses_root"), Some("agent-b"));
        assert_eq!(child.trajectory, root.trajectory);
        assert_eq!(child.agent.as_deref(), Some("agent-b"));
        let grandchild = s.resolve("ses_gc", Some("ses_child"), Some("agent-a"));
        assert_eq!(grandchild.trajectory, root.trajectory);
    }

    #[test]
    fn roots_get_distinct_ids_unless_pinned() {
        let s = Sessions::new(None);
        assert_ne!(s.resolve("a", None, None).trajectory, s.resolve("b", None, None).trajectory);
        // The same session maps to the same trajectory in a daemon that never saw it.
        assert_eq!(Sessions::new(None).resolve("ses_7", None, None).trajectory, "opencode-ses_7");
        let odd = Sessions::new(None).resolve("ses 7/x", None, None).trajectory;
        assert!(odd.starts_with("opencode-ses_7_x-") && crate::config::valid_task_id(&odd), "{odd}");
        let s = Sessions::new(Some("task-7".into()));
        assert_eq!(s.resolve("a", None, None).trajectory, "task-7");
        assert_eq!(s.resolve("b", None, None).trajectory, "task-7");
    }

    #[test]
    fn a_known_session_cannot_be_moved() {
        let s = Sessions::new(None);
        let first = s.resolve("x", None, None);
        s.resolve("other", None, None);
        assert_eq!(s.resolve("x", Some("other"), Some("agent-a")), first);
    }
}
