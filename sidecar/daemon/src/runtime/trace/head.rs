//! The head of a trace directory's chain: the `seq` and line hash of the last record written,
//! kept in its own file beside the trace files. The chain shows a changed, inserted or removed
//! record, but records cut off the end of the newest file leave a shorter chain that is still
//! whole; only something outside the chain remembers where it ended.
//!
//! The head file has one fixed length, so the writer overwrites it in place with one positioned
//! write per batch (no truncation, no rename, no fsync of its own), after the batch itself.

use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The head's file name in a trace directory (not a trace file: `trace_files` skips it).
pub const HEAD_FILE: &str = "head.json";
/// Bytes of a head file: its JSON padded with spaces, then a newline.
const HEAD_LEN: usize = 128;

/// Where a trace directory's chain ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainHead {
    /// `seq` of the last record written.
    pub seq: u64,
    /// Line hash of that record (lowercase hex SHA-256).
    pub hash: String,
}

impl ChainHead {
    /// The head as its file's bytes: exactly [`HEAD_LEN`] of them.
    fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
        let mut out = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        if out.len() >= HEAD_LEN {
            return Err(std::io::Error::other("trace head longer than its file"));
        }
        out.resize(HEAD_LEN - 1, b' ');
        out.push(b'\n');
        Ok(out)
    }

    fn is_well_formed(&self) -> bool {
        self.hash.len() == 64 && self.hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }
}

/// The head file's path in `dir`.
pub fn head_path(dir: &Path) -> PathBuf {
    dir.join(HEAD_FILE)
}

/// Reads the head of the trace directory `dir`: `Ok(None)` when it has none (a directory written
/// before heads were kept, or holding no record yet, or a head file opened and never stored);
/// an error when the file cannot be read or does not hold a head.
pub fn read_head(dir: &Path) -> std::io::Result<Option<ChainHead>> {
    let bytes = match std::fs::read(head_path(dir)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // Opened and sized but never stored: a writer stopped before its first batch (a relay killed
    // at once) leaves zeros. That is no head, as a missing file is none — not a broken one.
    if bytes.iter().all(|&b| b == 0) {
        return Ok(None);
    }
    let head: ChainHead = serde_json::from_slice(&bytes).map_err(|e| unreadable(dir, &e.to_string()))?;
    if !head.is_well_formed() {
        return Err(unreadable(dir, "the hash is not 64 lowercase hex digits"));
    }
    Ok(Some(head))
}

fn unreadable(dir: &Path, why: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("{} does not hold a trace head: {why}", head_path(dir).display()),
    )
}

/// The writer's handle on a directory's head file.
pub struct HeadFile {
    file: File,
}

impl HeadFile {
    /// Opens (creating 0600) the head file of `dir` for [`HeadFile::store`].
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        let file =
            OpenOptions::new().create(true).truncate(false).write(true).mode(0o600).open(head_path(dir))?;
        file.set_len(HEAD_LEN as u64)?;
        Ok(Self { file })
    }

    /// Overwrites the stored head with `head` in one positioned write (handed to the OS, not
    /// synced: the records it names were written, and synced when asked, before it).
    pub fn store(&self, head: &ChainHead) -> std::io::Result<()> {
        self.file.write_all_at(&head.to_bytes()?, 0)
    }
}
