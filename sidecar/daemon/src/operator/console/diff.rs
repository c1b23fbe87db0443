//! The diff a reviewer reads: the held artifact against the bytes an earlier approval of the
//! same operation on the same target allowed (the latest such approval, preferring the same
//! task), line by line. Only approvals given through the review queue kept their bytes; a grant
//! issued elsewhere is known by its digest alone, and the answer says so.

use crate::runtime::review::ReviewItem;
use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};
use std::time::Duration;

/// Longest a diff may take before it falls back to an approximation.
const DIFF_TIMEOUT: Duration = Duration::from_millis(200);
/// Most changed-line groups shown (a huge rewrite is summarised past it).
const MAX_LINES: usize = 2000;

/// `{against, approved_ms, same_bytes, lines: [{tag, old, new, text}]}` against the earlier
/// approval of `item`'s operation and target, or `{note}` when there is none or either side is
/// not text.
pub fn against_earlier(item: &ReviewItem, approved: &[ReviewItem]) -> Value {
    let same_target = |a: &&ReviewItem| {
        a.id != item.id
            && a.proposal.operation == item.proposal.operation
            && a.proposal.target == item.proposal.target
            && a.created_ms <= item.created_ms
    };
    let latest = |same_task: bool| {
        approved
            .iter()
            .filter(same_target)
            .filter(|a| !same_task || a.proposal.task_id == item.proposal.task_id)
            .max_by_key(|a| a.resolved_ms.unwrap_or(a.created_ms))
    };
    let Some(earlier) = latest(true).or_else(|| latest(false)) else {
        return json!({"note": "no earlier approval of this operation on this target"});
    };
    let (Some(old), Some(new)) = (earlier.artifact_text.as_deref(), item.artifact_text.as_deref()) else {
        return json!({
            "against": earlier.id,
            "approved_ms": earlier.resolved_ms,
            "same_bytes": earlier.artifact_sha256 == item.artifact_sha256,
            "note": "one side is not text (or too large to keep): compare the digests",
            "old_sha256": earlier.artifact_sha256,
            "new_sha256": item.artifact_sha256,
        });
    };
    json!({
        "against": earlier.id,
        "against_task": earlier.proposal.task_id,
        "approved_ms": earlier.resolved_ms,
        "same_bytes": earlier.artifact_sha256 == item.artifact_sha256,
        "lines": line_diff(old, new),
    })
}

/// Every line of `old` → `new`, tagged `equal`, `delete` or `insert`, with its line numbers.
pub fn line_diff(old: &str, new: &str) -> Vec<Value> {
    let diff = TextDiff::configure().timeout(DIFF_TIMEOUT).diff_lines(old, new);
    let mut out = Vec::new();
    for change in diff.iter_all_changes() {
        if out.len() == MAX_LINES {
            out.push(json!({"tag": "equal", "text": "… (diff cut here)"}));
            break;
        }
        let tag = match change.tag() {
            ChangeTag::Equal => "equal",
            ChangeTag::Delete => "delete",
            ChangeTag::Insert => "insert",
        };
        let text = change.value().strip_suffix('\n').unwrap_or(change.value());
        out.push(json!({
            "tag": tag,
            "old": change.old_index().map(|i| i + 1),
            "new": change.new_index().map(|i| i + 1),
            "text": text,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_a_delete_and_an_insert() {
        let lines = line_diff("a=1\nb=2\n", "a=1\nb=3\n");
        let tags: Vec<&str> = lines.iter().filter_map(|l| l["tag"].as_str()).collect();
        assert_eq!(tags, ["equal", "delete", "insert"]);
        assert_eq!(lines[1]["text"], "b=2");
        assert_eq!(lines[2]["text"], "b=3");
        assert_eq!(lines[2]["new"], 2);
    }
}
