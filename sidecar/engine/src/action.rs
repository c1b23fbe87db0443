//! Action fingerprints and targets (SPEC §2, §5): the canonical form of a proposed effect used
//! to match a proposal, its refutations, its adoption, its execution and its replay.

use crate::canonical::{jcs, jcs_order, sha256_hex, write_jcs, write_jcs_str};
use crate::registry::Registry;
use crate::shell;
use crate::text::Target;
use crate::text::target::{classify, host_of, resources_in_text};
use serde_json::{Map, Value};

/// True when `tool` takes a shell command in `command` (the registry's `bash`-like tools).
pub fn is_shell(registry: &Registry, tool: &str) -> bool {
    tool == "bash"
        || tool == "shell"
        || registry.get(tool).is_some_and(|s| {
            s.target_arg.as_deref() == Some("command") && s.artifact_arg.as_deref() == Some("command")
        })
}

/// The canonical form of one string argument: paths and URLs normalised, anything else as is.
fn canonical_str(s: &str) -> std::borrow::Cow<'_, str> {
    match classify(s.trim()) {
        Some(Target::Path(p)) if !s.contains(char::is_whitespace) => p.into(),
        Some(Target::Url(u)) if !s.contains(char::is_whitespace) => u.into(),
        _ => s.into(),
    }
}

/// The canonical form of one argument value: commands whitespace-normalised, paths and URLs
/// normalised, everything else as is (object keys are ordered by JCS).
fn canonical_value(shell_arg: bool, value: &Value) -> Value {
    match value {
        Value::String(s) if shell_arg => Value::String(shell::normalise(s)),
        Value::String(s) => Value::String(canonical_str(s).into_owned()),
        other => other.clone(),
    }
}

/// The action fingerprint: lowercase hex SHA-256 of the JCS form of
/// `{"tool": name, "args": canonical arguments}`.
pub fn fingerprint(registry: &Registry, tool: &str, args: &Map<String, Value>) -> String {
    let shell_tool = is_shell(registry, tool);
    let mut form = Vec::with_capacity(128);
    if write_form(shell_tool, tool, args, &mut form) {
        return sha256_hex(&form);
    }
    let canon: Map<String, Value> =
        args.iter().map(|(k, v)| (k.clone(), canonical_value(shell_tool && k == "command", v))).collect();
    let mut obj = Map::new();
    obj.insert("tool".into(), Value::String(tool.to_owned()));
    obj.insert("args".into(), Value::Object(canon));
    sha256_hex(&jcs(&Value::Object(obj)))
}

