//! Reading an answer's prose: its segments judged by the language packs (a neighbour's refusal
//! lent to a segment that only names targets, the agent's previous message read with this one),
//! the disputes refusal segments raise, and the refutations they state toward the proposals
//! they name or the verification request they answer. Prose only ever refutes.

use super::mentions_word;
use super::response::Stated;
use super::text_targets;
use crate::shell;
use crate::state::{Dispute, ProposalRec, State};
use crate::text::{Patterns, Polarity, Target};
use blindfold_schemas::{Detection, Relation};
use std::collections::BTreeSet;

/// One judged segment of an answer: its polarity (after borrowing from a neighbour), the
/// targets it names, its text, and whether its refusal is explicit and whether it is a
/// reservation (a condition gates it).
#[derive(Debug, Clone)]
pub(super) struct Judged<'t> {
    pub(super) polarity: Polarity,
    pub(super) targets: Vec<Target>,
    pub(super) text: &'t str,
    pub(super) explicit: bool,
    pub(super) reservation: bool,
}

/// The answer's segments, judged: sentences, cut at contrast markers; a single-segment sentence
/// without polarity that names targets borrows a refusal from an adjacent sentence ("Do not run
/// it. `rm -rf /data` wipes the disk.") — the agent's `previous` message counts as adjacent, so
/// "About `rm -rf /srv/prod`:" then "don't." is one refusal (recorded with this answer).
/// `targets` are the whole text's.
pub(super) fn judge_answer<'t>(
    patterns: &Patterns,
    previous: Option<&'t str>,
    text: &'t str,
    targets: &[Target],
) -> Vec<Judged<'t>> {
    let mut segs: Vec<(bool, crate::text::Segment<'t>)> =
        previous.map(|p| patterns.segments(p)).unwrap_or_default().into_iter().map(|s| (false, s)).collect();
    let offset = segs.last().map_or(0, |(_, s)| s.sentence + 1);
    segs.extend(patterns.segments(text).into_iter().map(|mut s| {
        s.sentence += offset;
        (true, s)
    }));
    let sentences = segs.last().map_or(0, |(_, s)| s.sentence + 1);
    let mut refuses = vec![false; sentences];
    let mut explicit = vec![false; sentences];
    let mut parts = vec![0usize; sentences];
    for (_, s) in &segs {
        refuses[s.sentence] |= s.judgement.refuses;
        explicit[s.sentence] |= s.judgement.refuses && s.judgement.explicit;
        parts[s.sentence] += 1;
    }
    let current_refuses =
        |i: usize| segs.iter().any(|(cur, s)| *cur && s.sentence == i && s.judgement.refuses);
    let mut items = Vec::new();
    for (current, seg) in &segs {
        let i = seg.sentence;
        let before = i > 0 && refuses[i - 1];
        let after = refuses.get(i + 1).copied().unwrap_or(false);
        // A segment that names nothing borrows nothing ("Approve." after a refusal of another file).
        let seg_targets = if seg.text == text { targets.to_vec() } else { text_targets(seg.text) };
        let borrows = !seg.judgement.refuses
            && !seg.judgement.approves
            && parts[i] == 1
            && (before || after)
            && !seg_targets.is_empty();
        // A segment of the previous message is read again only for a refusal this one lends it.
        let lent = !current && borrows && ((i > 0 && current_refuses(i - 1)) || current_refuses(i + 1));
        if !current && !lent {
            continue;
        }
        let polarity = if seg.judgement.refuses || borrows { Polarity::Refuse } else { Polarity::None };
        items.push(Judged {
            polarity,
            targets: seg_targets,
            text: seg.text,
            // A borrowed refusal is as explicit as the one it borrows.
            explicit: seg.judgement.explicit
                || (borrows && ((i > 0 && explicit[i - 1]) || explicit.get(i + 1).copied().unwrap_or(false))),
            reservation: seg.judgement.reservation,
        });
    }
    items
}

