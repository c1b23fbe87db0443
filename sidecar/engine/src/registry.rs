//! The trusted tool registry (SPEC §7, §11): effect classes and how to derive (operation,
//! target, artifact bytes, other arguments) from a call. Unknown tools are `mutate`.

use crate::canonical::{artifact_bytes, target_string};
use blindfold_schemas::{Effect, ToolSpec};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// What a tool call amounts to, as grants and fingerprints see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedAction {
    /// Effect class after every rule (host allowlist, shell classifier).
    pub effect: Effect,
    /// The operation (tool name).
    pub operation: String,
    /// The target string (a string argument, the JCS of another value, or the tool name).
    pub target: String,
    /// The exact artifact bytes that would be forwarded.
    pub artifact: Vec<u8>,
    /// Every other argument.
    pub args: Map<String, Value>,
    /// True when the tool is not in the registry (classified `mutate`).
    pub unknown: bool,
}

/// Tool specs by name plus the hosts `web_fetch` may read from.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    tools: HashMap<String, ToolSpec>,
    allowed_hosts: Vec<String>,
}

fn spec(effect: Effect, target: Option<&str>, artifact: Option<&str>) -> ToolSpec {
    ToolSpec {
        effect,
        target_arg: target.map(str::to_owned),
        artifact_arg: artifact.map(str::to_owned),
        args: None,
        target_in_evidence: None,
        critical: None,
    }
}

impl Registry {
    /// An empty registry: every tool is unknown (and so `mutate`).
    pub fn empty() -> Self {
        Self::default()
    }

    /// The default registry of SPEC §11.
    pub fn defaults() -> Self {
        let mut tools = HashMap::new();
        for name in ["read_file", "list_directory", "search"] {
            tools.insert(name.to_owned(), spec(Effect::Read, None, None));
        }
        tools.insert("web_fetch".into(), spec(Effect::External, Some("url"), None));
        for name in ["write_file", "edit_file", "move_file", "delete_file"] {
            tools.insert(name.to_owned(), spec(Effect::Mutate, Some("path"), Some("content")));
        }
        // Deleting is critical: no wildcard of a scoped grant covers it.
        if let Some(delete) = tools.get_mut("delete_file") {
            delete.critical = Some(true);
        }
        tools.insert("bash".into(), spec(Effect::Mutate, Some("command"), Some("command")));
        for (name, target, artifact) in [
            ("http_post", "url", "body"),
            ("send_email", "to", "body"),
            ("deliver_review", "target", "body"),
            ("git_push", "remote", "ref"),
        ] {
            tools.insert(name.to_owned(), spec(Effect::External, Some(target), Some(artifact)));
        }
        Self { tools, allowed_hosts: Vec::new() }
    }

