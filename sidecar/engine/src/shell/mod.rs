//! Shell commands: a quoting-aware tokenizer, whitespace normalisation for fingerprints, the
//! read-only classifier (SPEC §7 P2) and the resources a command names.
//!
//! The classifier accepts only commands it understands to be read-only; anything it cannot
//! parse, any output redirection, command substitution, pipe into a shell or interpreter, or
//! output-writing / code-running flag makes the command effectful (fail closed).

use crate::text::target::{Target, classify, normalise_path};

mod embedded;
mod shape;
mod tokens;
pub use embedded::{Setting, effectful_commands};
pub use shape::{SimpleCommand, simple_commands, single_simple_command};
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
        "rg" => !args.iter().any(|a| a.starts_with("--pre") && !a.starts_with("--pre-glob")),
        "less" | "more" => !args.iter().any(|a| pager_runs_or_writes(a)),
        "date" => !args.iter().any(|a| sets_the_clock(a)),
        "hostname" => args
            .iter()
            .all(|a| a.starts_with('-') && !matches!(*a, "-F" | "-b" | "--boot") && !a.starts_with("--file")),
        "file" => {
            !args.iter().any(|a| *a == "-C" || *a == "--compile" || (is_short_flags(a) && a.contains('C')))
        }
        e => READ_ONLY.contains(&e),
    }
}

/// A pager argument that runs commands (`+cmd` initial commands, which include `!` shell
/// escapes) or writes a log file (`-O`, `--log-file`, `--LOG-FILE`; `-o` is caught earlier).
fn pager_runs_or_writes(arg: &str) -> bool {
    arg.starts_with('+')
        || arg.starts_with("-O")
        || arg.to_ascii_lowercase().starts_with("--log-file")
        || (is_short_flags(arg) && arg.contains('O'))
}

/// A `date` argument that sets the system clock (`-s`, `--set`, `s` in a cluster of short flags
/// that take no value of their own).
fn sets_the_clock(arg: &str) -> bool {
    let takes_value = ["-I", "-d", "-f", "-r"].iter().any(|f| arg.starts_with(f));
    arg.starts_with("--set") || (is_short_flags(arg) && !takes_value && arg.contains('s'))
}

/// A cluster of short flags (`-abc`), not a long option or a lone dash.
fn is_short_flags(arg: &str) -> bool {
    arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--")
}

fn git_read_only(args: &[&str]) -> bool {
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        match a {
            "-c" | "--config-env" | "--exec-path" => return false,
            // Before the subcommand these run the pager, which the repository's own config
            // (`core.pager`, `pager.<cmd>`) may name: whatever command that is (after the
            // subcommand `-p` is `--patch`, a read).
            "-p" | "--paginate" => return false,
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
                        // `git grep -O<pager>` runs the pager named right after the flag.
                        || r.starts_with("-O")
                });
            }
        }
    }
    true
}

/// The resources a command names: every word after the executable (and after a `git`-style
/// subcommand) that classifies as a path, URL, host or address — plus `git push/pull/fetch`
/// remotes and refs. Redirection targets count too. A bare executable is not a target; one
/// given as a path (`./clean.sh`, `/tmp/clean.sh`) outside the system's program directories is
/// the script it runs, and is. After `cd DIR`, the relative paths and plain names the later
/// commands take are also resolved against `DIR` (`cd /srv && rm -rf releases` names
/// `/srv/releases`).
pub fn resources(cmd: &str) -> Vec<Target> {
    let toks =
        tokenize(cmd).unwrap_or_else(|| cmd.split_whitespace().map(|w| Tok::Word(w.to_owned())).collect());
    let mut out = Vec::new();
    let mut at_command_start = true;
    let mut simple: Vec<String> = Vec::new();
    let mut cwd: Option<String> = None;
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
            }
            Tok::Op(_) | Tok::Subst => {
                simple_command_resources(&simple, cwd.as_deref(), &mut out);
                cwd = next_cwd(&simple, cwd);
                simple.clear();
                at_command_start = true;
            }
        }
    }
    simple_command_resources(&simple, cwd.as_deref(), &mut out);
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

