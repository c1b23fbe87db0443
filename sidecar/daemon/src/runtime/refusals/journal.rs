//! The refusals' journal: `<state>/refusals.jsonl` (0600), one line per refused call, appended
//! as it is noted and read back at start, so `blindfold why <id>` after a restart prints the
//! same refusal and the same grant command. Bounded: it is compacted to the last [`KEEP`]
//! refusals when it holds twice as many, and only the newest [`DISK_BYTES`] of refused bytes are
//! kept (older refusals keep their digest). Each line is `<sha256 of the JSON> <JSON>`: a line
//! that does not match its digest, or does not parse, makes the whole file untrusted — it is
//! moved aside and the daemon starts with no refusals (a warning, never a wrong refusal shown);
//! a torn last line (a write cut short) is dropped alone. Appends reach the operating system
//! before `note` returns (a daemon restart or crash loses none; a power cut may lose the last).
//!
//! Local to each daemon, also with `[state] backend = "redis"`: a refusal id is answered by the
//! daemon that refused the call, as the model was told it.

use super::{KEEP, Refused};
use crate::runtime::state::write_private_file;
use base64::Engine as _;
use blindfold_engine::DerivedAction;
use blindfold_engine::canonical::sha256_hex;
use blindfold_schemas::{Decision, Effect};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The journal's file name in the state directory.
pub const FILE: &str = "refusals.jsonl";
/// Refused bytes the journal keeps in all (the newest refusals' first): older refusals keep
/// their digest only.
pub const DISK_BYTES: usize = 64 << 20;
/// About what a compacted file holds at most: the bytes in base64 and [`KEEP`] lines of text.
const FILE_BYTES: usize = DISK_BYTES / 3 * 4 + KEEP * 4096;

/// One kept refusal and the fingerprint of its call.
pub type Entry = (Refused, Option<String>);

/// One line's record (the artifact in base64).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    v: u8,
    id: String,
    ts: u64,
    trajectory: String,
    actor: String,
    tool: String,
    effect: Effect,
    operation: String,
    target: String,
    artifact: String,
    artifact_len: usize,
    artifact_sha256: String,
    args: serde_json::Map<String, serde_json::Value>,
    unknown: bool,
    decision: Decision,
    review_id: Option<String>,
    fingerprint: Option<String>,
}

/// The append-only file and what it holds now.
pub struct Journal {
    path: PathBuf,
    open: Mutex<Appender>,
}

#[derive(Default)]
struct Appender {
    file: Option<std::fs::File>,
    lines: usize,
    bytes: usize,
    /// A write failed: warned once, tried again at the next refusal.
    failing: bool,
}

impl Journal {
    /// Opens the journal in `state_dir` and reads back what it kept (oldest first, at most
    /// [`KEEP`]). Never fails: what cannot be read is a warning and an empty list.
    pub fn open(state_dir: &Path) -> (Self, Vec<Entry>) {
        let path = state_dir.join(FILE);
        let journal = Self { path, open: Mutex::default() };
        let (entries, rewrite) = journal.load();
        if rewrite {
            journal.rewrite(&entries);
        }
        (journal, entries)
    }

    /// The kept refusals and whether the file must be rewritten (a torn tail, too many lines).
    fn load(&self) -> (Vec<Entry>, bool) {
        let raw = match std::fs::read(&self.path) {
            Ok(raw) => raw,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Vec::new(), false),
            Err(e) => {
                tracing::warn!(file = %self.path.display(), "refusals journal unreadable ({e}): no refusal from before this start is kept");
                return (Vec::new(), false);
            }
        };
        let (entries, torn, over) = match parse(&raw) {
            Ok(parsed) => parsed,
            Err(why) => {
                let aside = self.path.with_extension("jsonl.corrupt");
                let moved = std::fs::rename(&self.path, &aside).map(|()| aside.display().to_string());
                tracing::warn!(
                    file = %self.path.display(),
                    moved_to = %moved.unwrap_or_else(|e| format!("(not moved: {e})")),
                    "refusals journal corrupt ({why}): no refusal from before this start is kept"
                );
                return (Vec::new(), true);
            }
        };
        if torn {
            tracing::warn!(file = %self.path.display(), "refusals journal ended in a torn line: dropped");
        }
        if let Ok(mut open) = self.open.lock() {
            open.lines = entries.len();
            open.bytes = raw.len();
        }
        (entries, torn || over)
    }

    /// Appends `r` (its call's `fingerprint`); true when the file has grown to twice its bound
    /// and should be compacted ([`Self::compact`]). A failure is a warning (the refusal stays in
    /// memory).
    pub fn append(&self, r: &Refused, fingerprint: Option<&str>) -> bool {
        let mut line = render(r, fingerprint, true);
        line.push('\n');
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let written = match open.file.take() {
            Some(f) => Ok(f),
            None => append_handle(&self.path),
        }
        .and_then(|mut f| f.write_all(line.as_bytes()).map(|()| f));
        match written {
            Ok(f) => {
                open.file = Some(f);
                open.lines += 1;
                open.bytes += line.len();
                open.failing = false;
            }
            Err(e) => {
                if !open.failing {
                    tracing::warn!(file = %self.path.display(), "refusal not journaled ({e}): `blindfold why` loses it at a restart");
                }
                open.failing = true;
            }
        }
        open.lines > 2 * KEEP || open.bytes > 2 * FILE_BYTES
    }

    fn rewrite(&self, entries: &[Entry]) {
        self.compact(entries.iter().map(|(r, fp)| (r, fp.as_deref())).collect());
    }

    /// Replaces the file with `entries` (oldest first; bytes kept for the newest within
    /// [`DISK_BYTES`]), written aside and renamed into place.
    pub fn compact(&self, entries: Vec<(&Refused, Option<&str>)>) {
        let mut budget = DISK_BYTES;
        let mut lines: Vec<String> = entries
            .iter()
            .rev()
            .map(|(r, fp)| {
                let keep = r.action.artifact.len() <= budget;
                if keep {
                    budget -= r.action.artifact.len();
                }
                render(r, *fp, keep)
            })
            .collect();
        lines.reverse();
        let mut text = lines.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        open.file = None;
        let tmp = self.path.with_extension("jsonl.tmp");
        let placed =
            write_private_file(&tmp, text.as_bytes()).and_then(|()| std::fs::rename(&tmp, &self.path));
        match placed {
            Ok(()) => (open.lines, open.bytes) = (lines.len(), text.len()),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                tracing::warn!(file = %self.path.display(), "refusals journal not compacted ({e})");
            }
        }
    }
}

