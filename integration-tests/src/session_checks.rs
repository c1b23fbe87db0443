//! What every real-harness session test checks on a daemon's trace, written once: the alias
//! maps a trajectory recorded, the refusal id the model was told, the trajectories a trace holds,
//! and that `blindfold trace summarize` counts the blocks the records show.

use crate::blindfold;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The records of `kind` among `records`.
pub fn kinds<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["kind"] == kind).collect()
}

/// The aliases records of a trajectory: the agent → alias maps, in order.
pub fn alias_maps(records: &[Value]) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r["kind"] == "control" && r["tool"] == "aliases")
        .map(|r| {
            serde_json::from_str::<Value>(r["detail"].as_str().unwrap_or("{}")).expect("detail")["aliases"]
                .clone()
        })
        .collect()
}

/// The last refusal id a model was told (`… reported to a person with reference rf-…;`), in the
/// requests the scripted model server saw or in what the harness printed.
pub fn last_refusal_id(requests: &[Value], printed: &str) -> Option<String> {
    let all = format!("{}\n{printed}", requests.iter().map(Value::to_string).collect::<String>());
    let marker = "reported to a person with reference ";
    let at = all.rfind(marker)?;
    let id: String = all[at + marker.len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!id.is_empty()).then_some(id)
}

/// Every trajectory id in the trace files of `traces`, in order of first appearance.
pub fn trajectories(traces: &Path) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for f in std::fs::read_dir(traces).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap_or_default();
        for r in text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
            let t = r["trajectory"].as_str().unwrap_or_default().to_owned();
            if !t.is_empty() && !ids.contains(&t) {
                ids.push(t);
            }
        }
    }
    ids
}

/// `blindfold trace summarize --json` over the trace dir agrees with `records` (one trajectory,
/// whose destructive call was held by a contradiction and never executed).
pub fn summary_agrees(traces: &Path, records: &[Value]) {
    let files: Vec<PathBuf> = std::fs::read_dir(traces)
        .expect("traces")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    let out = blindfold().args(["trace", "summarize", "--json"]).args(&files).output().expect("summarize");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s: Value = serde_json::from_slice(&out.stdout).expect("summary json");
    let decided: Vec<&Value> = records.iter().filter(|r| r["decision"].is_string()).collect();
    let count = |d: &str| decided.iter().filter(|r| r["decision"] == d).count() as u64;
    assert_eq!(s["trajectories"], 1, "{s}");
    assert_eq!(
        (s["denied"].as_u64(), s["reviewed"].as_u64()),
        (Some(count("deny")), Some(count("review"))),
        "{s}"
    );
    let by_contradiction = decided.iter().filter(|r| r["check"] == "P3.contradiction").count() as u64;
    assert_eq!(s["first_blocker_by_check"]["P3.contradiction"].as_u64(), Some(by_contradiction), "{s}");
    assert_eq!(s["contradicted"], 1, "a block by contradiction is a contradicted trajectory: {s}");
    assert_eq!((s["execute_captured"].as_u64(), s["execute_car"].as_f64()), (Some(0), Some(0.0)), "{s}");
}

/// The `blindfold grant issue …` line of `blindfold why`'s text, as words to run.
pub fn grant_command(why: &str) -> Vec<String> {
    let line = why
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("blindfold grant issue"))
        .unwrap_or_else(|| panic!("no grant command in {why}"));
    crate::shell_words(line)
}

/// Runs a command Blindfold printed for a person (`words`, as [`grant_command`] gives them) in
/// `dir`, exactly as printed: it must name the daemon's configuration file itself.
pub fn run_printed(words: &[String], dir: &Path) -> std::process::Output {
    assert!(words.iter().any(|w| w == "--config"), "the printed command names no --config: {words:?}");
    blindfold().args(words.iter().skip(1)).current_dir(dir).output().expect("blindfold")
}

/// The delegations answered after `decision` was made although they were made before it: each
/// `delegate` record before the decision whose agent's next `response` record comes after it
/// (or never). Empty when every answer the coordinator could have been waiting for was observed
/// before its decision (evidence before decision, issue 27).
pub fn answered_after(records: &[Value], decision: &Value) -> Vec<String> {
    let seq = |r: &Value| r["seq"].as_u64().unwrap_or(0);
    let at = seq(decision);
    let mut late = Vec::new();
    for d in records.iter().filter(|r| r["kind"] == "delegate" && seq(r) < at) {
        let agent = &d["actor_alias"];
        let answer = records
            .iter()
            .filter(|r| r["kind"] == "response" && r["actor_alias"] == *agent && seq(r) > seq(d))
            .map(seq)
            .min();
        if answer.is_none_or(|s| s > at) {
            late.push(format!(
                "{} (delegated at #{}, answered at {answer:?}, decided at #{at})",
                agent,
                seq(d)
            ));
        }
    }
    late
}

/// The verdict handles in `text` (`bf-` and twelve of Blindfold's base-32 characters, not
/// inside a longer word): what a coordinator must never read. A `bf-` inside an id (a UUID's
/// `…3cbf-4f90…`) is none.
pub fn handles_in(text: &str) -> Vec<String> {
    const ALPHABET: &str = "abcdefghijkmnpqrstuvwxyz23456789";
    let mut out = Vec::new();
    for (at, _) in text.match_indices("bf-") {
        let before = text[..at].chars().next_back();
        let body: String = text[at + 3..].chars().take(13).collect();
        let mut chars = body.chars();
        let handle: String = chars.by_ref().take(12).collect();
        let after = chars.next();
        let is_handle = handle.chars().count() == 12
            && handle.chars().all(|c| ALPHABET.contains(c))
            && before.is_none_or(|c| !c.is_alphanumeric())
            && after.is_none_or(|c| !c.is_alphanumeric());
        if is_handle {
            out.push(format!("bf-{handle}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn handles_are_found_as_words_and_not_inside_ids() {
        assert_eq!(super::handles_in("VERDICT bf-k3qx9pz2mw4t: approve"), ["bf-k3qx9pz2mw4t"]);
        assert!(super::handles_in("runId 8a99f914-3cbf-4f90-87f2-f1cdb1088746").is_empty());
        assert!(super::handles_in("bf-short, xbf-k3qx9pz2mw4t, bf-k3qx9pz2mw4tx").is_empty());
    }
}
