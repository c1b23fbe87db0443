//! Grants on the trusted path for relays that run as their own process: token files in the
//! private state directory (`<state>/grants/*.jwt`) and `--grant-file`s, read before each
//! effectful decision. Only the operator can write there; a model never can. A grant that is
//! spent, revoked or expired leaves the grant cache (a later refusal names what is missing, not
//! a used-up grant), and a file in `<state>/grants/` all of whose grants are so is deleted;
//! `--grant-file`s are never touched.

use crate::runtime::app::App;
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What a path looked like: inode, modification time (ns) and length; `None` when missing.
type Stamp = Option<(u64, i64, i64, u64)>;

fn stamp(path: &Path) -> Stamp {
    std::fs::metadata(path).ok().map(|m| (m.ino(), m.mtime(), m.mtime_nsec(), m.len()))
}

/// Sources of grant tokens and the ones already submitted.
pub struct GrantFiles {
    paths: Vec<PathBuf>,
    /// `<state>/grants/`: the only place files are pruned from.
    own_dir: PathBuf,
    seen: HashSet<String>,
    /// The grants submitted from the files and still alive.
    live: Vec<Submitted>,
    /// Every source path and every file read last time, as they looked then: while none
    /// changed there is nothing new to read (one `stat` each instead of listing and reading).
    /// A change missed (same inode, time and length) can only leave a grant unseen: a denial.
    last: Vec<(PathBuf, Stamp)>,
}

impl GrantFiles {
    /// Reads `<state_dir>/grants/` plus the given files (a missing path is simply empty).
    pub fn new(app: &App, extra: Vec<PathBuf>) -> Self {
        let own_dir = app.config.state_dir.join("grants");
        let mut paths = vec![own_dir.clone()];
        paths.extend(extra);
        Self { paths, own_dir, seen: HashSet::new(), live: Vec::new(), last: Vec::new() }
    }

    /// Prunes what is spent, then submits every token not seen yet (one per non-empty line);
    /// bad ones are reported on stderr and never retried.
    pub fn refresh(&mut self, app: &App) {
        self.prune(app);
        let g = &app.config.grants;
        for (file, token) in self.fresh_tokens() {
            match app.grants.submit(&token, &g.keys, g.policy, crate::unix_now()) {
                Ok(claims) => self.live.push(Submitted {
                    file,
                    jti: claims.jti().to_owned(),
                    exp: claims.exp(),
                    max_uses: claims.uses_allowed(),
                }),
                Err(d) => eprintln!("blindfold: grant in {} refused: {}", file.display(), d.reason),
            }
        }
    }

    /// Drops the submitted grants that can no longer allow anything (every use spent, revoked,
    /// expired) from the cache, and deletes the files of `<state>/grants/` that held only such
    /// grants.
    fn prune(&mut self, app: &App) {
        let now = crate::unix_now();
        let leeway = app.config.grants.policy.leeway_s;
        let (dead, alive): (Vec<Submitted>, Vec<Submitted>) =
            std::mem::take(&mut self.live).into_iter().partition(|s| s.is_dead(app, now, leeway));
        self.live = alive;
        for s in &dead {
            app.grants.remove(&s.jti);
        }
        let mut files: Vec<&PathBuf> = dead.iter().map(|s| &s.file).collect();
        files.sort();
        files.dedup();
        for file in files {
            let in_own_dir = file.parent() == Some(self.own_dir.as_path());
            if in_own_dir && !self.live.iter().any(|s| &s.file == file) && std::fs::remove_file(file).is_ok()
            {
                tracing::info!(file = %file.display(), "spent or expired grant file removed");
            }
        }
    }

    /// Every token not seen yet, with the file it is in (each is returned once).
    pub fn fresh_tokens(&mut self) -> Vec<(PathBuf, String)> {
        if !self.last.is_empty() && self.last.iter().all(|(p, s)| stamp(p) == *s) {
            return Vec::new();
        }
        let mut files = Vec::new();
        for p in &self.paths {
            if p.is_dir() {
                if let Ok(entries) = std::fs::read_dir(p) {
                    let mut found: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                    found.sort();
                    files.extend(found.into_iter().filter(|f| f.is_file()));
                }
            } else if p.is_file() {
                files.push(p.clone());
            }
        }
        // Stamped before reading: a write racing the read shows as a change next time.
        self.last = self.paths.iter().chain(&files).map(|p| (p.clone(), stamp(p))).collect();
        let mut fresh = Vec::new();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            for token in text.lines().map(str::trim).filter(|t| !t.is_empty()) {
                if self.seen.insert(token.to_owned()) {
                    fresh.push((file.clone(), token.to_owned()));
                }
            }
        }
        fresh
    }
}

/// A grant submitted from a file.
struct Submitted {
    file: PathBuf,
    jti: String,
    exp: u64,
    max_uses: u32,
}

impl Submitted {
    /// True when the grant can no longer allow anything: expired, or (asked without taking a
    /// use) every use spent or revoked. A store that cannot answer keeps it: a grant kept in the
    /// cache is still checked in full at each decision.
    fn is_dead(&self, app: &App, now: u64, leeway: u64) -> bool {
        use blindfold_engine::grants::ConsumeOutcome;
        if self.exp.saturating_add(leeway) <= now {
            return true;
        }
        let keep_until = self.exp.saturating_add(leeway);
        // The cache knows the revocation key (issuer key, task, version); a grant it no longer
        // holds allows nothing here either.
        let Some((kid, task_id, version)) = app.grants.grant_ref(&self.jti) else { return true };
        let grant =
            blindfold_engine::grants::GrantRef { jti: &self.jti, kid: &kid, task_id: &task_id, version };
        matches!(
            app.store.consume(&grant, self.max_uses, keep_until, now, true),
            Ok(ConsumeOutcome::Replayed | ConsumeOutcome::Revoked)
        )
    }
}
