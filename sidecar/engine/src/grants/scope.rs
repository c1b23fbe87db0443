//! A scoped grant's scope, compiled once when the grant is submitted (globs built into
//! matchers) and matched against each call's [`ActionFacts`].

use super::facts::{ActionFacts, Resource};
use super::paths::PathFact;
use blindfold_schemas::{Reason, ScopeEntry, ScopedGrantClaims, TargetPattern};
use globset::{Glob, GlobBuilder, GlobMatcher};

/// A scope that cannot be compiled (a bad glob, a path outside the workspace, a URL without a
/// literal scheme and host): the grant is refused when submitted or issued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("scope[{entry}]: {message}")]
pub struct ScopeError {
    /// Index of the entry.
    pub entry: usize,
    /// What is wrong.
    pub message: String,
}

/// One compiled pattern: its matcher, whether it is literal (no wildcard), and its text.
#[derive(Debug, Clone)]
struct Pattern {
    matcher: GlobMatcher,
    literal: bool,
}

impl Pattern {
    fn new(text: &str, crosses_slash: bool) -> Result<Self, String> {
        let glob: Glob = GlobBuilder::new(text)
            .literal_separator(!crosses_slash)
            .backslash_escape(true)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self { matcher: glob.compile_matcher(), literal: !text.contains(['*', '?', '[', '{', '\\']) })
    }
}

#[derive(Debug, Clone, Default)]
struct CompiledEntry {
    /// Named operations; `any` when the entry lists `*`.
    operations: Vec<String>,
    any: bool,
    paths: Vec<Pattern>,
    commands: Vec<Pattern>,
    urls: Vec<Pattern>,
    hosts: Vec<Pattern>,
    recipients: Vec<String>,
}

/// How one entry covers one resource.
enum Cover {
    /// By a pattern without wildcards (or a listed recipient).
    Literal,
    /// Only by a wildcard pattern.
    Wildcard,
    /// Not at all, with the refusal.
    No(Reason, String),
}

/// A scope ready to match: every glob compiled.
#[derive(Debug, Clone)]
pub struct CompiledScope {
    entries: Vec<CompiledEntry>,
    /// The scope as text, for refusals and listings.
    shown: String,
}

impl CompiledScope {
    /// Compiles the scope of `claims`.
    pub fn compile(claims: &ScopedGrantClaims) -> Result<Self, ScopeError> {
        if claims.scope.is_empty() {
            return Err(ScopeError { entry: 0, message: "a scoped grant needs at least one entry".into() });
        }
        let entries = claims
            .scope
            .iter()
            .enumerate()
            .map(|(i, e)| compile_entry(e).map_err(|message| ScopeError { entry: i, message }))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { entries, shown: describe(&claims.scope) })
    }

    /// The scope as text (`write_file,edit_file: path src/**; bash: command cargo test*`).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// `None` when the call of `operation` with `facts` is inside the scope; otherwise the
    /// reason and refusal of the closest entry.
    pub fn first_failure(&self, operation: &str, facts: &ActionFacts) -> Option<(Reason, String)> {
        let mut best: Option<(u8, Reason, String)> = None;
        for entry in self.entries.iter().filter(|e| e.any || e.operations.iter().any(|o| o == operation)) {
            let named = entry.operations.iter().any(|o| o == operation);
            match self.entry_failure(entry, named, operation, facts) {
                None => return None,
                Some((reason, detail)) => {
                    let rank = rank(reason);
                    if best.as_ref().is_none_or(|(r, ..)| rank > *r) {
                        best = Some((rank, reason, detail));
                    }
                }
            }
        }
        Some(match best {
            Some((_, reason, detail)) => (reason, detail),
            None => (
                Reason::OperationDenied,
                format!("the grant's scope ({}) does not list operation `{operation}`", self.shown),
            ),
        })
    }

    fn entry_failure(
        &self,
        entry: &CompiledEntry,
        named: bool,
        operation: &str,
        facts: &ActionFacts,
    ) -> Option<(Reason, String)> {
        let mut all_literal = named;
        for resource in &facts.resources {
            match cover(entry, resource, facts) {
                Cover::Literal => {}
                Cover::Wildcard => all_literal = false,
                Cover::No(reason, why) => {
                    return Some((reason, format!("{why}, outside the grant's scope ({})", self.shown)));
                }
            }
        }
        match &facts.critical {
            Some(why) if !all_literal => Some((
                Reason::CriticalAction,
                format!(
                    "this action is critical ({why}): a scope covers it only with an entry that names \
                     `{operation}` and exactly this target, without wildcards; this grant's scope is {}",
                    self.shown
                ),
            )),
            _ => None,
        }
    }
}