/// The append handle: created 0600, an existing file made 0600.
fn append_handle(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let f = std::fs::OpenOptions::new().append(true).create(true).mode(0o600).open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(f)
}

/// `<sha256> <json>` of one refusal (its bytes left out unless `with_bytes`).
fn render(r: &Refused, fingerprint: Option<&str>, with_bytes: bool) -> String {
    let bytes: &[u8] = if with_bytes { &r.action.artifact } else { &[] };
    let line = Line {
        v: 1,
        id: r.id.clone(),
        ts: r.ts,
        trajectory: r.trajectory.clone(),
        actor: r.actor.clone(),
        tool: r.tool.clone(),
        effect: r.action.effect,
        operation: r.action.operation.clone(),
        target: r.action.target.clone(),
        artifact: base64::engine::general_purpose::STANDARD.encode(bytes),
        artifact_len: r.artifact_len,
        artifact_sha256: r.artifact_sha256.clone(),
        args: r.action.args.clone(),
        unknown: r.action.unknown,
        decision: r.decision.clone(),
        review_id: r.review_id.clone(),
        fingerprint: fingerprint.map(str::to_owned),
    };
    // A record of strings, numbers and a decision always serialises.
    let json = serde_json::to_string(&line).unwrap_or_default();
    format!("{} {json}", sha256_hex(json.as_bytes()))
}

/// The last [`KEEP`] entries of a journal file, whether its last line was torn and whether it
/// held more; an error names the first line that cannot be trusted.
fn parse(raw: &[u8]) -> Result<(Vec<Entry>, bool, bool), String> {
    let mut chunks: Vec<&[u8]> = raw.split(|b| *b == b'\n').collect();
    // The text after the last newline: empty, or a line whose write was cut short.
    let tail = chunks.pop().unwrap_or_default();
    let mut out: VecDeque<Entry> = VecDeque::new();
    for (n, chunk) in chunks.iter().enumerate() {
        let entry = entry_of(chunk).map_err(|e| format!("line {}: {e}", n + 1))?;
        if out.len() == KEEP {
            out.pop_front();
        }
        out.push_back(entry);
    }
    Ok((out.into(), !tail.is_empty(), chunks.len() > KEEP))
}

fn entry_of(chunk: &[u8]) -> Result<Entry, String> {
    let text = std::str::from_utf8(chunk).map_err(|_| "not UTF-8".to_owned())?;
    let (digest, json) = text.split_once(' ').ok_or("no digest")?;
    if sha256_hex(json.as_bytes()) != digest {
        return Err("its digest does not match".into());
    }
    let l: Line = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let artifact =
        base64::engine::general_purpose::STANDARD.decode(&l.artifact).map_err(|e| e.to_string())?;
    let id_ok =
        l.id.strip_prefix("rf-").is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    let whole = artifact.len() == l.artifact_len;
    if l.v != 1
        || !id_ok
        || artifact.len() > l.artifact_len
        || (whole && sha256_hex(&artifact) != l.artifact_sha256)
    {
        return Err(format!("refusal {} is not consistent", l.id));
    }
    let action = DerivedAction {
        effect: l.effect,
        operation: l.operation,
        target: l.target,
        artifact,
        args: l.args,
        unknown: l.unknown,
    };
    let r = Refused {
        id: l.id,
        ts: l.ts,
        trajectory: l.trajectory,
        actor: l.actor,
        tool: l.tool,
        action,
        artifact_len: l.artifact_len,
        artifact_sha256: l.artifact_sha256,
        decision: l.decision,
        review_id: l.review_id,
    };
    Ok((r, l.fingerprint))
}
