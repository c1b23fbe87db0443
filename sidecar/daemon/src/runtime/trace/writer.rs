//! The trace file writer: JSON Lines, a hash chain (`prev`), its head kept beside the files
//! ([`super::head`]), size rotation, resumption after a restart or a crash. Synchronous and
//! single-owner; the daemon runs it on its own thread ([`super::TraceSink`]), the replay runner
//! can use it directly.

pub use crate::config::Durability;

use super::head::{ChainHead, HeadFile, read_head};
use blindfold_schemas::TraceRecord;
use blindfold_schemas::trace::GENESIS_PREV;
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A typical record line's length, to size a batch's buffer once.
const LINE_GUESS: usize = 640;
/// The batch buffer is kept for the next batch up to this capacity (bytes): a steady stream of
/// batches allocates nothing, one huge batch does not pin its memory.
const KEEP_BUFFER: usize = 1 << 20;

/// Lowercase hex SHA-256 of one record line (without its newline): the next record's `prev`.
pub fn line_hash(line: &[u8]) -> String {
    blindfold_engine::canonical::digest_hex(&Sha256::digest(line).into())
}

/// Appends records to `trace-<first seq>.jsonl` files in one directory.
pub struct TraceWriter {
    dir: PathBuf,
    max_file_bytes: u64,
    durability: Durability,
    file: Option<File>,
    /// Held for the writer's life: one writer per directory (one chain).
    _lock: File,
    size: u64,
    prev: String,
    next_seq: u64,
    /// Where the chain's head is kept; opened with the first record stored there.
    head: Option<HeadFile>,
    /// The last batch's buffer, reused.
    buf: Vec<u8>,
}

/// Trace files of `dir` in chain order.
pub fn trace_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("trace-") && n.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    Ok(files)
}