/// Later in the order = closer to fitting.
fn rank(reason: Reason) -> u8 {
    match reason {
        Reason::TargetDenied => 1,
        Reason::PathEscapes => 2,
        Reason::CriticalAction => 3,
        _ => 0,
    }
}

fn cover(entry: &CompiledEntry, resource: &Resource, facts: &ActionFacts) -> Cover {
    let outside = |what: String| Cover::No(Reason::TargetDenied, what);
    match resource {
        Resource::Path(p) if !entry.paths.is_empty() => cover_path(&entry.paths, p, facts),
        // A command's working directory: inside the workspace (as written and as it lands).
        Resource::Path(p) if !entry.commands.is_empty() => {
            let inside = p.lexical_in(&facts.root).is_some()
                && (!facts.root.visible() || p.real_in(&facts.root).is_some());
            if inside {
                Cover::Literal
            } else {
                outside(format!("`{}` lies outside the workspace", p.written))
            }
        }
        Resource::Path(p) => outside(format!("path `{}` is not covered by a path pattern", p.written)),
        Resource::Command { written, simple } => match simple {
            None => outside(format!(
                "`{written}` is more than one simple command (operators, redirections, substitutions, \
                 variables or a second command), which no command pattern covers"
            )),
            Some(sc) => best(entry.commands.iter().filter(|p| p.matcher.is_match(&sc.text)))
                .unwrap_or_else(|| outside(format!("command `{}` matches no command pattern", sc.text))),
        },
        Resource::Url(u) => {
            // Only a URL every client reads the same way (no userinfo, no backslash) is matched.
            let Some(host) = crate::text::target::unambiguous_http_host(u) else {
                return outside(format!("URL `{u}` can be read as more than one host"));
            };
            let by_url = best(entry.urls.iter().filter(|p| p.matcher.is_match(u)));
            let by_host = best(entry.hosts.iter().filter(|p| p.matcher.is_match(&host)));
            by_url
                .or(by_host.map(|_| Cover::Wildcard))
                .unwrap_or_else(|| outside(format!("URL `{u}` matches no URL or host pattern")))
        }
        Resource::Host(h) => best(entry.hosts.iter().filter(|p| p.matcher.is_match(h)))
            .unwrap_or_else(|| outside(format!("host `{h}` matches no host pattern"))),
        Resource::Recipient(r) => {
            if entry.recipients.iter().any(|x| x == r) {
                Cover::Literal
            } else {
                outside(format!("recipient `{r}` is not listed"))
            }
        }
        Resource::Other(v) => outside(format!("target `{v}` is not a path, command, URL, host or recipient")),
    }
}

/// The path as written must match, and where Blindfold sees the file system, the path it lands
/// on too (symbolic links resolved at this moment).
fn cover_path(patterns: &[Pattern], p: &PathFact, facts: &ActionFacts) -> Cover {
    let Some(lexical) = p.lexical_in(&facts.root) else {
        return Cover::No(Reason::TargetDenied, format!("`{}` lies outside the workspace", p.written));
    };
    let Some(by_text) = best(patterns.iter().filter(|x| x.matcher.is_match(&lexical))) else {
        return Cover::No(Reason::TargetDenied, format!("`{}` matches no path pattern", p.written));
    };
    if !facts.root.visible() {
        return by_text;
    }
    let landed =
        p.real_in(&facts.root).and_then(|real| best(patterns.iter().filter(|x| x.matcher.is_match(&real))));
    match landed {
        Some(Cover::Literal) if matches!(by_text, Cover::Literal) => Cover::Literal,
        Some(_) => Cover::Wildcard,
        None => Cover::No(
            Reason::PathEscapes,
            format!("`{}` resolves (symbolic links followed) to `{}`", p.written, p.landing()),
        ),
    }
}

