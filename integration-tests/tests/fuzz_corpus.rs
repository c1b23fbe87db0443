//! Replays every fuzz target's corpus (`fuzz/corpus/<target>/`) and regressions
//! (`fuzz/regressions/<target>/`) through the same entry points libFuzzer drives, as ordinary
//! tests: a crash once found stays fixed.

use blindfold_integration_tests::fuzz::{TARGETS, Target};
use blindfold_integration_tests::workspace_root;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

fn is_hidden(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'))
}

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<_> =
        entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file() && !is_hidden(p)).collect();
    out.sort();
    out
}

/// Runs `target` on every file; returns the files that panicked.
fn replay(target: Target, files: &[std::path::PathBuf]) -> Vec<String> {
    let mut failed = Vec::new();
    for f in files {
        let data = std::fs::read(f).expect("read corpus file");
        if catch_unwind(AssertUnwindSafe(|| target(&data))).is_err() {
            failed.push(f.display().to_string());
        }
    }
    failed
}

#[test]
fn every_target_has_a_seed_corpus_and_a_libfuzzer_binary() {
    let fuzz = workspace_root().join("fuzz");
    for (name, _) in TARGETS {
        assert!(!files(&fuzz.join("corpus").join(name)).is_empty(), "fuzz/corpus/{name} has no seeds");
        assert!(
            fuzz.join("fuzz_targets").join(format!("{name}.rs")).is_file(),
            "fuzz/fuzz_targets/{name}.rs is missing"
        );
    }
}

#[test]
fn corpora_and_regressions_replay_without_a_crash() {
    let fuzz = workspace_root().join("fuzz");
    let mut failed = Vec::new();
    let mut total = 0;
    for (name, target) in TARGETS {
        let mut all = files(&fuzz.join("corpus").join(name));
        all.extend(files(&fuzz.join("regressions").join(name)));
        total += all.len();
        failed.extend(replay(*target, &all));
    }
    assert!(failed.is_empty(), "inputs that crash a decoder:\n{}", failed.join("\n"));
    eprintln!("replayed {total} fuzz inputs over {} targets", TARGETS.len());
}
