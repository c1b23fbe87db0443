//! What `blindfold init opencode` writes into a project: the permission block merged into an
//! existing OpenCode config without loosening it, and a line diff to show before writing.

use serde_json::{Map, Value, json};

/// Permission keys Blindfold answers (`ask` routes them through a permission request).
pub const ASK_KEYS: [&str; 5] = ["edit", "bash", "webfetch", "external_directory", "task"];

/// The plugin file as shipped in `adapters/opencode-plugin/`.
pub const PLUGIN_TS: &str = include_str!("../../../../../adapters/opencode-plugin/blindfold.ts");

/// The shared control client and settings loader the plugin imports from
/// `.opencode/blindfold-common/control.ts` (outside `plugins/`: OpenCode loads every file there).
pub const CONTROL_TS: &str = include_str!("../../../../../adapters/blindfold-common/control.ts");

/// One permission value made at least as strict as `ask`: `deny` stays, anything else becomes
/// `ask`; a pattern map keeps its `deny` rules, turns the rest into `ask`, and gains a leading
/// `"*": "ask"` when it has none (the last matching rule wins, so the catch-all goes first).
fn at_least_ask(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(s)) if s == "deny" => json!("deny"),
        Some(Value::Object(rules)) => {
            let mut out = Map::new();
            if !rules.contains_key("*") {
                out.insert("*".into(), json!("ask"));
            }
            for (pattern, action) in rules {
                let strict = if action == "deny" { json!("deny") } else { json!("ask") };
                out.insert(pattern.clone(), strict);
            }
            Value::Object(out)
        }
        _ => json!("ask"),
    }
}

/// `config` (an OpenCode `opencode.json`, or `None` when there is none) with Blindfold's
/// permission block merged in. Everything else is kept as it was.
pub fn merge_permissions(config: Option<&Value>) -> Result<Value, String> {
    let mut root = match config {
        None => json!({"$schema": "https://opencode.ai/config.json"}),
        Some(Value::Object(m)) => Value::Object(m.clone()),
        Some(_) => return Err("opencode.json is not a JSON object".into()),
    };
    let obj = root.as_object_mut().ok_or("not an object")?;
    let mut perms = match obj.remove("permission") {
        None => Map::new(),
        Some(Value::Object(m)) => m,
        Some(Value::String(all)) => Map::from_iter([("*".to_owned(), Value::String(all))]),
        Some(_) => return Err("`permission` is neither a string nor an object".into()),
    };
    for key in ASK_KEYS {
        let strict = at_least_ask(perms.get(key));
        perms.insert(key.to_owned(), strict);
    }
    obj.insert("permission".into(), Value::Object(perms));
    Ok(root)
}

/// A line diff of `old` → `new` (`-`/`+`/` ` prefixes), empty when they are equal.
pub fn line_diff(old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence table (config files are small).
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] > lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_other_keys_and_never_loosens() {
        let existing = json!({
            "model": "x/y",
            "permission": {"bash": "deny", "read": "allow", "edit": {"src/**": "allow", "secrets/**": "deny"}}
        });
        let merged = merge_permissions(Some(&existing)).expect("merge");
        assert_eq!(merged["model"], "x/y");
        let p = &merged["permission"];
        assert_eq!(p["bash"], "deny");
        assert_eq!(p["read"], "allow");
        assert_eq!(p["webfetch"], "ask");
        assert_eq!(p["task"], "ask");
        assert_eq!(p["external_directory"], "ask");
        assert_eq!(p["edit"], json!({"*": "ask", "src/**": "ask", "secrets/**": "deny"}));
        let keys: Vec<&String> = p["edit"].as_object().expect("map").keys().collect();
        assert_eq!(keys[0], "*", "the catch-all comes first");
        assert_eq!(merge_permissions(Some(&merged)).expect("again"), merged, "idempotent");
    }

    #[test]
    fn a_missing_config_gets_a_fresh_one_and_junk_is_refused() {
        let fresh = merge_permissions(None).expect("fresh");
        assert_eq!(fresh["permission"]["bash"], "ask");
        assert!(merge_permissions(Some(&json!([1]))).is_err());
        assert!(merge_permissions(Some(&json!({"permission": 3}))).is_err());
        let all = merge_permissions(Some(&json!({"permission": "allow"}))).expect("string");
        assert_eq!(all["permission"]["*"], "allow");
        assert_eq!(all["permission"]["edit"], "ask");
    }

    #[test]
    fn the_diff_shows_changed_lines_only_as_changes() {
        assert_eq!(line_diff("a\nb\n", "a\nb\n"), "");
        assert_eq!(line_diff("a\nb\nc\n", "a\nx\nc\n"), "  a\n- b\n+ x\n  c\n");
    }
}
