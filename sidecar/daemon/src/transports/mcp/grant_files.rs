//! Grants on the trusted path for relays that run as their own process: token files in the
//! private state directory (`<state>/grants/*.jwt`) and `--grant-file`s, read before each
//! effectful decision. Only the operator can write there; a model never can.

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
    seen: HashSet<String>,
    /// Every source path and every file read last time, as they looked then: while none
    /// changed there is nothing new to read (one `stat` each instead of listing and reading).
    /// A change missed (same inode, time and length) can only leave a grant unseen: a denial.
    last: Vec<(PathBuf, Stamp)>,
}

impl GrantFiles {
    /// Reads `<state_dir>/grants/` plus the given files (a missing path is simply empty).
    pub fn new(app: &App, extra: Vec<PathBuf>) -> Self {
        let mut paths = vec![app.config.state_dir.join("grants")];
        paths.extend(extra);
        Self { paths, seen: HashSet::new(), last: Vec::new() }
    }

    /// Submits every token not seen yet (one per non-empty line); bad ones are reported on
    /// stderr and never retried.
    pub fn refresh(&mut self, app: &App) {
        let g = &app.config.grants;
        for (file, token) in self.fresh_tokens() {
            if let Err(d) = app.grants.submit(&token, &g.keys, g.policy, crate::unix_now()) {
                eprintln!("blindfold: grant in {} refused: {}", file.display(), d.reason);
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
