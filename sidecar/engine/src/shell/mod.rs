//! Shell commands: a quoting-aware tokenizer, whitespace normalisation for fingerprints, the
//! read-only classifier (SPEC §7 P2) and the resources a command names.
//!
//! The classifier accepts only commands it understands to be read-only; anything it cannot
//! parse, any output redirection, command substitution, pipe into a shell or interpreter, or
//! output-writing / code-running flag makes the command effectful (fail closed).

use crate::text::target::{Target, classify, normalise_path};

mod tokens;
pub use tokens::{Tok, min_normalised_len, normalise, tokenize};

/// Executables that only read (with the flag checks below).
const READ_ONLY: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "find",
    "pwd",
    "echo",
    "printf",
    "stat",
    "file",
    "du",
    "df",
    "tree",
    "diff",
    "which",
    "whoami",
    "date",
    "uname",
    "printenv",
    "sort",
    "uniq",
    "cut",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "jq",
    "nl",
    "less",
    "more",
    "id",
    "hostname",
    "true",
    "false",
    "test",
    "[",
    "column",
    "cmp",
    "comm",
    "od",
    "hexdump",
    "strings",
    "type",
];
/// `git` subcommands that only read.
const GIT_READ_ONLY: &[&str] =
    &["status", "log", "diff", "show", "ls-files", "rev-parse", "blame", "grep", "shortlog", "describe"];
/// Programs that execute what they are fed: a pipe into one makes a pipeline effectful.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node", "php", "xargs",
    "env", "sudo", "eval", "exec", "tee", "source", ".", "busybox", "nohup", "timeout", "nice",
];
/// `find` actions that write or run.
const FIND_EFFECTFUL: &[&str] =
    &["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];

/// True when `cmd` is read-only: every simple command is on the allowlist with no writing or
/// code-running flag, no output redirection (except to `/dev/null`), no command substitution.
pub fn is_read_only(cmd: &str) -> bool {
    let Some(toks) = tokenize(cmd) else { return false };
    if toks.iter().any(|t| matches!(t, Tok::Subst)) {
        return false;
    }
    let mut simple: Vec<&str> = Vec::new();
    let mut iter = toks.iter().peekable();
    while let Some(tok) = iter.next() {
        match tok {
            Tok::Word(w) => simple.push(w),
            Tok::Op(op) if op.contains('>') => {
                // Only `2>&1`-style duplication or a redirection into /dev/null is harmless.
                if op.ends_with('&') {
                    if !matches!(iter.next(), Some(Tok::Word(fd)) if fd.chars().all(|c| c.is_ascii_digit())) {
                        return false;
                    }
                } else if !matches!(iter.next(), Some(Tok::Word(f)) if f == "/dev/null") {
                    return false;
                }
            }
            Tok::Op(op) if op.starts_with('<') => {
                if op != "<" {
                    return false; // here-docs / here-strings feed code; keep it simple
                }
                iter.next();
            }
            Tok::Op(op) => {
                if !simple_is_read_only(&simple) {
                    return false;
                }
                simple.clear();
                if op == "|" || op == "|&" {
                    // A pipe into an interpreter runs whatever flows in.
                    if let Some(Tok::Word(next)) = iter.peek()
                        && INTERPRETERS.contains(&base(next))
                    {
                        return false;
                    }
                }
                if op == "&" || op == "(" || op == ")" {
                    return false;
                }
            }
            Tok::Subst => return false,
        }
    }
    simple_is_read_only(&simple)
}

fn base(exe: &str) -> &str {
    exe.rsplit('/').next().unwrap_or(exe)
}

fn simple_is_read_only(words: &[&str]) -> bool {
    let Some((exe, args)) = words.split_first() else { return true };
    if exe.contains('=') {
        return false; // VAR=value cmd: environment can change behaviour (GIT_EXTERNAL_DIFF, …)
    }
    let exe = base(exe);
    let writes_output = args.iter().any(|a| {
        *a == "-o"
            || *a == "--output"
            || a.starts_with("--output=")
            || (a.starts_with("-o") && a.len() > 2 && !a.starts_with("--"))
    });
    if writes_output {
        return false;
    }
    match exe {
        "git" => git_read_only(args),
        "find" => !args.iter().any(|a| FIND_EFFECTFUL.contains(a)),
        "sort" => !args.iter().any(|a| a.starts_with("--compress-program")),
        "uniq" => args.iter().filter(|a| !a.starts_with('-')).count() <= 1,
        "less" | "more" => true,
        e => READ_ONLY.contains(&e),
    }
}

fn git_read_only(args: &[&str]) -> bool {
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        match a {
            "-c" | "--config-env" | "--exec-path" => return false,
            "-C" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            a if a.starts_with("-c") || a.starts_with("--config-env") || a.starts_with("--exec-path=") => {
                return false;
            }
            a if a.starts_with('-') => i += 1,
            sub => {
                if !GIT_READ_ONLY.contains(&sub) {
                    return false;
                }
                let rest = &args[i + 1..];
                return !rest.iter().any(|r| {
                    r.starts_with("--ext-diff")
                        || r.starts_with("--output")
                        || r.starts_with("--textconv")
                        || *r == "-o"
                        || r.starts_with("--open-files-in-pager")
                        || *r == "-O"
                });
            }
        }
    }
    true
}