/// Directories whose programs are named, not written, by a task: running `/usr/bin/rm` is running
/// `rm`, a bare executable.
const PROGRAM_DIRS: &[&str] =
    &["/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/libexec"];

/// The resources one simple command (`words`: executable, then arguments) names, resolved
/// against `cwd` where a `cd` before it set one.
fn simple_command_resources(words: &[String], cwd: Option<&str>, out: &mut Vec<Target>) {
    let Some((exe, args)) = words.split_first() else { return };
    if let Some(script) = script_path(exe) {
        push_path(script, cwd, out);
    }
    let remote_cmd = base(exe) == "git"
        && args
            .iter()
            .find(|a| !a.starts_with('-'))
            .is_some_and(|s| matches!(s.as_str(), "push" | "pull" | "fetch" | "clone" | "remote"));
    let mut seen_sub = false;
    for a in args {
        let value = a.split_once('=').filter(|(k, _)| k.starts_with('-')).map_or(a.as_str(), |(_, v)| v);
        match classify(value) {
            Some(Target::Path(p)) => push_path(&p, cwd, out),
            Some(t) => {
                if let Target::Url(u) = &t
                    && let Some(h) = crate::text::target::host_of(u)
                {
                    out.push(Target::Host(h));
                }
                out.push(t);
            }
            None => {
                if remote_cmd && !value.starts_with('-') {
                    if seen_sub && value.len() >= 2 {
                        out.push(Target::Word(value.to_ascii_lowercase()));
                    }
                    seen_sub = true;
                }
                if let Some(dir) = cwd
                    && base(exe) != "cd"
                    && is_plain_name(value)
                {
                    out.push(Target::Path(format!("{dir}/{value}")));
                }
            }
        }
    }
}

/// The script an executable given as a path runs (`./clean.sh`, `/tmp/clean.sh`,
/// `scripts/x`); `None` for a bare name or a program of the system's program directories.
fn script_path(exe: &str) -> Option<&str> {
    if !exe.contains('/') {
        return None;
    }
    let dir = exe.rsplit_once('/').map_or("", |(d, _)| d);
    (!PROGRAM_DIRS.contains(&normalise_path(dir).as_str())).then_some(exe)
}

/// Pushes `path`, and where it is relative and a `cd` set `cwd`, the path it resolves to.
fn push_path(path: &str, cwd: Option<&str>, out: &mut Vec<Target>) {
    out.push(Target::Path(path.to_owned()));
    if let Some(dir) = cwd
        && !path.starts_with('/')
        && !path.starts_with('~')
    {
        out.push(Target::Path(format!("{dir}/{path}")));
    }
}

/// True for an argument a command may take as a file name in its working directory: not a
/// flag, an absolute or home path (those resolve by themselves), an assignment, a variable, or
/// text with whitespace.
fn is_plain_name(value: &str) -> bool {
    !value.is_empty()
        && !value.starts_with(['-', '~', '/'])
        && !value.contains(['=', '$'])
        && !value.contains(char::is_whitespace)
}

/// The working directory after the simple command `words`, given the one before it (`None`:
/// unknown): a `cd` to an absolute (or `~`) directory, or to a relative one from a known
/// directory, sets it; any other `cd` (`cd`, `cd -`, `cd "$DIR"`, relative from an unknown
/// directory) makes it unknown; any other command keeps it.
fn next_cwd(words: &[String], cwd: Option<String>) -> Option<String> {
    let Some((exe, args)) = words.split_first() else { return cwd };
    if exe != "cd" {
        return cwd;
    }
    let dir = args.iter().find(|a| !a.starts_with('-')).filter(|d| !d.contains('$'))?;
    if dir.starts_with('/') || dir.starts_with('~') {
        Some(normalise_path(dir))
    } else {
        cwd.map(|c| normalise_path(&format!("{c}/{dir}")))
    }
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