impl TraceWriter {
    /// Opens (creating 0700) `dir` and resumes the chain from its newest file: a torn last line
    /// (a crash in the middle of a write, never acknowledged) is cut off. Refuses a directory
    /// whose files end before its stored head (records cut off the end) or whose last record is
    /// not the one the head names: continuing would overwrite the evidence.
    pub fn open(dir: &Path, max_file_bytes: u64, durability: Durability) -> std::io::Result<Self> {
        crate::runtime::state::ensure_private_dir(dir)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(dir.join("writer.lock"))?;
        lock.try_lock().map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                format!(
                    "{} is in use by another Blindfold process (one writer per trace directory)",
                    dir.display()
                ),
            )
        })?;
        let mut writer = Self {
            _lock: lock,
            dir: dir.to_owned(),
            max_file_bytes: max_file_bytes.max(1),
            durability,
            file: None,
            size: 0,
            prev: GENESIS_PREV.to_owned(),
            next_seq: 1,
            head: None,
            buf: Vec::new(),
        };
        for path in trace_files(dir)?.iter().rev() {
            let tail = last_record(path)?;
            let file = OpenOptions::new().append(true).open(path)?;
            let len = file.metadata()?.len();
            if len != tail.good_len {
                if tail.torn_only {
                    // A crash in the middle of a write: that record was never acknowledged.
                    file.set_len(tail.good_len)?;
                    file.sync_data()?;
                } else {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{} has a damaged record; run `blindfold trace verify`", path.display()),
                    ));
                }
            }
            match tail.last {
                Some((prev, seq)) => {
                    writer.prev = prev;
                    writer.next_seq = seq + 1;
                    writer.file = Some(file);
                    writer.size = tail.good_len;
                    break;
                }
                None => {
                    drop(file);
                    std::fs::remove_file(path)?;
                }
            }
        }
        writer.resume_head()?;
        Ok(writer)
    }

    /// The head of the chain as resumed: `None` before the first record.
    fn current_head(&self) -> Option<ChainHead> {
        (self.next_seq > 1).then(|| ChainHead { seq: self.next_seq - 1, hash: self.prev.clone() })
    }

    /// Checks the resumed chain against the stored head and stores the resumed one (a directory
    /// written before heads were kept gets its head here).
    fn resume_head(&mut self) -> std::io::Result<()> {
        let stored = read_head(&self.dir)?;
        let resumed = self.current_head();
        if let Some(stored) = &stored
            && let Some(why) = head_mismatch(stored, resumed.as_ref())
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {why}; run `blindfold trace verify`", self.dir.display()),
            ));
        }
        match resumed {
            Some(head) => self.store_head(&head),
            None => Ok(()),
        }
    }

    fn store_head(&mut self, head: &ChainHead) -> std::io::Result<()> {
        if self.head.is_none() {
            self.head = Some(HeadFile::open(&self.dir)?);
        }
        self.head.as_ref().map_or(Ok(()), |file| file.store(head))
    }

    /// The sequence number the next record gets.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Appends `records` in one write (and one fsync with [`Durability::Fsync`]), filling `seq`
    /// (when zero) and `prev`. On failure nothing of the batch stays in the file.
    pub fn append(&mut self, records: &mut [TraceRecord]) -> std::io::Result<()> {
        // Each record is serialised straight into the batch buffer and hashed there.
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        buf.reserve(records.len() * LINE_GUESS);
        let written = self.append_in(records, &mut buf);
        if buf.capacity() <= KEEP_BUFFER {
            self.buf = buf;
        }
        written
    }

    /// [`TraceWriter::append`] with `buf` (empty) as the batch buffer.
    fn append_in(&mut self, records: &mut [TraceRecord], buf: &mut Vec<u8>) -> std::io::Result<()> {
        let mut prev = self.prev.clone();
        let mut next = self.next_seq;
        for record in records.iter_mut() {
            if record.seq == 0 {
                record.seq = next;
            }
            next = record.seq + 1;
            record.prev = prev;
            let start = buf.len();
            super::line::write_record(record, buf).map_err(std::io::Error::other)?;
            prev = line_hash(&buf[start..]);
            buf.push(b'\n');
        }
        if self.file.is_none() || (self.size > 0 && self.size + buf.len() as u64 > self.max_file_bytes) {
            let first = records.first().map_or(next, |r| r.seq);
            self.rotate(first)?;
        }
        let file = self.file.as_mut().ok_or_else(|| std::io::Error::other("trace file not open"))?;
        if let Err(e) = file
            .write_all(buf)
            .and_then(|()| if self.durability == Durability::Fsync { file.sync_data() } else { Ok(()) })
        {
            // Leave no torn line behind: the chain continues from the last good record.
            let _ = file.set_len(self.size);
            return Err(e);
        }
        if !records.is_empty()
            && let Err(e) = self.store_head(&ChainHead { seq: next - 1, hash: prev.clone() })
        {
            // A batch the head does not name is not written either.
            if let Some(file) = self.file.as_mut() {
                let _ = file.set_len(self.size);
            }
            return Err(e);
        }
        self.size += buf.len() as u64;
        self.prev = prev;
        self.next_seq = next;
        Ok(())
    }

    fn rotate(&mut self, first_seq: u64) -> std::io::Result<()> {
        let path = self.dir.join(format!("trace-{first_seq:020}.jsonl"));
        let file = OpenOptions::new().create(true).append(true).mode(0o600).open(&path)?;
        self.size = file.metadata()?.len();
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        self.file = Some(file);
        Ok(())
    }
}

/// Why the resumed chain contradicts the stored head, if it does. A chain that goes past the head
/// is whole: the process stopped between a batch and its head.
pub(super) fn head_mismatch(stored: &ChainHead, resumed: Option<&ChainHead>) -> Option<String> {
    match resumed {
        None => Some(format!("truncated: no record is left, but the head names seq {}", stored.seq)),
        Some(last) if last.seq < stored.seq => Some(format!(
            "truncated: the trace ends at seq {} but its head names seq {} (records were cut off the end)",
            last.seq, stored.seq
        )),
        Some(last) if last.seq == stored.seq && last.hash != stored.hash => {
            Some(format!("the record at seq {} is not the one the trace's head names (replaced)", last.seq))
        }
        Some(_) => None,
    }
}

/// What is at the end of a trace file.
struct Tail {
    /// Hash and seq of the last complete, parseable record.
    last: Option<(String, u64)>,
    /// Bytes up to the end of that record.
    good_len: u64,
    /// True when whatever follows is one unterminated line (a torn write).
    torn_only: bool,
}

fn last_record(path: &Path) -> std::io::Result<Tail> {
    let mut reader = BufReader::new(File::open(path)?);
    let mut tail = Tail { last: None, good_len: 0, torn_only: true };
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if line.last() != Some(&b'\n') {
            break;
        }
        let body = &line[..line.len() - 1];
        match serde_json::from_slice::<TraceRecord>(body) {
            Ok(r) => {
                tail.good_len += n as u64;
                tail.last = Some((line_hash(body), r.seq));
            }
            Err(_) => {
                tail.torn_only = false;
                break;
            }
        }
    }
    Ok(tail)
}