    /// The default registry, built once (for checks that have no configured one).
    pub fn shared_defaults() -> &'static Registry {
        static DEFAULTS: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
        DEFAULTS.get_or_init(Registry::defaults)
    }

    /// Adds or replaces a tool.
    pub fn insert(&mut self, name: impl Into<String>, spec: ToolSpec) {
        self.tools.insert(name.into(), spec);
    }

    /// Sets the hosts `web_fetch` may read from without being `external`.
    pub fn set_allowed_hosts(&mut self, hosts: Vec<String>) {
        self.allowed_hosts = hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect();
    }

    /// The spec of `tool`, if registered.
    pub fn get(&self, tool: &str) -> Option<&ToolSpec> {
        self.tools.get(tool)
    }

    /// True when every call of `tool` derives the `read` effect, whatever its arguments: a
    /// registered read whose effect no host decides (see [`Registry::derive`]). Grants only ever
    /// authorise effectful actions, so such a call's decision needs none.
    pub fn always_reads(&self, tool: &str) -> bool {
        !host_decides_effect(tool) && self.tools.get(tool).is_some_and(|s| s.effect == Effect::Read)
    }

    /// Derives operation, target, artifact bytes and other arguments of a call.
    pub fn derive(&self, tool: &str, args: &Map<String, Value>) -> DerivedAction {
        let (spec, unknown) = match self.tools.get(tool) {
            Some(s) => (s.clone(), false),
            None => (spec(Effect::Mutate, None, None), true),
        };
        let target = match &spec.target_arg {
            Some(name) => args.get(name).map(target_string).unwrap_or_default(),
            None => tool.to_owned(),
        };
        let artifact = match &spec.artifact_arg {
            Some(name) => args.get(name).map(artifact_bytes).unwrap_or_default(),
            None => Vec::new(),
        };
        let mut rest = args.clone();
        for name in [&spec.target_arg, &spec.artifact_arg].into_iter().flatten() {
            rest.remove(name);
        }
        let effect = if host_decides_effect(tool) && !unknown {
            if self.host_allowed(&target) { Effect::Read } else { Effect::External }
        } else if spec.effect == Effect::Mutate
            && !unknown
            && spec.target_arg.as_deref() == Some("command")
            && spec.artifact_arg.as_deref() == Some("command")
        {
            // Shell tools: only commands the read-only classifier accepts are reads.
            if crate::shell::is_read_only(&target) { Effect::Read } else { Effect::Mutate }
        } else {
            spec.effect
        };
        DerivedAction { effect, operation: tool.to_owned(), target, artifact, args: rest, unknown }
    }

    /// True when `url` is an `http`/`https` URL that every client fetches from an allowed host;
    /// a URL clients could read differently (userinfo, a backslash, whitespace in the
    /// authority) or that does not parse is never on the allowlist.
    fn host_allowed(&self, url: &str) -> bool {
        crate::text::target::unambiguous_http_host(url).is_some_and(|host| self.allowed_hosts.contains(&host))
    }
}

/// True for the tool whose effect [`Registry::derive`] takes from the URL's host (`web_fetch`:
/// `read` for an allowed host, else `external`), whatever its registered effect.
fn host_decides_effect(tool: &str) -> bool {
    tool == "web_fetch"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_registered_reads_no_host_decides_always_read() {
        let mut r = Registry::defaults();
        assert!(r.always_reads("read_file") && r.always_reads("search"));
        for tool in ["write_file", "bash", "http_post", "web_fetch", "not_registered"] {
            assert!(!r.always_reads(tool), "{tool}");
        }
        // Registered as a read, `web_fetch` still takes its effect from the host.
        r.insert("web_fetch", spec(Effect::Read, Some("url"), None));
        assert!(!r.always_reads("web_fetch"));
        let args = serde_json::json!({"url": "https://elsewhere.example/x"});
        assert_eq!(r.derive("web_fetch", args.as_object().expect("object")).effect, Effect::External);
    }

    fn fetch_effect(url: &str) -> Effect {
        let mut r = Registry::defaults();
        r.set_allowed_hosts(vec!["Docs.Example.org".into()]);
        let args = serde_json::json!({ "url": url });
        r.derive("web_fetch", args.as_object().expect("object")).effect
    }

    #[test]
    fn a_fetch_reads_only_from_a_host_every_client_agrees_is_allowed() {
        for url in [
            "https://docs.example.org/x",
            "HTTPS://Docs.Example.ORG:443/x?q=1",
            "http://docs.example.org",
            "https://docs.example.org/a\\b",
            "https://docs.example.org?next=https://evil.com",
        ] {
            assert_eq!(fetch_effect(url), Effect::Read, "{url}");
        }
        for url in [
            // WHATWG clients (browsers, Node) end the authority at `\\`: the host is evil.com.
            "https://evil.com\\@docs.example.org/x",
            "https://evil.com\\docs.example.org/x",
            // Userinfo, whitespace, controls, percent-escapes: parsers disagree or decode.
            "https://user@docs.example.org/x",
            "https://evil.com@docs.example.org/x",
            "https://docs.example.org\t/x",
            "https://docs.exa\nmple.org/x",
            " https://docs.example.org/x",
            "https://docs%2eexample.org/x",
            "https://docs.example.org:443x/x",
            "https://docs.example.org;.evil.com/x",
            // Not an http(s) URL with an authority.
            "docs.example.org/x",
            "https:docs.example.org/x",
            "https:\\\\docs.example.org/x",
            "https:///docs.example.org/x",
            "ftp://docs.example.org/x",
            "https://",
        ] {
            assert_eq!(fetch_effect(url), Effect::External, "{url:?}");
        }
    }
}
