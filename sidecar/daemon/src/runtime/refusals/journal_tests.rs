//! The refusals' journal: a restarted book answers for the same refusals with the same grant
//! command; a corrupt journal is an empty book, never a wrong refusal; the file stays bounded.

use super::journal::FILE;
use super::{KEEP, Refusals, Refused, key_hint};
use blindfold_engine::DerivedAction;
use blindfold_schemas::{CheckId, Decision, Effect, Reason};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn refused(trajectory: &str, target: &str, bytes: &[u8]) -> Refused {
    let mut args = serde_json::Map::new();
    args.insert("mode".into(), "overwrite".into());
    Refused {
        id: String::new(),
        ts: 42,
        trajectory: trajectory.into(),
        actor: "coordinator".into(),
        tool: "write".into(),
        action: DerivedAction {
            effect: Effect::Mutate,
            operation: "write_file".into(),
            target: target.into(),
            artifact: bytes.to_vec(),
            args,
            unknown: false,
        },
        artifact_len: 0,
        artifact_sha256: String::new(),
        decision: Decision::deny(Reason::NoGrant, CheckId::Grant),
        review_id: Some("rv-1".into()),
    }
}

fn text(book: &Refusals, id: &str) -> String {
    book.human_text(&book.get(id).expect("kept"), &key_hint(&["k/ops.pub.pem".into()]))
}

fn journal_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join(FILE)).expect("journal").lines().count()
}

#[test]
fn a_restarted_book_answers_for_the_same_refusal_with_the_same_grant_command() {
    let dir = tempfile::tempdir().expect("tmp");
    let config = Path::new("/etc/blindfold.toml");
    let book = Refusals::open(dir.path(), Some(config));
    let id = book.note(refused("t-1", "notes.txt", b"hello\n"), Some("fp-1"));
    let before = text(&book, &id);
    let view = book.view(&book.get(&id).expect("kept"), "k.pem");
    drop(book);
    let mode = std::fs::metadata(dir.path().join(FILE)).expect("journal").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the journal holds refused bytes: private");

    let book = Refusals::open(dir.path(), Some(config));
    assert_eq!(text(&book, &id), before, "the same refusal, word for word");
    let again = book.view(&book.get(&id).expect("kept after a restart"), "k.pem");
    assert_eq!(again.grant_command(), view.grant_command());
    assert!(again.grant_command().contains("--config /etc/blindfold.toml"), "{}", again.grant_command());
    assert_eq!(book.get(&id).expect("kept").action.artifact, b"hello\n");
    assert_eq!(book.latest("t-1", "fp-1").as_deref(), Some(id.as_str()), "the call's latest refusal");
    // Noted after the restart: appended after what was read back.
    let next = book.note(refused("t-1", "other.txt", b"x"), None);
    drop(book);
    let book = Refusals::open(dir.path(), None);
    assert!(book.get(&id).is_some() && book.get(&next).is_some());
    assert!(Refusals::open(tempfile::tempdir().expect("tmp").path(), None).get(&id).is_none(), "control");
}

#[test]
fn a_corrupt_journal_is_an_empty_book_and_a_torn_last_line_is_dropped_alone() {
    let dir = tempfile::tempdir().expect("tmp");
    let book = Refusals::open(dir.path(), None);
    let first = book.note(refused("t", "a.txt", b"one\n"), Some("fp-a"));
    let second = book.note(refused("t", "b.txt", b"two\n"), Some("fp-b"));
    drop(book);
    let path = dir.path().join(FILE);

    // A write cut short: the lines before it stand, and the file is whole again.
    let mut raw = std::fs::read(&path).expect("journal");
    raw.extend_from_slice(b"0123abcd {\"v\":1,\"id\":\"rf-");
    std::fs::write(&path, &raw).expect("tear");
    let book = Refusals::open(dir.path(), None);
    assert!(book.get(&first).is_some() && book.get(&second).is_some());
    drop(book);
    assert_eq!(journal_lines(dir.path()), 2, "the torn line is gone from the file");

    // One changed byte (a digest still well formed): no refusal from the file is trusted.
    let raw = std::fs::read_to_string(&path).expect("journal");
    let changed = raw.replacen("b.txt", "c.txt", 1);
    assert_ne!(raw, changed);
    std::fs::write(&path, changed).expect("corrupt");
    let book = Refusals::open(dir.path(), None);
    assert!(book.get(&first).is_none() && book.get(&second).is_none(), "a wrong refusal shown");
    assert!(book.latest("t", "fp-a").is_none());
    assert!(dir.path().join("refusals.jsonl.corrupt").exists(), "kept aside for a person");
    let fresh = book.note(refused("t", "d.txt", b"d"), None);
    drop(book);
    assert!(Refusals::open(dir.path(), None).get(&fresh).is_some(), "journaled again after it");

    // Not a journal at all, or unreadable: empty, no panic.
    std::fs::write(&path, b"\xff\xfe not text\n").expect("garbage");
    assert!(Refusals::open(dir.path(), None).get(&fresh).is_none());
    std::fs::remove_file(&path).expect("rm");
    std::fs::create_dir(&path).expect("a directory where the file was");
    let book = Refusals::open(dir.path(), None);
    let id = book.note(refused("t", "e.txt", b"e"), None);
    assert!(book.get(&id).is_some(), "kept in memory though the journal cannot be written");
}

#[test]
fn the_journal_keeps_the_last_refusals_and_stays_bounded() {
    let dir = tempfile::tempdir().expect("tmp");
    let book = Refusals::open(dir.path(), None);
    let n = 2 * KEEP + 10;
    let ids: Vec<String> = (0..n).map(|i| book.note(refused("t", &format!("f{i}"), b"x"), None)).collect();
    assert!(journal_lines(dir.path()) <= 2 * KEEP, "compacted as it grows");
    drop(book);
    let book = Refusals::open(dir.path(), None);
    assert!(book.get(&ids[n - KEEP - 1]).is_none(), "older than the last KEEP");
    assert!(ids[n - KEEP..].iter().all(|id| book.get(id).is_some()), "the last KEEP are kept");
    assert_eq!(journal_lines(dir.path()), KEEP, "read back and rewritten to what is kept");
}
