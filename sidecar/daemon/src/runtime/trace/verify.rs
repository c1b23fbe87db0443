//! Reading trace files back and checking their hash chain (`blindfold trace verify`).

use super::head::{ChainHead, head_path, read_head};
use super::writer::{head_mismatch, line_hash, trace_files};
use blindfold_schemas::TraceRecord;
use blindfold_schemas::trace::{GENESIS_PREV, TRACE_VERSION};
use std::path::{Path, PathBuf};

/// Why a trace file does not read or verify: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: {message}", file.display())]
pub struct TraceFileError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line number (0 for the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// What a successful verification saw.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerifyReport {
    /// Files read, in chain order.
    pub files: usize,
    /// Records read.
    pub records: u64,
    /// First and last `seq`.
    pub first_seq: Option<u64>,
    /// Last `seq`.
    pub last_seq: Option<u64>,
    /// True when the chain starts at the genesis `prev` (no earlier file is missing).
    pub from_genesis: bool,
    /// Hash of the last record (what the next record's `prev` must be).
    pub head: String,
    /// What verified but could not be checked in full (a directory without a stored head: records
    /// cut off its end would go unnoticed).
    pub warnings: Vec<String>,
}

/// Expands directories into their trace files (chain order); files stay as given.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, TraceFileError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let files = trace_files(p).map_err(|e| io_error(p, &e))?;
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn io_error(file: &Path, e: &std::io::Error) -> TraceFileError {
    TraceFileError { file: file.to_owned(), line: 0, message: e.to_string() }
}

/// Reads and parses every record of `file`, with each record's line hash.
pub fn read_file(file: &Path) -> Result<Vec<(TraceRecord, String)>, TraceFileError> {
    let bytes = std::fs::read(file).map_err(|e| io_error(file, &e))?;
    let mut out = Vec::new();
    for (i, raw) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let err = |message: String| TraceFileError { file: file.to_owned(), line: i + 1, message };
        let Some(body) = raw.strip_suffix(b"\n") else {
            return Err(err("torn last line (a write that was never acknowledged)".into()));
        };
        let record: TraceRecord =
            serde_json::from_slice(body).map_err(|e| err(format!("not a trace record: {e}")))?;
        if record.v > TRACE_VERSION {
            return Err(err(format!(
                "record version {} is newer than this build ({TRACE_VERSION})",
                record.v
            )));
        }
        out.push((record, line_hash(body)));
    }
    Ok(out)
}

/// Reads the records of every file (directories expanded), in order.
pub fn read_records(paths: &[PathBuf]) -> Result<Vec<TraceRecord>, TraceFileError> {
    let mut out = Vec::new();
    for file in expand(paths)? {
        out.extend(read_file(&file)?.into_iter().map(|(r, _)| r));
    }
    Ok(out)
}

/// Checks that `paths` (in chain order) form one unbroken hash chain with consecutive `seq`s: a
/// changed, inserted, removed or reordered record is found and named. Finding no record at all
/// is an error (nothing was verified: a wrong path, or every file gone). A directory is a whole
/// trace — Blindfold never deletes its rotated files — so its chain must start at the genesis
/// `prev`: a missing first file is an error; files given one by one may continue an earlier one.
/// A directory's chain must also reach the head stored beside its files: records cut off the end
/// are an error naming the truncation; a directory without a head (written before heads were
/// kept) verifies with a warning.
pub fn verify(paths: &[PathBuf]) -> Result<VerifyReport, TraceFileError> {
    let (heads, warnings) = stored_heads(paths)?;
    let mut report = verify_chain(paths, &heads)?;
    report.warnings = warnings;
    let whole = |message: String| TraceFileError {
        file: paths.first().cloned().unwrap_or_default(),
        line: 0,
        message,
    };
    if report.records == 0 {
        return Err(whole(format!("no trace records in {} file(s): nothing was verified", report.files)));
    }
    if !report.from_genesis && paths.iter().any(|p| p.is_dir()) {
        return Err(whole(format!(
            "the chain does not start at its beginning (first seq {}): the earliest records or files are missing",
            report.first_seq.unwrap_or_default()
        )));
    }
    Ok(report)
}

/// Each trace directory given, with the head stored beside its files.
type DirHeads = Vec<(PathBuf, ChainHead)>;

/// The stored head of each directory among `paths`, and a warning for each directory without one.
fn stored_heads(paths: &[PathBuf]) -> Result<(DirHeads, Vec<String>), TraceFileError> {
    let mut heads = Vec::new();
    let mut warnings = Vec::new();
    for dir in paths.iter().filter(|p| p.is_dir()) {
        match read_head(dir) {
            Ok(Some(head)) => heads.push((dir.clone(), head)),
            Ok(None) => warnings.push(format!(
                "{} has no stored head (written before heads were kept): records cut off its end would go unnoticed",
                dir.display()
            )),
            Err(e) => return Err(io_error(&head_path(dir), &e)),
        }
    }
    Ok((heads, warnings))
}

/// Checks the end of the chain against each stored head the walk did not reach.
fn check_heads_reached(
    report: &VerifyReport,
    heads: &[(PathBuf, ChainHead)],
    reached: &[bool],
) -> Result<(), TraceFileError> {
    let Some(((dir, head), _)) = heads.iter().zip(reached).find(|(_, reached)| !**reached) else {
        return Ok(());
    };
    let last = report.last_seq.map(|seq| ChainHead { seq, hash: report.head.clone() });
    let message = head_mismatch(head, last.as_ref())
        .unwrap_or_else(|| format!("the stored head names seq {}, which the trace does not hold", head.seq));
    Err(TraceFileError { file: dir.clone(), line: 0, message })
}

fn verify_chain(paths: &[PathBuf], heads: &[(PathBuf, ChainHead)]) -> Result<VerifyReport, TraceFileError> {
    let files = expand(paths)?;
    let mut reached = vec![false; heads.len()];
    let mut report = VerifyReport {
        files: files.len(),
        records: 0,
        first_seq: None,
        last_seq: None,
        from_genesis: false,
        head: String::new(),
        warnings: Vec::new(),
    };
    for file in &files {
        for (i, (record, hash)) in read_file(file)?.into_iter().enumerate() {
            let err = |message: String| TraceFileError { file: file.clone(), line: i + 1, message };
            match report.last_seq {
                None => {
                    report.first_seq = Some(record.seq);
                    report.from_genesis = record.prev == GENESIS_PREV;
                }
                Some(last) => {
                    if record.prev != report.head {
                        return Err(err(format!(
                            "hash chain broken at seq {}: prev does not match the record before (changed, removed or reordered)",
                            record.seq
                        )));
                    }
                    if record.seq != last + 1 {
                        return Err(err(format!("gap: seq {} follows seq {last}", record.seq)));
                    }
                }
            }
            for ((_, head), reached) in
                heads.iter().zip(reached.iter_mut()).filter(|((_, h), _)| h.seq == record.seq)
            {
                if head.hash != hash {
                    return Err(err(format!(
                        "the record at seq {} is not the one the trace's head names (replaced)",
                        record.seq
                    )));
                }
                *reached = true;
            }
            report.last_seq = Some(record.seq);
            report.head = hash;
            report.records += 1;
        }
    }
    check_heads_reached(&report, heads, &reached)?;
    Ok(report)
}
