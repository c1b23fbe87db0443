//! Minimal edits of a harness's JSON (or JSONC) config: replace one value, add one key to an
//! object, or remove one key — everything else, the user's key order, spacing and comments, stays
//! byte for byte, so the diff `init` shows is the change it makes and nothing more.

use serde_json::Value;
use std::ops::Range;

/// One scanned value: its byte span and, for an object, its members (key, key span start, value).
#[derive(Debug)]
struct Node {
    span: Range<usize>,
    members: Vec<(String, usize, Node)>,
}

struct Scanner<'a> {
    s: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.at))
    }

    /// Skips whitespace and comments (`//` and `/* */`, as JSONC allows).
    fn skip(&mut self) {
        loop {
            while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            if self.s[self.at..].starts_with(b"//") {
                while self.at < self.s.len() && self.s[self.at] != b'\n' {
                    self.at += 1;
                }
            } else if self.s[self.at..].starts_with(b"/*") {
                match self.s[self.at + 2..].windows(2).position(|w| w == b"*/") {
                    Some(end) => self.at += end + 4,
                    None => self.at = self.s.len(),
                }
            } else {
                return;
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let start = self.at;
        self.at += 1;
        while self.at < self.s.len() {
            match self.s[self.at] {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    let raw = std::str::from_utf8(&self.s[start..self.at]).map_err(|e| e.to_string())?;
                    return serde_json::from_str(raw).map_err(|e| format!("string at byte {start}: {e}"));
                }
                _ => self.at += 1,
            }
        }
        self.err("unterminated string")
    }

    fn value(&mut self, depth: usize) -> Result<Node, String> {
        if depth > 64 {
            return self.err("nesting too deep");
        }
        self.skip();
        let start = self.at;
        let mut members = Vec::new();
        match self.s.get(self.at) {
            Some(b'{') | Some(b'[') => {
                let object = self.s[self.at] == b'{';
                let close = if object { b'}' } else { b']' };
                self.at += 1;
                loop {
                    self.skip();
                    match self.s.get(self.at) {
                        Some(&c) if c == close => {
                            self.at += 1;
                            break;
                        }
                        Some(b',') => self.at += 1,
                        Some(b'"') if object => {
                            let key_at = self.at;
                            let key = self.string()?;
                            self.skip();
                            if self.s.get(self.at) != Some(&b':') {
                                return self.err("expected ':'");
                            }
                            self.at += 1;
                            let v = self.value(depth + 1)?;
                            members.push((key, key_at, v));
                        }
                        Some(_) if !object => {
                            self.value(depth + 1)?;
                        }
                        _ => return self.err("unexpected input"),
                    }
                }
            }
            Some(b'"') => {
                self.string()?;
            }
            Some(_) => {
                while self.at < self.s.len() && !b",}] \t\r\n/".contains(&self.s[self.at]) {
                    self.at += 1;
                }
                if self.at == start {
                    return self.err("expected a value");
                }
            }
            None => return self.err("unexpected end"),
        }
        Ok(Node { span: start..self.at, members })
    }
}

fn parse(text: &str) -> Result<Node, String> {
    let mut s = Scanner { s: text.as_bytes(), at: 0 };
    let root = s.value(0)?;
    s.skip();
    if s.at != text.len() {
        return s.err("trailing input");
    }
    Ok(root)
}

fn find<'n>(root: &'n Node, path: &[&str]) -> Option<&'n Node> {
    path.iter().try_fold(root, |node, key| node.members.iter().find(|(k, ..)| k == key).map(|(_, _, v)| v))
}

