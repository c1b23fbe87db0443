//! What a grant check needs to know about one call, derived once: the resources it names (as
//! scopes match them), the paths among them (anchored and resolved), whether it is critical, and
//! how many bytes it sends.

use super::paths::{PathFact, Root, Workspaces, fact, is_path_arg};
use crate::registry::{DerivedAction, Registry};
use crate::shell::SimpleCommand;
use crate::text::Target;
use crate::text::target::classify;
use serde_json::{Map, Value};

/// One resource a call names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    /// A path (the target of a file tool, a working directory, a move's source).
    Path(PathFact),
    /// A shell command: the one simple command it is, or `None` when it is more than that.
    Command {
        /// As written.
        written: String,
        /// The simple command, when it is exactly one.
        simple: Option<SimpleCommand>,
    },
    /// A URL, normalised.
    Url(String),
    /// A host, lowercased.
    Host(String),
    /// A recipient address, lowercased.
    Recipient(String),
    /// A target no pattern kind names (a remote, an environment): never inside a scope.
    Other(String),
}

impl Resource {
    /// The resource as a user reads it in a refusal.
    pub fn shown(&self) -> String {
        match self {
            Resource::Path(p) => p.written.clone(),
            Resource::Command { written, .. } => written.clone(),
            Resource::Url(s) | Resource::Host(s) | Resource::Recipient(s) | Resource::Other(s) => s.clone(),
        }
    }
}

/// The facts of one call that grant checks read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionFacts {
    /// The task's workspace root as Blindfold sees it.
    pub root: Root,
    /// Every resource the call names.
    pub resources: Vec<Resource>,
    /// Why the call is critical, when it is.
    pub critical: Option<String>,
    /// Length of the artifact about to be sent.
    pub artifact_len: usize,
}

impl ActionFacts {
    /// Derives the facts of a call of `tool` with `args` (its derived `action`) in `task`.
    pub fn derive(
        registry: &Registry,
        workspaces: &dyn Workspaces,
        task: &str,
        tool: &str,
        args: &Map<String, Value>,
        action: &DerivedAction,
    ) -> Self {
        let root = workspaces.root(task);
        let spec = registry.get(tool);
        let target_arg = spec.and_then(|s| s.target_arg.as_deref());
        let artifact_arg = spec.and_then(|s| s.artifact_arg.as_deref());
        let shell = crate::action::is_shell(registry, tool);
        let mut resources = Vec::new();
        for (name, value) in args {
            let is_target = Some(name.as_str()) == target_arg;
            if shell && name == "command" {
                let written = value.as_str().unwrap_or_default().to_owned();
                let simple = crate::shell::single_simple_command(&written);
                resources.push(Resource::Command { written, simple });
            } else if is_target {
                target_resources(workspaces, &root, name, value, &mut resources);
            } else if Some(name.as_str()) != artifact_arg {
                other_resources(workspaces, &root, name, value, &mut resources);
            }
        }
        Self {
            critical: super::critical::critical(registry, tool, action),
            artifact_len: action.artifact.len(),
            root,
            resources,
        }
    }

    /// The facts of a proposal given as task, operation and target plus its bytes (the CLI and
    /// control API checks): the call is rebuilt with the registry's argument names.
    pub fn for_proposal(
        registry: &Registry,
        workspaces: &dyn Workspaces,
        proposal: &blindfold_schemas::Proposal,
        bytes: super::check::ActionBytes<'_>,
    ) -> Self {
        let mut args = bytes.args.clone();
        if let Some(spec) = registry.get(&proposal.operation) {
            if let Some(t) = &spec.target_arg {
                args.insert(t.clone(), Value::String(proposal.target.clone()));
            }
            if let Some(a) = &spec.artifact_arg
                && !args.contains_key(a)
            {
                args.insert(a.clone(), Value::String(String::from_utf8_lossy(bytes.artifact).into_owned()));
            }
        }
        let action = registry.derive(&proposal.operation, &args);
        let mut facts =
            Self::derive(registry, workspaces, &proposal.task_id, &proposal.operation, &args, &action);
        facts.artifact_len = bytes.artifact.len();
        facts
    }

    /// The paths among the resources.
    pub fn paths(&self) -> impl Iterator<Item = &PathFact> {
        self.resources.iter().filter_map(|r| match r {
            Resource::Path(p) => Some(p),
            _ => None,
        })
    }

    /// The first path that lands elsewhere than it reads (through a symbolic link), if any.
    pub fn redirected_path(&self) -> Option<&PathFact> {
        self.paths().find(|p| p.redirected())
    }

    /// True when the call names a path but Blindfold cannot see where paths land.
    pub fn paths_unseen(&self) -> bool {
        !self.root.visible() && self.paths().next().is_some()
    }
}

/// The resources of the registry target: a path (by the argument's name or the value's form),
/// URL, host, recipients (comma-separated or a list), or another value.
fn target_resources(ws: &dyn Workspaces, root: &Root, name: &str, value: &Value, out: &mut Vec<Resource>) {
    match value {
        Value::String(s) => {
            if is_path_arg(name, s) || matches!(classify(s.trim()), Some(Target::Path(_))) {
                out.push(Resource::Path(fact(ws, root, name, s)));
                return;
            }
            for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                out.push(match classify(part) {
                    Some(Target::Url(u)) => url_resource(part, u),
                    Some(Target::Email(e)) => Resource::Recipient(e),
                    Some(Target::Host(h)) => Resource::Host(h),
                    Some(Target::Path(_)) => Resource::Path(fact(ws, root, name, part)),
                    _ => Resource::Other(part.to_owned()),
                });
            }
        }
        Value::Array(items) => {
            for item in items {
                target_resources(ws, root, name, item, out);
            }
        }
        other => out.push(Resource::Other(crate::canonical::jcs_string(other))),
    }
}

/// The resources another argument names by itself: a path-holding argument, a whole value that
/// is a URL or an address (a `bcc`, a callback), lists of them. Prose inside an argument is no
/// resource here (it is the artifact's business).
fn other_resources(ws: &dyn Workspaces, root: &Root, name: &str, value: &Value, out: &mut Vec<Resource>) {
    match value {
        Value::String(s) => {
            if is_path_arg(name, s) {
                out.push(Resource::Path(fact(ws, root, name, s)));
                return;
            }
            match classify(s.trim()) {
                Some(Target::Url(u)) if !s.trim().contains(char::is_whitespace) => {
                    out.push(url_resource(s.trim(), u))
                }
                Some(Target::Email(e)) if !s.trim().contains(char::is_whitespace) => {
                    out.push(Resource::Recipient(e));
                }
                _ => {}
            }
        }
        Value::Array(items) => {
            for item in items {
                other_resources(ws, root, name, item, out);
            }
        }
        _ => {}
    }
}

/// A URL as scopes match it: normalised, and only when every client reads its host the same way
/// (as written: userinfo, backslashes and the like make it a target no pattern covers).
fn url_resource(written: &str, normalised: String) -> Resource {
    if crate::text::target::unambiguous_http_host(written).is_some() {
        Resource::Url(normalised)
    } else {
        Resource::Other(written.to_owned())
    }
}
