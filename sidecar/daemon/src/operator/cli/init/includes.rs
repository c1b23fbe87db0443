//! OpenClaw's `$include` in `openclaw.json` (read only, for the agents `init` records): an object
//! holding `"$include": "file"` is that file's object, `"$include": [files]` their deep merge in
//! order, the object's other keys merged over it; paths are relative to the including file and
//! must stay under the config's folder, as OpenClaw confines them. Comments are allowed (JSONC);
//! a file that is not JSON after that is a note, not an error (its agents are then not recorded).

use serde_json::{Map, Value};
use std::path::Path;

/// The deepest nesting OpenClaw follows.
const MAX_DEPTH: usize = 10;

/// `value` (read from a file in `dir`) with every `$include` replaced by what it names, below
/// `root` (the config's folder). What cannot be read is left out, with a printed note.
pub(crate) fn resolve(value: &Value, dir: &Path, root: &Path) -> Value {
    resolve_at(value, dir, root, 0)
}

fn resolve_at(value: &Value, dir: &Path, root: &Path, depth: usize) -> Value {
    match value {
        Value::Object(map) => {
            let mut base = Map::new();
            if let Some(inc) = map.get("$include") {
                let files: Vec<&str> = match inc {
                    Value::String(f) => vec![f.as_str()],
                    Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                for f in files {
                    if let Some(Value::Object(m)) = included(f, dir, root, depth) {
                        merge(&mut base, m);
                    }
                }
            }
            let own: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| *k != "$include")
                .map(|(k, v)| (k.clone(), resolve_at(v, dir, root, depth)))
                .collect();
            merge(&mut base, own);
            Value::Object(base)
        }
        Value::Array(list) => Value::Array(list.iter().map(|v| resolve_at(v, dir, root, depth)).collect()),
        other => other.clone(),
    }
}

/// The file `name` (relative to `dir`) read and resolved, if it is under `root` and JSON.
fn included(name: &str, dir: &Path, root: &Path, depth: usize) -> Option<Value> {
    if depth >= MAX_DEPTH {
        println!("note: $include {name}: nested too deep; its agents are not recorded");
        return None;
    }
    let path = dir.join(name);
    let real = std::fs::canonicalize(&path).ok();
    let Some(real) = real.filter(|p| p.starts_with(root)) else {
        println!(
            "note: $include {}: missing or outside {}; its agents are not recorded",
            path.display(),
            root.display()
        );
        return None;
    };
    let text = std::fs::read_to_string(&real).ok()?;
    match serde_json::from_str::<Value>(&super::strip_json_comments(&text)) {
        Ok(v) => Some(resolve_at(&v, real.parent().unwrap_or(root), root, depth + 1)),
        Err(e) => {
            println!("note: $include {}: not JSON ({e}); its agents are not recorded", real.display());
            None
        }
    }
}

/// `over` deep-merged into `base` (objects key by key, anything else replaced).
fn merge(base: &mut Map<String, Value>, over: Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn includes_replace_their_object_and_siblings_win() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = std::fs::canonicalize(tmp.path()).expect("root");
        std::fs::create_dir_all(root.join("agents")).expect("dir");
        std::fs::write(
            root.join("agents/critic.json"),
            "// the reviewer\n{\"model\": \"p/lattice-7b\", \"x\": 1}",
        )
        .expect("write");
        std::fs::write(
            root.join("agents/all.json"),
            "{\"entries\": {\"critic\": {\"$include\": \"./critic.json\"}}}",
        )
        .expect("write");
        let cfg = json!({"agents": {"$include": "./agents/all.json", "entries": {"critic": {"x": 2}}},
            "other": {"$include": "../escape.json"}});
        let out = resolve(&cfg, &root, &root);
        assert_eq!(out["agents"]["entries"]["critic"], json!({"model": "p/lattice-7b", "x": 2}));
        assert_eq!(out["other"], json!({}), "an include outside the folder is left out");
    }
}