/// Refusal segments dispute every resource they name, and every tool they refuse as a tool.
pub(super) fn record_lexical_disputes(
    st: &mut State,
    patterns: &Patterns,
    from: &str,
    id: &str,
    items: &[Judged<'_>],
) {
    for j in items.iter().filter(|j| j.polarity == Polarity::Refuse) {
        let tools = patterns.refused_tools(j.text).into_iter().map(Target::Tool);
        for target in j.targets.iter().cloned().chain(tools) {
            st.add_dispute(Dispute {
                target,
                by: from.to_owned(),
                proposal: None,
                evidence: id.to_owned(),
                via: Detection::Lexical,
                explicit: j.explicit,
            });
        }
    }
}

/// Refutations of segments that name a known proposal (its targets or its id) with refusal or
/// warning language. Approval language states nothing.
pub(super) fn lexical_relations(st: &State, from: &str, items: &[Judged<'_>]) -> Vec<Stated> {
    let _ = from;
    let mut stated = Vec::new();
    for j in items.iter().filter(|j| j.polarity == Polarity::Refuse) {
        for p in &st.proposals {
            if names_proposal(j.text, &j.targets, p) {
                stated.push((p.id.clone(), Relation::Refutes, Detection::Lexical));
            }
        }
    }
    stated
}

/// The refusals of an answer to a verification request about each `asked` proposal, even when
/// it does not repeat its targets: segments naming it decide; otherwise every refusal that is not
/// about some other named target does. A reservation ("go ahead once you have a backup") next to
/// an approving verdict refuses too: the condition is not Blindfold's to check.
pub(super) fn asked_refusals(
    st: &State,
    asked: &[String],
    items: &[Judged<'_>],
    verdict_for: &BTreeSet<String>,
) -> Vec<Stated> {
    let mut stated = Vec::new();
    for pid in asked {
        let Some(p) = st.proposal(pid) else { continue };
        let about = |j: &&Judged<'_>| names_proposal(j.text, &j.targets, p);
        let naming: Vec<&Judged<'_>> = items.iter().filter(about).collect();
        let judged: Vec<&Judged<'_>> =
            if naming.iter().any(|j| j.polarity == Polarity::Refuse || j.reservation) {
                naming
            } else {
                items.iter().filter(|j| names_only_targets_of(&j.targets, p)).collect()
            };
        let refused = judged.iter().any(|j| j.polarity == Polarity::Refuse)
            || (verdict_for.contains(pid) && judged.iter().any(|j| j.reservation));
        if refused {
            stated.push((pid.clone(), Relation::Refutes, Detection::Lexical));
        }
    }
    stated
}

/// True when a clause names proposal `p`: its id as a word, or one of its targets.
pub(super) fn names_proposal(clause: &str, ctargets: &[Target], p: &ProposalRec) -> bool {
    mentions_word(clause, &p.id) || p.targets.iter().any(|t| clause_names(clause, ctargets, t))
}

/// True when `clause` names `t` (normalised comparison; words as whole words).
pub(super) fn clause_names(clause: &str, clause_targets: &[Target], t: &Target) -> bool {
    match t {
        Target::Tool(_) => false,
        Target::Command(c) => {
            let norm = shell::normalise(clause);
            !c.is_empty() && (norm.contains(c.as_str()) || clause_targets.contains(t))
        }
        Target::Word(w) => {
            w.len() >= 2
                && clause
                    .to_lowercase()
                    .split(|c: char| !(c.is_alphanumeric() || "-_.@:/".contains(c)))
                    .any(|tok| tok.trim_matches(|c| c == '.' || c == ':') == w)
        }
        _ => clause_targets.iter().any(|ct| ct == t || t.touches(ct) || ct.touches(t)),
    }
}

/// True when every target in `clause_targets` is (or touches) one of `p`'s targets: a clause
/// naming no target at all qualifies, a clause about some other target does not.
pub(super) fn names_only_targets_of(clause_targets: &[Target], p: &ProposalRec) -> bool {
    clause_targets.iter().all(|t| p.targets.iter().any(|pt| pt == t || pt.touches(t) || t.touches(pt)))
}
