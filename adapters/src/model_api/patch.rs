//! The text of an `apply_patch` call (`*** Begin Patch` … `*** End Patch`, the format Codex and
//! the Responses API's patch tool use), read as the file operations it performs, in the
//! registry's terms.

use serde_json::{Map, Value};

/// One file operation of a patch, as the registry's tool and its arguments.
pub(crate) type FileOperation = (&'static str, Map<String, Value>);

#[derive(Debug)]
enum Op {
    Add { path: String, body: String },
    Delete { path: String },
    Update { path: String, destination: Option<String>, body: String },
}

/// Every file operation of `text`, in order: `write_file {path, content}` for an added file,
/// `delete_file {path}`, `edit_file {path, content}` for an updated one (`content` is the file's
/// patch lines as written), then `move_file {path, destination}` when the update moves it. An
/// error when the text is not a complete patch, has a line outside any file, or touches no file.
pub(crate) fn file_operations(text: &str) -> Result<Vec<FileOperation>, String> {
    let mut lines = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.by_ref().find(|l| !l.trim().is_empty()).map(str::trim) != Some("*** Begin Patch") {
        return Err("the patch does not start with `*** Begin Patch`".into());
    }
    let mut ops: Vec<Op> = Vec::new();
    let mut ended = false;
    for line in lines.by_ref() {
        if line.trim() == "*** End Patch" {
            ended = true;
            break;
        }
        read_line(line, &mut ops)?;
    }
    if !ended {
        return Err("the patch does not end with `*** End Patch`".into());
    }
    if lines.any(|l| !l.trim().is_empty()) {
        return Err("text follows `*** End Patch`".into());
    }
    if ops.is_empty() {
        return Err("the patch touches no file".into());
    }
    Ok(ops.into_iter().flat_map(registry_calls).collect())
}

/// Reads one line between the patch's markers: a file header starts an operation, any other line
/// belongs to the file being added or updated.
fn read_line(line: &str, ops: &mut Vec<Op>) -> Result<(), String> {
    let header = |prefix: &str| line.strip_prefix(prefix).map(|p| p.trim().to_owned());
    if let Some(path) = header("*** Add File: ") {
        ops.push(Op::Add { path: non_empty(path)?, body: String::new() });
    } else if let Some(path) = header("*** Delete File: ") {
        ops.push(Op::Delete { path: non_empty(path)? });
    } else if let Some(path) = header("*** Update File: ") {
        ops.push(Op::Update { path: non_empty(path)?, destination: None, body: String::new() });
    } else if let Some(to) = header("*** Move to: ") {
        match ops.last_mut() {
            Some(Op::Update { destination: destination @ None, body, .. }) if body.is_empty() => {
                *destination = Some(non_empty(to)?);
            }
            _ => return Err("`*** Move to:` does not follow `*** Update File:`".into()),
        }
    } else {
        match ops.last_mut() {
            Some(Op::Add { body, .. } | Op::Update { body, .. }) => {
                body.push_str(line);
                body.push('\n');
            }
            _ => return Err(format!("a line outside any added or updated file: {line:?}")),
        }
    }
    Ok(())
}

fn non_empty(path: String) -> Result<String, String> {
    if path.is_empty() { Err("a file header names no path".into()) } else { Ok(path) }
}

fn registry_calls(op: Op) -> Vec<FileOperation> {
    let args = |pairs: &[(&str, &str)]| -> Map<String, Value> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), Value::String((*v).to_owned()))).collect()
    };
    match op {
        Op::Add { path, body } => vec![("write_file", args(&[("path", &path), ("content", &body)]))],
        Op::Delete { path } => vec![("delete_file", args(&[("path", &path)]))],
        Op::Update { path, destination, body } => {
            let mut out = vec![("edit_file", args(&[("path", &path), ("content", &body)]))];
            if let Some(to) = destination {
                out.push(("move_file", args(&[("path", &path), ("destination", &to)])));
            }
            out
        }
    }
}
