//! The one-line form of a scope entry the CLI takes (`--scope 'write_file,edit_file:src/**'`):
//! `OPERATIONS:PATTERN`, operations comma-separated (or `*`), the pattern optionally prefixed
//! with its kind — `path=`, `command=`, `url=`, `host=`, `to=` (recipients, comma-separated).
//! Without a prefix the kind follows from the operations and the text: a shell tool's pattern is
//! a command, text with `://` a URL, anything else a path.

use blindfold_schemas::{ScopeEntry, TargetPattern};

/// Operation names whose bare pattern is a command.
pub const SHELL_OPERATIONS: &[&str] = &["bash", "shell", "sh", "exec", "run_command", "terminal"];

/// Parses one `--scope` value.
pub fn parse_scope_arg(text: &str) -> Result<ScopeEntry, String> {
    let (ops, pattern) = text.split_once(':').ok_or_else(|| {
        format!("--scope `{text}`: expected OPERATIONS:PATTERN (e.g. 'write_file,edit_file:src/**')")
    })?;
    let operations: Vec<String> =
        ops.split(',').map(str::trim).filter(|o| !o.is_empty()).map(str::to_owned).collect();
    if operations.is_empty() {
        return Err(format!("--scope `{text}`: name at least one operation before `:` (or `*`)"));
    }
    if pattern.is_empty() {
        return Err(format!("--scope `{text}`: the pattern after `:` is empty"));
    }
    let target = match pattern.split_once('=') {
        Some(("path", p)) => TargetPattern::Path(p.to_owned()),
        Some(("command", c)) => TargetPattern::Command(c.to_owned()),
        Some(("url", u)) => TargetPattern::Url(u.to_owned()),
        Some(("host", h)) => TargetPattern::Host(h.to_owned()),
        Some(("to", list)) => TargetPattern::Recipients(
            list.split(',').map(str::trim).filter(|r| !r.is_empty()).map(str::to_owned).collect(),
        ),
        _ if operations.iter().all(|o| SHELL_OPERATIONS.contains(&o.as_str())) => {
            TargetPattern::Command(pattern.to_owned())
        }
        _ if pattern.contains("://") => TargetPattern::Url(pattern.to_owned()),
        _ => TargetPattern::Path(pattern.to_owned()),
    };
    Ok(ScopeEntry { operations, targets: vec![target] })
}

/// Parses every `--scope` value; entries naming the same operations are merged (their patterns
/// are alternatives of one entry).
pub fn parse_scope_args(values: &[String]) -> Result<Vec<ScopeEntry>, String> {
    let mut out: Vec<ScopeEntry> = Vec::new();
    for v in values {
        let entry = parse_scope_arg(v)?;
        match out.iter_mut().find(|e| e.operations == entry.operations) {
            Some(e) => e.targets.extend(entry.targets),
            None => out.push(entry),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_prefixes_operations_and_text() {
        let e = parse_scope_arg("write_file,edit_file:src/**").expect("ok");
        assert_eq!(e.operations, ["write_file", "edit_file"]);
        assert_eq!(e.targets, [TargetPattern::Path("src/**".into())]);
        assert_eq!(
            parse_scope_arg("bash:cargo test*").expect("ok").targets,
            [TargetPattern::Command("cargo test*".into())]
        );
        assert_eq!(
            parse_scope_arg("http_post:https://api.example.com/v1/*").expect("ok").targets,
            [TargetPattern::Url("https://api.example.com/v1/*".into())]
        );
        assert_eq!(
            parse_scope_arg("web_fetch:host=*.docs.rs").expect("ok").targets,
            [TargetPattern::Host("*.docs.rs".into())]
        );
        assert_eq!(
            parse_scope_arg("send_email:to=a@x.example, b@y.example").expect("ok").targets,
            [TargetPattern::Recipients(vec!["a@x.example".into(), "b@y.example".into()])]
        );
        assert!(parse_scope_arg("src/**").is_err());
        assert!(parse_scope_arg(":src/**").is_err());
        assert!(parse_scope_arg("bash:").is_err());
    }

    #[test]
    fn same_operations_merge() {
        let v = parse_scope_args(&[
            "bash:cargo test*".into(),
            "bash:cargo build*".into(),
            "write_file:src/**".into(),
        ])
        .expect("ok");
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].targets.len(), 2);
    }
}