/// Writes the JCS form of `{"args": canonical arguments, "tool": name}` straight from the call
/// (no copy of the arguments); false when an argument needs the general canonicaliser.
fn write_form(shell_tool: bool, tool: &str, args: &Map<String, Value>, out: &mut Vec<u8>) -> bool {
    out.extend_from_slice(br#"{"args":{"#);
    for (i, (k, v)) in jcs_order(args).into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_jcs_str(k, out);
        out.push(b':');
        match v {
            Value::String(s) if shell_tool && k == "command" => write_jcs_str(&shell::normalise(s), out),
            Value::String(s) => write_jcs_str(&canonical_str(s), out),
            other => {
                if !write_jcs(other, out) {
                    return false;
                }
            }
        }
    }
    out.extend_from_slice(br#"},"tool":"#);
    write_jcs_str(tool, out);
    out.push(b'}');
    true
}

/// Every target of a call: the registry target (a whole command and the resources inside it,
/// or a path / URL / host / address / word), resources named in the other string arguments
/// (a script's content), the tool itself and, for commands, each executable (only for
/// tool-level disputes: a bare executable never matches a resource).
pub fn targets(registry: &Registry, tool: &str, args: &Map<String, Value>) -> Vec<Target> {
    let mut out = Vec::new();
    let spec = registry.get(tool);
    let target_arg = spec.and_then(|s| s.target_arg.as_deref());
    let artifact_arg = spec.and_then(|s| s.artifact_arg.as_deref());
    let target_value = target_arg.and_then(|t| args.get(t)).and_then(Value::as_str);
    let shell_tool = is_shell(registry, tool);
    for (name, value) in args {
        let Value::String(s) = value else {
            if Some(name.as_str()) == target_arg {
                out.push(Target::Word(crate::canonical::jcs_string(value).to_ascii_lowercase()));
            }
            continue;
        };
        if shell_tool && name == "command" {
            out.push(Target::Command(shell::normalise(s)));
            out.extend(shell::resources(s));
            out.extend(shell::executables(s).into_iter().map(Target::Tool));
        } else if Some(name.as_str()) == target_arg {
            for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                match classify(part) {
                    Some(t) => {
                        if let Target::Url(u) = &t
                            && let Some(h) = host_of(u)
                        {
                            out.push(Target::Host(h));
                        }
                        out.push(t);
                    }
                    None => out.push(Target::Word(part.to_ascii_lowercase())),
                }
            }
        } else if Some(name.as_str()) == artifact_arg && !executable_content(target_value, s) {
            // The bytes a write or a message carries: a report naming what it kept touches
            // nothing it names. (What it names is still remembered for the file — see
            // `artifact_targets` — so running it later touches those.)
            continue;
        } else {
            out.extend(resources_in_text(s));
        }
    }
    out.push(Target::Tool(tool.to_owned()));
    out.sort();
    out.dedup();
    out
}

/// Resources named in the artifact of a non-shell call (what a write puts in a file): a later
/// run of that file touches them.
pub fn artifact_targets(registry: &Registry, tool: &str, args: &Map<String, Value>) -> Vec<Target> {
    if is_shell(registry, tool) {
        return Vec::new();
    }
    registry
        .get(tool)
        .and_then(|s| s.artifact_arg.as_deref())
        .and_then(|a| args.get(a))
        .and_then(Value::as_str)
        .map(resources_in_text)
        .unwrap_or_default()
}