/// The resources a command names: every word after the executable (and after a `git`-style
/// subcommand) that classifies as a path, URL, host or address — plus `git push/pull/fetch`
/// remotes and refs. Redirection targets count too. The executable itself is not a target.
pub fn resources(cmd: &str) -> Vec<Target> {
    let toks =
        tokenize(cmd).unwrap_or_else(|| cmd.split_whitespace().map(|w| Tok::Word(w.to_owned())).collect());
    let mut out = Vec::new();
    let mut at_command_start = true;
    let mut simple: Vec<String> = Vec::new();
    let finish = |simple: &mut Vec<String>, out: &mut Vec<Target>| {
        if let Some((exe, args)) = simple.split_first() {
            let remote_cmd = base(exe) == "git"
                && args
                    .iter()
                    .find(|a| !a.starts_with('-'))
                    .is_some_and(|s| matches!(s.as_str(), "push" | "pull" | "fetch" | "clone" | "remote"));
            let mut seen_sub = false;
            for a in args {
                let value =
                    a.split_once('=').filter(|(k, _)| k.starts_with('-')).map_or(a.as_str(), |(_, v)| v);
                if let Some(t) = classify(value) {
                    out.push(t.clone());
                    if let Target::Url(u) = &t
                        && let Some(h) = crate::text::target::host_of(u)
                    {
                        out.push(Target::Host(h));
                    }
                } else if remote_cmd && !value.starts_with('-') {
                    if seen_sub && value.len() >= 2 {
                        out.push(Target::Word(value.to_ascii_lowercase()));
                    }
                    seen_sub = true;
                }
            }
        }
        simple.clear();
    };
    for tok in toks {
        match tok {
            Tok::Word(w) => {
                if at_command_start && w.contains('=') && !w.starts_with('=') {
                    // An assignment prefix: its value may name a resource.
                    if let Some((_, v)) = w.split_once('=')
                        && let Some(t) = classify(v)
                    {
                        out.push(t);
                    }
                    continue;
                }
                at_command_start = false;
                simple.push(w);
            }
            Tok::Op(op) if op.contains('>') || op.starts_with('<') => {
                // Keep collecting: the redirection's file is classified as an argument.
                simple.push(String::new());
                let _ = op;
            }
            Tok::Op(_) | Tok::Subst => {
                finish(&mut simple, &mut out);
                at_command_start = true;
            }
        }
    }
    finish(&mut simple, &mut out);
    // A script run by path (`./x.sh`, `sh /tmp/x.sh`) is a resource too; classify got it.
    out.retain(|t| !matches!(t, Target::Path(p) if p.is_empty()));
    for t in &mut out {
        if let Target::Path(p) = t {
            *p = normalise_path(p);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The executables a command runs (for tool-level disputes such as "never use curl at all").
pub fn executables(cmd: &str) -> Vec<String> {
    let Some(toks) = tokenize(cmd) else { return Vec::new() };
    let mut out = Vec::new();
    let mut start = true;
    for tok in toks {
        match tok {
            Tok::Word(w) if start && !w.contains('=') => {
                out.push(base(&w).to_owned());
                start = false;
            }
            Tok::Word(_) => {}
            Tok::Op(op) if op.contains('>') || op.starts_with('<') => {}
            Tok::Op(_) | Tok::Subst => start = true,
        }
    }
    out
}

#[cfg(test)]
mod tests;
