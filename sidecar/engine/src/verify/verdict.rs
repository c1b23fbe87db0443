//! Verdict lines in an answer: `VERDICT <handle>: approve | refuse | unsure - <reason>`, read on
//! folded text (a model's bold, quotes, full-width letters and invisible characters do not
//! hide one), and only for handles of Blindfold's form.

use super::{HANDLE_LEN, HANDLE_PREFIX};
use crate::fold::fold_str;
use blindfold_schemas::VerdictWord;

/// One verdict line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictLine {
    /// The handle it names.
    pub handle: String,
    /// Its word.
    pub verdict: VerdictWord,
    /// The reason given (may be empty).
    pub reason: String,
}

/// The word a verdict line gives, read generously (`approved`, `refused`, `rejected`), and
/// anything else as `unsure` (fail closed).
fn word(w: &str) -> VerdictWord {
    match w {
        "approve" | "approved" | "approves" | "approval" | "allow" => VerdictWord::Approve,
        "refuse" | "refused" | "refuses" | "reject" | "rejected" | "deny" | "denied" | "block" => {
            VerdictWord::Refuse
        }
        _ => VerdictWord::Unsure,
    }
}

/// Every verdict line of `text`, in order.
pub fn verdict_lines(text: &str) -> Vec<VerdictLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        let f = fold_str(line);
        let Some(at) = f.find("verdict") else { continue };
        let rest = f[at + "verdict".len()..].trim_start_matches(|c: char| !c.is_alphanumeric());
        let Some(body) = rest.strip_prefix(HANDLE_PREFIX) else { continue };
        let id: String = body.chars().take(HANDLE_LEN).collect();
        if id.len() != HANDLE_LEN || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let after = body[HANDLE_LEN..].trim_start_matches(|c: char| !c.is_alphanumeric());
        let w: String = after.chars().take_while(|c| c.is_alphabetic()).collect();
        let reason = after[w.len()..].trim_start_matches(|c: char| !c.is_alphanumeric()).trim();
        let reason = reason.trim_end_matches(['*', '_', '`', '"']).to_owned();
        out.push(VerdictLine { handle: format!("{HANDLE_PREFIX}{id}"), verdict: word(&w), reason });
    }
    out
}