/// `Literal` when a literal pattern is among `matched`, `Wildcard` when only wildcards are.
fn best<'a>(matched: impl Iterator<Item = &'a Pattern>) -> Option<Cover> {
    let mut found = None;
    for p in matched {
        if p.literal {
            return Some(Cover::Literal);
        }
        found = Some(Cover::Wildcard);
    }
    found
}

fn compile_entry(e: &ScopeEntry) -> Result<CompiledEntry, String> {
    if e.operations.is_empty() || e.operations.iter().any(|o| o.trim().is_empty()) {
        return Err("`operations` must name at least one operation (or `*`)".into());
    }
    let mut out = CompiledEntry {
        any: e.operations.iter().any(|o| o == "*"),
        operations: e.operations.iter().filter(|o| *o != "*").cloned().collect(),
        ..CompiledEntry::default()
    };
    for t in &e.targets {
        match t {
            TargetPattern::Path(p) => out.paths.push(Pattern::new(&check_path_pattern(p)?, false)?),
            TargetPattern::Command(c) if !c.trim().is_empty() => {
                out.commands.push(Pattern::new(&crate::shell::normalise(c), true)?);
            }
            TargetPattern::Url(u) => out.urls.push(Pattern::new(&check_url_pattern(u)?, true)?),
            TargetPattern::Host(h) if !h.is_empty() && !h.contains('/') => {
                out.hosts.push(Pattern::new(&h.to_ascii_lowercase(), true)?);
            }
            TargetPattern::Recipients(list) if !list.is_empty() && list.iter().all(|r| r.contains('@')) => {
                out.recipients.extend(list.iter().map(|r| r.trim().to_ascii_lowercase()));
            }
            other => return Err(format!("empty or malformed target pattern {other:?}")),
        }
    }
    Ok(out)
}

/// A path pattern is rooted in the workspace: relative, without `.` or `..` components.
fn check_path_pattern(p: &str) -> Result<String, String> {
    let p = p.trim_start_matches("./");
    if p.is_empty() || p.starts_with(['/', '~']) || p.split('/').any(|c| c == ".." || c == ".") {
        return Err(format!("path pattern `{p}` must be relative to the workspace, without `.` or `..`"));
    }
    Ok(p.trim_end_matches('/').to_owned())
}

/// A URL pattern starts with a literal `scheme://host/` (so `*` can never reach another host).
fn check_url_pattern(u: &str) -> Result<String, String> {
    let (scheme, rest) = u.split_once("://").ok_or_else(|| format!("URL pattern `{u}` needs a scheme"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    let wild = |s: &str| s.contains(['*', '?', '[', '{', '\\', '@']);
    if scheme.is_empty() || wild(scheme) || authority.is_empty() || wild(authority) || !rest.contains('/') {
        return Err(format!(
            "URL pattern `{u}` must start with a literal scheme and host and a `/` (use a host pattern for hosts)"
        ));
    }
    Ok(format!("{}://{}", scheme.to_ascii_lowercase(), lower_authority(rest)))
}

fn lower_authority(rest: &str) -> String {
    match rest.split_once('/') {
        Some((a, path)) => format!("{}/{path}", a.to_ascii_lowercase()),
        None => rest.to_ascii_lowercase(),
    }
}

/// The scope as one line of text.
pub fn describe(scope: &[ScopeEntry]) -> String {
    scope
        .iter()
        .map(|e| {
            let targets: Vec<String> = e
                .targets
                .iter()
                .map(|t| match t {
                    TargetPattern::Path(p) => format!("path {p}"),
                    TargetPattern::Command(c) => format!("command {c}"),
                    TargetPattern::Url(u) => format!("url {u}"),
                    TargetPattern::Host(h) => format!("host {h}"),
                    TargetPattern::Recipients(r) => format!("to {}", r.join(",")),
                })
                .collect();
            format!("{}: {}", e.operations.join(","), targets.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
