//! Blindfold's own state and endpoints (SPEC §5, "agents cannot forge authority"): a tool call
//! of any agent Blindfold mediates that reads or writes its state dir, config, keys or tokens, or
//! that reaches its listeners or control socket, is refused by a built-in rule
//! (`P1.protected`), so an agent with a shell can neither read the adapter token nor post a
//! forged event, verdict or model-API request.

use crate::text::Target;
use serde_json::{Map, Value};

/// What no mediated agent may touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Protected {
    /// Files and directories (absolute, as configured): the state dir, the config file, key files,
    /// the trace dir, the control socket.
    pub paths: Vec<String>,
    /// File names that are Blindfold's wherever they lie (`adapter.token`, `operator.token`).
    pub names: Vec<String>,
    /// Ports Blindfold listens on (loopback or any address).
    pub ports: Vec<u16>,
}

/// Host spellings that reach this machine.
const LOCAL_HOSTS: &[&str] = &["127.0.0.1", "localhost", "[::1]", "::1", "0.0.0.0", "127.1", "[::]"];

impl Protected {
    /// True when nothing is protected.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.names.is_empty() && self.ports.is_empty()
    }

    /// What of Blindfold's a call with `targets` and `args` touches, if anything (for the
    /// refusal: the kind, never the secret itself).
    pub fn touched(&self, targets: &[Target], args: &Map<String, Value>) -> Option<&'static str> {
        if self.is_empty() {
            return None;
        }
        for t in targets {
            if let Target::Path(p) = t
                && self.paths.iter().any(|root| within(p, root))
            {
                return Some("state, config or keys");
            }
        }
        let mut texts = Vec::new();
        for (k, v) in args {
            texts.push(k.as_str());
            strings(v, &mut texts);
        }
        // Folded once per call, not once per string of the call.
        let needles: Vec<String> =
            self.paths.iter().chain(&self.names).map(|n| crate::fold::fold_str(n)).collect();
        let ports: Vec<String> = self.ports.iter().map(u16::to_string).collect();
        for text in texts {
            let text = crate::fold::fold_str(text);
            if needles.iter().any(|n| names_path(&text, n)) {
                return Some("state, config or keys");
            }
            if ports.iter().any(|port| reaches_port(&text, port)) {
                return Some("listeners");
            }
        }
        None
    }
}

/// True when `text` holds `path` not as the start of a longer name (`/x/blindfold` is not in
/// `/x/blindfolded`).
fn names_path(text: &str, path: &str) -> bool {
    !path.is_empty()
        && text.match_indices(path).any(|(at, _)| {
            text[at + path.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
        })
}

/// True when `path` is `root` or lies below it.
fn within(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    !root.is_empty() && (path == root || path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/')))
}

/// True when `text` names a local host at `port` (`127.0.0.1:7700`, `localhost:7700`, …) or the
/// port after a `--port`/`-p` flag of a networking tool.
fn reaches_port(text: &str, p: &str) -> bool {
    // Both forms hold the port's digits: a text without them reaches nothing.
    if !text.contains(p) {
        return false;
    }
    LOCAL_HOSTS.iter().any(|h| {
        text.match_indices(h).any(|(at, _)| {
            text[at + h.len()..]
                .strip_prefix(':')
                .and_then(|rest| rest.strip_prefix(p))
                .is_some_and(|after| after.chars().next().is_none_or(|c| !c.is_ascii_digit()))
        })
    }) || (text.split_whitespace().any(|w| LOCAL_HOSTS.contains(&w))
        && text.split(|c: char| !c.is_ascii_digit()).any(|n| n == p))
}

/// Every string in `v` (keys included), borrowed.
fn strings<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k);
                strings(v, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn protected() -> Protected {
        Protected {
            paths: vec!["/var/lib/blindfold".into(), "/etc/blindfold.toml".into()],
            names: vec!["adapter.token".into()],
            ports: vec![7700],
        }
    }

    fn touched(args: Value, targets: &[Target]) -> Option<&'static str> {
        protected().touched(targets, args.as_object().expect("object"))
    }

    #[test]
    fn the_state_dir_tokens_and_listeners_are_off_limits() {
        assert!(touched(json!({"command": "cat /var/lib/blindfold/adapter.token"}), &[]).is_some());
        assert!(touched(json!({"command": "cat ~/.blindfold/adapter.token"}), &[]).is_some());
        assert!(touched(json!({}), &[Target::Path("/var/lib/blindfold/keys/a.pem".into())]).is_some());
        assert!(touched(json!({"command": "curl -s http://127.0.0.1:7700/v1/control"}), &[]).is_some());
        assert!(touched(json!({"url": "http://localhost:7700/model/v1/chat/completions"}), &[]).is_some());
        assert!(touched(json!({"command": "nc localhost 7700"}), &[]).is_some());
        assert!(touched(json!({"command": "vi /etc/blindfold.toml"}), &[]).is_some());
        assert!(touched(json!({"url": "http://[::1]:7700/v1/control"}), &[]).is_some());
        assert!(touched(json!({"args": [{"to": "0.0.0.0:7700"}]}), &[]).is_some(), "nested values");
        assert!(touched(json!({"/var/lib/blindfold/adapter.token": "x"}), &[]).is_some(), "keys too");
    }

    #[test]
    fn other_paths_and_ports_are_not() {
        assert!(touched(json!({"command": "curl http://127.0.0.1:77001/"}), &[]).is_none());
        assert!(touched(json!({"command": "curl http://127.0.0.1:8080/?q=7700"}), &[]).is_none());
        assert!(touched(json!({"command": "cat /var/lib/blindfolded/x"}), &[]).is_none());
        assert!(touched(json!({"path": "notes.txt", "content": "port 7700 is Blindfold's"}), &[]).is_none());
        assert!(Protected::default().touched(&[], &Map::new()).is_none());
    }
}
