//! Action fingerprints: the canonical form of a proposed effect, used to match a proposal with
//! the call that adopts or executes it.

use crate::canonical::{jcs, sha256_hex};
use serde_json::{Map, Value};

/// The fingerprint of running `tool` with `args`: lowercase hex SHA-256 of the JCS form of
/// `{"tool": …, "args": …}` after normalisation — runs of whitespace in string arguments collapse
/// to one space and are trimmed (so `rm  -rf /x` and `rm -rf /x` match), and string values that are
/// paths lose `./` segments and trailing slashes.
pub fn action_fingerprint(tool: &str, args: &Map<String, Value>) -> String {
    let normalised: Map<String, Value> = args.iter().map(|(k, v)| (k.clone(), normalise(v))).collect();
    let value = serde_json::json!({"tool": tool, "args": Value::Object(normalised)});
    sha256_hex(&jcs(&value))
}

fn normalise(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(normalise_str(s)),
        Value::Array(items) => Value::Array(items.iter().map(normalise).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), normalise(v))).collect()),
        other => other.clone(),
    }
}

fn normalise_str(s: &str) -> String {
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.starts_with('/') && !collapsed.contains(' ') {
        let parts: Vec<&str> = collapsed.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
        return format!("/{}", parts.join("/"));
    }
    collapsed
}

#[cfg(test)]
mod tests {
    use super::action_fingerprint;
    use serde_json::{Map, Value, json};

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn whitespace_and_path_spelling_do_not_change_the_fingerprint() {
        let a = action_fingerprint("bash", &args(json!({"command": "rm  -rf   /data "})));
        let b = action_fingerprint("bash", &args(json!({"command": "rm -rf /data"})));
        assert_eq!(a, b);
        let p = action_fingerprint("write_file", &args(json!({"path": "/srv/./app//x/", "content": "1"})));
        let q = action_fingerprint("write_file", &args(json!({"path": "/srv/app/x", "content": "1"})));
        assert_eq!(p, q);
    }

    #[test]
    fn another_tool_or_argument_changes_the_fingerprint() {
        let a = action_fingerprint("bash", &args(json!({"command": "rm -rf /data"})));
        assert_ne!(a, action_fingerprint("bash", &args(json!({"command": "rm -rf /date"}))));
        assert_ne!(a, action_fingerprint("sh", &args(json!({"command": "rm -rf /data"}))));
    }
}