/// The indentation of the line `at` lies on.
fn indent_of(text: &str, at: usize) -> String {
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// `text` with the value at `path` replaced by `value` (as JSON); an error when `path` does not
/// exist.
pub fn replace(text: &str, path: &[&str], value: &Value) -> Result<String, String> {
    let root = parse(text)?;
    let node = find(&root, path).ok_or_else(|| format!("{} not found", path.join(".")))?;
    Ok(format!("{}{}{}", &text[..node.span.start], value, &text[node.span.end..]))
}

/// `text` with `key: value` set in the object at `path` (created level by level where missing):
/// a value already there is replaced in place, a new key goes after the object's last member on
/// a line of its own, indented like its siblings.
pub fn set(text: &str, path: &[&str], key: &str, value: &Value) -> Result<String, String> {
    let root = parse(text)?;
    if let Some(existing) = find(&root, path).and_then(|o| o.members.iter().find(|(k, ..)| k == key)) {
        let span = &existing.2.span;
        return Ok(format!("{}{}{}", &text[..span.start], value, &text[span.end..]));
    }
    // The deepest existing object on the path; the missing levels are written nested.
    let mut depth = path.len();
    while find(&root, &path[..depth]).is_none() {
        depth -= 1;
    }
    let object = find(&root, &path[..depth]).ok_or("no object")?;
    if !text[object.span.clone()].starts_with('{') {
        return Err(format!("{} is not an object", path[..depth].join(".")));
    }
    let mut nested = value.clone();
    let mut name = key.to_owned();
    for level in path[depth..].iter().rev() {
        nested = serde_json::json!({ name: nested });
        name = (*level).to_owned();
    }
    let inner_indent = match object.members.first() {
        Some((_, key_at, _)) => indent_of(text, *key_at),
        None => format!("{}  ", indent_of(text, object.span.start)),
    };
    let pretty = serde_json::to_string_pretty(&nested).map_err(|e| e.to_string())?;
    let pretty = pretty.replace('\n', &format!("\n{inner_indent}"));
    let entry = format!("{}: {pretty}", Value::String(name));
    let close = object.span.end - 1;
    Ok(match object.members.last() {
        Some((_, _, last)) => {
            format!("{},\n{inner_indent}{entry}{}", &text[..last.span.end], &text[last.span.end..])
        }
        None => {
            let outer = indent_of(text, object.span.start);
            format!(
                "{}{{\n{inner_indent}{entry}\n{outer}}}{}",
                &text[..object.span.start],
                &text[close + 1..]
            )
        }
    })
}

/// `text` without the key `key` of the object at `path` (and its comma); unchanged when absent.
pub fn remove(text: &str, path: &[&str], key: &str) -> Result<String, String> {
    let root = parse(text)?;
    let Some(object) = find(&root, path) else { return Ok(text.to_owned()) };
    let Some(i) = object.members.iter().position(|(k, ..)| k == key) else { return Ok(text.to_owned()) };
    let (_, key_at, value) = &object.members[i];
    let (start, end) = if i + 1 < object.members.len() {
        (*key_at, object.members[i + 1].1)
    } else if i > 0 {
        (object.members[i - 1].2.span.end, value.span.end)
    } else {
        (object.span.start + 1, object.span.end - 1)
    };
    Ok(format!("{}{}", &text[..start], &text[end..]))
}

/// The value at `path` of a JSON or JSONC text (comments allowed), parsed.
pub fn get(text: &str, path: &[&str]) -> Result<Option<Value>, String> {
    let root = parse(text)?;
    let Some(node) = find(&root, path) else { return Ok(None) };
    let raw = strip_comments(&text[node.span.clone()]);
    serde_json::from_str(&raw).map(Some).map_err(|e| format!("{}: {e}", path.join(".")))
}

/// `text` with its comments blanked (strings kept), for a JSON parser.
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_string {
            if c == b'\\' && i + 1 < b.len() {
                out.push_str(&text[i..i + 2]);
                i += 2;
                continue;
            }
            in_string = c != b'"';
        } else if c == b'"' {
            in_string = true;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if b[i..].starts_with(b"/*") {
            let end = b[i + 2..].windows(2).position(|w| w == b"*/").map_or(b.len(), |e| i + e + 4);
            i = end;
            continue;
        }
        let len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + len]);
        i += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CONFIG: &str = "{\n  // the model\n  \"model\": \"local/m\",\n  \"provider\": {\"local\": {\"options\": {\"baseURL\": \"http://127.0.0.1:8080/v1\"}}},\n  \"zeta\": 1,\n  \"alpha\": [1, {\"x\": \"}\"}]\n}\n";

    #[test]
    fn a_value_is_replaced_and_nothing_else_moves() {
        let out =
            replace(CONFIG, &["provider", "local", "options", "baseURL"], &json!("http://127.0.0.1:7701/v1"))
                .expect("replace");
        assert_eq!(out, CONFIG.replace("127.0.0.1:8080", "127.0.0.1:7701"));
        assert!(replace(CONFIG, &["nope"], &json!(1)).is_err());
    }

    #[test]
    fn keys_are_added_after_the_last_member_and_removed_again() {
        let out = set(CONFIG, &["plugins", "entries"], "blindfold", &json!({"enabled": true})).expect("set");
        assert!(out.starts_with(&CONFIG[..CONFIG.len() - 3]), "the start is kept:\n{out}");
        assert!(
            out.contains(
                "  \"plugins\": {\n    \"entries\": {\n      \"blindfold\": {\n        \"enabled\": true"
            ),
            "{out}"
        );
        assert_eq!(
            get(&out, &["plugins", "entries", "blindfold", "enabled"]).expect("get"),
            Some(json!(true))
        );
        let back = remove(&out, &[], "plugins").expect("remove");
        assert_eq!(back, CONFIG);
        // Setting an existing key replaces its value in place.
        let again = set(CONFIG, &[], "zeta", &json!(2)).expect("set");
        assert_eq!(again, CONFIG.replace("\"zeta\": 1", "\"zeta\": 2"));
        assert_eq!(get(CONFIG, &["model"]).expect("get"), Some(json!("local/m")));
    }

    #[test]
    fn an_empty_object_gets_its_first_member() {
        let out = set("{}\n", &[], "a", &json!(1)).expect("set");
        assert_eq!(serde_json::from_str::<Value>(&out).expect("json"), json!({"a": 1}));
        assert_eq!(remove(&out, &[], "a").expect("remove").trim(), "{}");
    }
}
