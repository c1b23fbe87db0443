//! What P4 reads in a record: every string, folded by the checks that read it, with the text
//! structured forms hide unpacked — JSON written inside a string, YAML written inside a string
//! (each `key: value` line), and switches (`review_required: false`, `"skip_checks": true`).

use crate::shell::Setting;
use serde_json::Value;

/// One piece of a record as P4 reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text, and what it is: a whole value of the record, or a key (read as running text).
    Text(String, Setting),
    /// A key set to a switch value: `on` for true / yes / on, off for false / no / off / none.
    Switch {
        /// The key, its `_` and `-` read as spaces.
        key: String,
        /// True when switched on.
        on: bool,
    },
}

/// How deep JSON and YAML written inside strings are unpacked.
const MAX_DEPTH: usize = 4;

/// Every piece of `record`.
pub fn pieces(record: &Value) -> Vec<Piece> {
    let mut out = Vec::new();
    value(record, 0, &mut out);
    out
}

fn key_text(key: &str) -> String {
    key.replace(['_', '-'], " ")
}

fn switch(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => text_switch(s),
        _ => None,
    }
}

fn text_switch(s: &str) -> Option<bool> {
    match s.trim().trim_matches(['"', '\'']).to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "enabled" => Some(true),
        "false" | "no" | "off" | "none" | "disabled" | "0" => Some(false),
        _ => None,
    }
}

fn value(v: &Value, depth: usize, out: &mut Vec<Piece>) {
    match v {
        Value::String(s) => string(s, depth, out),
        Value::Array(a) => a.iter().for_each(|x| value(x, depth, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(Piece::Text(key_text(k), Setting::Prose));
                if let Some(on) = switch(x) {
                    out.push(Piece::Switch { key: key_text(k), on });
                }
                value(x, depth, out);
            }
        }
        _ => {}
    }
}

fn string(s: &str, depth: usize, out: &mut Vec<Piece>) {
    out.push(Piece::Text(s.to_owned(), Setting::Value));
    if depth >= MAX_DEPTH {
        return;
    }
    let t = s.trim();
    if (t.starts_with('{') || t.starts_with('['))
        && let Ok(inner) = serde_json::from_str::<Value>(t)
    {
        value(&inner, depth + 1, out);
        return;
    }
    yaml_lines(s, depth, out);
}

/// The `key: value` lines of YAML (or of a `key: value` list) written inside a string: each
/// value read as a whole value, each key as text, each switch as a switch.
fn yaml_lines(s: &str, depth: usize, out: &mut Vec<Piece>) {
    if !s.contains('\n') && !s.trim_start().starts_with("- ") {
        return;
    }
    for line in s.lines() {
        let line = line.trim().trim_start_matches("- ").trim();
        let Some((k, v)) = line.split_once(':') else {
            if !line.is_empty() {
                string(line.trim_matches(['"', '\'']), depth + 1, out);
            }
            continue;
        };
        if k.contains(char::is_whitespace) && k.split_whitespace().count() > 3 {
            continue; // prose with a colon, read as a whole already
        }
        out.push(Piece::Text(key_text(k.trim()), Setting::Prose));
        let v = v.trim().trim_matches(['"', '\'']);
        if let Some(on) = text_switch(v) {
            out.push(Piece::Switch { key: key_text(k.trim()), on });
        }
        if !v.is_empty() {
            string(v, depth + 1, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_and_yaml_inside_strings_are_unpacked() {
        let r = json!({"content": "{\"step\": {\"cmd\": \"chmod -R 777 /srv\"}}",
            "notes": "steps:\n  - run: \"rm -rf /tmp/x\"\n  review_required: false\n"});
        let p = pieces(&r);
        assert!(p.contains(&Piece::Text("chmod -R 777 /srv".into(), Setting::Value)), "{p:?}");
        assert!(p.contains(&Piece::Text("rm -rf /tmp/x".into(), Setting::Value)), "{p:?}");
        assert!(p.contains(&Piece::Switch { key: "review required".into(), on: false }), "{p:?}");
    }
}
