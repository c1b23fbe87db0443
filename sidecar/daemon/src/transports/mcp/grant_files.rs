//! Grants on the trusted path for relays that run as their own process: token files in the
//! private state directory (`<state>/grants/*.jwt`) and `--grant-file`s, read before each
//! effectful decision. Only the operator can write there; a model never can. A grant that is
//! spent, revoked or expired leaves the grant cache (a later refusal names what is missing, not
//! a used-up grant), and a file in `<state>/grants/` all of whose grants are so is deleted;
//! `--grant-file`s are never touched. A relay deciding through a daemon has the daemon forget
//! such grants and prunes the same files.

use super::remote::RemoteControl;
use crate::runtime::app::App;
use crate::runtime::grant_standing::{Standing, standing};
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
        Self::in_dir(app.config.state_dir.join("grants"), extra)
    }

    /// Reads the grant directory `own_dir` (the only one pruned) plus the given files.
    pub fn in_dir(own_dir: PathBuf, extra: Vec<PathBuf>) -> Self {
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
        let (dead, alive): (Vec<Submitted>, Vec<Submitted>) = std::mem::take(&mut self.live)
            .into_iter()
            .partition(|s| standing(app, &s.jti, s.exp, s.max_uses, now) != Standing::Active);
        self.live = alive;
        for s in &dead {
            app.grants.remove(&s.jti);
        }
        self.remove_dead_files(&dead);
    }

    /// [`GrantFiles::refresh`] for a relay deciding through a daemon (`mcp-stdio --daemon`):
    /// the daemon forgets the submitted grants that can no longer allow anything (`grant.forget`,
    /// which judges that itself) and the files of `<state>/grants/` that held only such grants
    /// are deleted; then every token not seen yet is submitted to it. A daemon that cannot be
    /// asked prunes nothing.
    pub fn refresh_remote(&mut self, remote: &RemoteControl) {
        self.prune_remote(remote);
        for (file, token) in self.fresh_tokens() {
            match remote.submit_grant(&token) {
                Ok(r) if r["accepted"] == true => match submitted(file.clone(), &r) {
                    Some(s) => self.live.push(s),
                    None => eprintln!(
                        "blindfold: the daemon's answer for the grant in {} is unreadable",
                        file.display()
                    ),
                },
                Ok(r) => eprintln!("blindfold: grant in {} refused: {}", file.display(), r["reason"]),
                Err(e) => eprintln!("blindfold: grant in {} not submitted: {e}", file.display()),
            }
        }
    }

    fn prune_remote(&mut self, remote: &RemoteControl) {
        if self.live.is_empty() {
            return;
        }
        let jtis: Vec<String> = self.live.iter().map(|s| s.jti.clone()).collect();
        let answer = match remote.forget_grants(&jtis) {
            Ok(a) => a,
            Err(e) => {
                eprintln!(
                    "blindfold: spent grants not pruned: the daemon at {} could not be asked: {e}",
                    remote.url()
                );
                return;
            }
        };
        let gone: HashSet<&str> = answer["grants"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|g| g["status"].as_str().is_some_and(|s| s != Standing::Active.as_str()))
            .filter_map(|g| g["jti"].as_str())
            .collect();
        let (dead, alive): (Vec<Submitted>, Vec<Submitted>) =
            std::mem::take(&mut self.live).into_iter().partition(|s| gone.contains(s.jti.as_str()));
        self.live = alive;
        self.remove_dead_files(&dead);
    }

    /// Deletes each file of `<state>/grants/` among `dead`'s files that holds no live grant.
    fn remove_dead_files(&self, dead: &[Submitted]) {
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
    fn fresh_tokens(&mut self) -> Vec<(PathBuf, String)> {
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

/// A grant the daemon accepted (its `submit_grant` answer: `jti`, `exp`, `max_uses`).
fn submitted(file: PathBuf, answer: &serde_json::Value) -> Option<Submitted> {
    Some(Submitted {
        file,
        jti: answer["jti"].as_str()?.to_owned(),
        exp: answer["exp"].as_u64()?,
        max_uses: u32::try_from(answer["max_uses"].as_u64()?).ok()?,
    })
}