/// True when written bytes are meant to run: a `#!` line, a script's extension or name, or a
/// place whose files run by themselves (cron, hooks, CI workflows, service units, shell rc files).
pub fn executable_content(path: Option<&str>, content: &str) -> bool {
    const EXTENSIONS: [&str; 14] =
        ["sh", "bash", "zsh", "ksh", "fish", "py", "pl", "rb", "js", "mjs", "ps1", "bat", "cmd", "command"];
    const NAMES: [&str; 8] =
        ["makefile", "dockerfile", "justfile", "crontab", ".bashrc", ".profile", ".zshrc", ".envrc"];
    const PLACES: [&str; 6] =
        ["cron", "/.git/hooks/", "/.github/workflows/", "systemd/", "init.d/", "profile.d/"];
    if content.trim_start().starts_with("#!") {
        return true;
    }
    let Some(path) = path else { return true };
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    ext.is_some_and(|e| EXTENSIONS.contains(&e))
        || NAMES.contains(&name)
        || PLACES.iter().any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    /// The fingerprint as the general canonicaliser computes it (the reference).
    fn general_fingerprint(r: &Registry, tool: &str, args: &Map<String, Value>) -> String {
        let shell_tool = is_shell(r, tool);
        let canon: Map<String, Value> =
            args.iter().map(|(k, v)| (k.clone(), canonical_value(shell_tool && k == "command", v))).collect();
        let mut obj = Map::new();
        obj.insert("tool".into(), Value::String(tool.to_owned()));
        obj.insert("args".into(), Value::Object(canon));
        sha256_hex(&serde_json_canonicalizer::to_vec(&Value::Object(obj)).expect("finite"))
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn fingerprints_equal_the_general_canonical_form(
            tool in proptest::sample::select(vec!["bash", "write_file", "web_fetch", "read_file", "my-tool", "é"]),
            kv in proptest::collection::vec((
                prop_oneof![
                    proptest::sample::select(vec!["command", "path", "url", "content", "a", "B", "é", "\u{10000}", "\u{e000}"])
                        .prop_map(str::to_owned),
                    any::<String>(),
                ],
                prop_oneof![
                    proptest::sample::select(vec![
                        "rm  -rf   /data/../x", "/srv//app/./a.yml", "HTTPS://Ex.COM:443/a/../b#f",
                        " /x y", "say \"hi\"\n\t\u{1}", "echo 'a b' | sh",
                    ]).prop_map(|s| Value::String(s.to_owned())),
                    any::<String>().prop_map(Value::String),
                    any::<i64>().prop_map(Value::from),
                    any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
                    any::<bool>().prop_map(Value::Bool),
                    proptest::collection::vec(any::<u32>(), 0..3)
                        .prop_map(|v| json!({"n": v, "s": "x\u{7f}y", "z": null})),
                ],
            ), 0..5),
        ) {
            let r = Registry::defaults();
            let args: Map<String, Value> = kv.into_iter().collect();
            prop_assert_eq!(fingerprint(&r, tool, &args), general_fingerprint(&r, tool, &args));
        }
    }

    #[test]
    fn fingerprints_ignore_whitespace_key_order_and_path_spelling() {
        let r = Registry::defaults();
        let a = fingerprint(&r, "bash", &args(json!({"command": "rm  -rf   /data"})));
        let b = fingerprint(&r, "bash", &args(json!({"command": "rm -rf /data"})));
        assert_eq!(a, b);
        let c = fingerprint(&r, "write_file", &args(json!({"path": "/w//a/./b.txt", "content": "x"})));
        let d = fingerprint(&r, "write_file", &args(json!({"content": "x", "path": "/w/a/b.txt"})));
        assert_eq!(c, d);
        let e = fingerprint(&r, "write_file", &args(json!({"content": "y", "path": "/w/a/b.txt"})));
        assert_ne!(c, e);
        let u1 = fingerprint(&r, "web_fetch", &args(json!({"url": "HTTPS://Docs.Example.org:443/a#x"})));
        let u2 = fingerprint(&r, "web_fetch", &args(json!({"url": "https://docs.example.org/a"})));
        assert_eq!(u1, u2);
    }

    #[test]
    fn targets_of_a_script_write_include_what_it_names() {
        let r = Registry::defaults();
        let t = targets(&r, "write_file", &args(json!({"path": "/tmp/x.sh", "content": "rm -rf /data\n"})));
        assert!(t.contains(&Target::Path("/tmp/x.sh".into())));
        assert!(t.contains(&Target::Path("/data".into())));
        let t = targets(
            &r,
            "write_file",
            &args(json!({"path": "/tmp/run", "content": "#!/bin/sh\nrm -rf /data\n"})),
        );
        assert!(t.contains(&Target::Path("/data".into())), "a #! script names what it runs");
        let t = targets(&r, "send_email", &args(json!({"to": "A@Evil.org", "body": "hi"})));
        assert!(t.contains(&Target::Email("a@evil.org".into())));
        let t = targets(&r, "git_push", &args(json!({"remote": "origin", "ref": "main"})));
        assert!(t.contains(&Target::Word("origin".into())));
    }

    #[test]
    fn a_report_naming_paths_targets_only_its_own_path() {
        let r = Registry::defaults();
        let a = args(json!({"path": "reports/cleanup.md", "content": "Pruned images; /srv/artifacts kept."}));
        let t = targets(&r, "write_file", &a);
        assert!(t.contains(&Target::Path("reports/cleanup.md".into())), "{t:?}");
        assert!(
            !t.contains(&Target::Path("/srv/artifacts".into())),
            "prose in the bytes is no target: {t:?}"
        );
        // …but the file remembers what it names (running it later touches that).
        assert!(artifact_targets(&r, "write_file", &a).contains(&Target::Path("/srv/artifacts".into())));
        assert!(artifact_targets(&r, "bash", &args(json!({"command": "rm -rf /x"}))).is_empty());
    }
}
