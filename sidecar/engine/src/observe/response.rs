//! Observing an agent's response, as named steps: record the answer (P1 response replay), its
//! proposals and mentions, find the verification request it answers, read its verdicts (only
//! for handles issued to it on this channel), judge its prose (with the agent's previous message:
//! a refusal split over two messages is one), then state and apply the relations it carries.
//! Prose only disputes; an approval is a verdict or nothing.

use super::prose::{
    Judged, asked_refusals, judge_answer, lexical_relations, names_proposal, record_lexical_disputes,
};
use super::{Answer, Observed, hashed_provenance, index_response, text_targets};
use crate::action;
use crate::engine::Engine;
use crate::evidence::{Independence, NewArtifact, independent, relay};
use crate::state::{Dispute, Mention, ProposalRec, State, Verification};
use crate::text::{Polarity, Target};
use crate::verify::verdict_lines;
use blindfold_schemas::{
    Channel, DetectedRelation, Detection, EvidenceScope, Lifecycle, ProposalRef, Relation, VerdictWord,
    event::ProposedAction,
};
use std::collections::{BTreeSet, HashSet};

/// A relation an answer states toward a proposal, and how it was found.
pub(super) type Stated = (String, Relation, Detection);

/// The answer's own artifact, once recorded.
struct Recorded {
    /// Its evidence artifact id.
    id: String,
    /// True when the same agent already sent exactly this text (and it carries nothing else).
    replayed: bool,
    /// The targets its text names.
    targets: Vec<Target>,
    /// Its author's independence for this text.
    indep: Independence,
}

/// What the relation step needs to know about the answer being observed.
struct Relating<'a, 't> {
    from: &'a str,
    id: &'a str,
    /// The proposals whose verdicts in this answer count (handles issued to its author on its
    /// channel, structured relations in answer to that request).
    verdict_for: &'a BTreeSet<String>,
    items: &'a [Judged<'t>],
    now_ms: u64,
}

impl Engine {
    /// Observes one response (text, proposals, structured relations, the channel it came on).
    pub(crate) fn observe_response(&self, st: &mut State, a: &Answer<'_>, now_ms: u64) -> Observed {
        let from = a.from;
        if let Some(channel) = a.call_id {
            st.answered_channels.insert((from.to_owned(), channel.to_owned()));
        }
        let disputes_before = st.disputes.len();
        let replayable = a.proposals.is_empty() && a.relations.is_empty();
        let answer = self.record_answer(st, from, a.text, replayable, now_ms);
        let mut out = Observed { evidence: vec![answer.id.clone()], ..Observed::default() };
        if answer.replayed {
            // A replayed answer adds nothing (P1 response replay): no second vote.
            return out;
        }
        self.record_proposals(st, from, &answer.id, a.proposals, now_ms, &mut out);
        record_mentions(st, from, &answer.targets, &answer.indep);
        let asked: Vec<String> = st.request_to(from).map(|r| r.asked.clone()).unwrap_or_default();
        let previous = st.last_answer.insert(from.to_owned(), a.text.to_owned());
        let patterns = &self.config.patterns;
        let items = judge_answer(patterns, previous.as_deref(), a.text, &answer.targets);
        record_lexical_disputes(st, patterns, from, &answer.id, &items);
        let (mut stated, verdict_for) = verdicts(st, a, &asked);
        stated.extend(lexical_relations(st, from, &items));
        stated.extend(asked_refusals(st, &asked, &items, &verdict_for));
        let relating = Relating { from, id: &answer.id, verdict_for: &verdict_for, items: &items, now_ms };
        out.relations = self.apply_relations(st, &relating, stated);
        if st.disputes.len() > disputes_before {
            st.refuting_texts.insert(answer.id.clone(), crate::state::refuting_excerpt(a.text));
            st.graph.transition(&answer.id, Lifecycle::Validated, "refutation recorded", "blindfold", now_ms);
        }
        // What the response cites joins its author's ancestry once its own relations are judged
        // (its support of a proposal rests on what it cites about that proposal only).
        st.agent_sources.entry(from.to_owned()).or_default().extend(answer.indep.sources);
        out
    }

    /// Records the answer as an artifact (hashed once: for its provenance and, with its author,
    /// as the replay key) derived from what Blindfold relayed to its author, and indexes it
    /// under the targets it names.
    fn record_answer(
        &self,
        st: &mut State,
        from: &str,
        text: &str,
        replayable: bool,
        now_ms: u64,
    ) -> Recorded {
        let text_hash = crate::canonical::sha256_hex(text.as_bytes());
        let replay_key = format!("{from}\u{0}{text_hash}");
        let replayed = !st.seen_responses.insert(replay_key) && replayable;
        let targets = text_targets(text);
        let indep = self.independence_from(st, from, &targets);
        // It derives from what Blindfold relayed to its author and what it cites (evidence::relay).
        let derived = relay::response_parents(st, from, &targets);
        let id = st.graph.add(NewArtifact {
            producer: from.to_owned(),
            producer_family: Some(indep.family.clone()),
            channel: Channel::C4,
            provenance: hashed_provenance("agent", from, text_hash, now_ms, derived.ids),
            independence_group: indep.group(),
            scope: EvidenceScope::default(),
        });
        index_response(st, &id, &targets);
        st.content.insert_response(&id, text, from);
        relay::record_answer(st, &id, from);
        st.coordinator_context.push_covering(id.clone(), derived.context_cover);
        Recorded { id, replayed, targets, indep }
    }

    /// Records the answer's proposals (their rationale is channel C5): a re-proposal under the
    /// same id supersedes the old artifact once nothing current rests on it, and a refutation
    /// already standing against the id disputes the new one.
    fn record_proposals(
        &self,
        st: &mut State,
        from: &str,
        id: &str,
        proposals: &[ProposedAction],
        now_ms: u64,
        out: &mut Observed,
    ) {
        for p in proposals {
            let rec = self.proposal_record(from, id, p);
            out.proposals.push(ProposalRef { proposal: rec.id.clone(), proposer: from.to_owned() });
            // The proposal rests on the answer it came in (revoking its sources reaches it).
            st.graph.originate(id, &rec.id);
            out.fingerprints.push((rec.id.clone(), rec.fingerprint.clone()));
            index_response(st, id, &rec.targets);
            let replaced = st
                .proposal(&rec.id)
                .filter(|old| {
                    old.proposer == from && old.fingerprint != rec.fingerprint && old.evidence != id
                })
                .map(|old| old.evidence.clone());
            st.add_proposal(rec);
            if let Some(old) = replaced {
                supersede_replaced(st, &old, &p.id, id, now_ms);
            }
            if let Some(refuting) = standing_refutation(st, &p.id, from) {
                let reason = format!("proposal `{}` refuted by {refuting}", p.id);
                st.graph.dispute(id, &reason, "blindfold", now_ms);
            }
        }
    }

    /// The record of proposal `p` of `from`, made in artifact `id`.
    fn proposal_record(&self, from: &str, id: &str, p: &ProposedAction) -> ProposalRec {
        let registry = &self.config.registry;
        ProposalRec {
            id: p.id.clone(),
            proposer: from.to_owned(),
            tool: p.tool.clone(),
            args: p.args.clone(),
            fingerprint: action::fingerprint(registry, &p.tool, &p.args),
            targets: action::targets(registry, &p.tool, &p.args),
            action: registry.derive(&p.tool, &p.args),
            evidence: id.to_owned(),
        }
    }

    /// Applies the stated relations: into the graph, refutations onto the proposal's targets,
    /// support into verifications where it counts. Returns the relations detected.
    fn apply_relations(
        &self,
        st: &mut State,
        r: &Relating<'_, '_>,
        stated: Vec<Stated>,
    ) -> Vec<DetectedRelation> {
        let mut detected = Vec::new();
        let mut applied: HashSet<(String, Relation)> = HashSet::new();
        let refuted: BTreeSet<String> = stated
            .iter()
            .filter(|(_, rel, _)| *rel == Relation::Refutes)
            .map(|(p, _, _)| p.clone())
            .collect();
        for (pid, relation, via) in stated {
            // Fail closed: a proposal this response refutes anywhere is not supported by it.
            if relation != Relation::Refutes && refuted.contains(&pid) {
                continue;
            }
            if !applied.insert((pid.clone(), relation)) {
                continue;
            }
            st.graph.relate(r.id, &pid, relation);
            let Some(p) = st.proposal(&pid).cloned() else {
                if relation == Relation::Refutes {
                    st.add_dispute(dispute(r, Target::Word(format!("proposal:{pid}")), &pid, via));
                }
                continue;
            };
            let counts = match relation {
                Relation::Refutes => {
                    record_refutation(st, r, &p, via);
                    false
                }
                Relation::FullSupport => self.record_support(st, r, &p, via),
                _ => false,
            };
            detected.push(DetectedRelation {
                proposal: pid.clone(),
                proposer: p.proposer.clone(),
                by: r.from.to_owned(),
                relation,
                via,
                counts_as_verification: counts,
            });
        }
        detected
    }

    /// Records `r`'s support of `p` as a verification when it counts: a verdict (or a structured
    /// relation in answer to the request) for exactly the action `p` now is, by someone other
    /// than the proposer, independent of the proposer. True when it counted.
    fn record_support(&self, st: &mut State, r: &Relating<'_, '_>, p: &ProposalRec, via: Detection) -> bool {
        let proposer = self.proposer_independence(st, p);
        let support = self.support_independence(st, r.from, r.items, p);
        // Repeating the proposer's own words (pasted, paraphrased, through another answer) is no
        // independent judgement of it (evidence::relay).
        let counts = via == Detection::Verdict
            && r.verdict_for.contains(&p.id)
            && r.from != p.proposer
            && independent(&support, &proposer)
            && !relay::repeats_agent(st, r.from, &p.proposer);
        if counts {
            st.verifications.push(Verification {
                proposal: p.id.clone(),
                fingerprint: p.fingerprint.clone(),
                by: r.from.to_owned(),
                evidence: r.id.to_owned(),
                via,
            });
            for t in &p.targets {
                st.verified.insert(t);
            }
        }
        counts
    }

    /// The independence of `agent`'s support of `p`: what Blindfold relayed to the agent before
    /// this response, and what the response rests on, leaving out refusals about other proposals
    /// (the sources a refutation of another step cites say nothing about this one) and `p`'s own
    /// targets where nothing was observed from them. Relations are per proposal.
    fn support_independence(
        &self,
        st: &State,
        agent: &str,
        items: &[Judged<'_>],
        p: &ProposalRec,
    ) -> Independence {
        let about: Vec<&str> = items
            .iter()
            .filter(|j| j.polarity != Polarity::Refuse || names_proposal(j.text, &j.targets, p))
            .map(|j| j.text)
            .collect();
        let mut support = self.independence_of(st, agent, &about.join("\n"));
        if let Some(relayed) = st.agent_sources.get(agent) {
            support.sources.extend(relayed.iter().cloned());
        }
        // Naming the action under review (the command, the file it writes) is naming what is
        // judged, not a source the judgement rests on — unless Blindfold observed content from
        // it (a file read, a page fetched), which then stays a source both may rest on.
        for t in &p.targets {
            let key = t.key();
            let observed = st.source_artifacts.contains_key(&key) || st.c2_roots.contains_key(&key);
            if !observed {
                support.sources.remove(&key);
            }
        }
        support
    }
}

/// Records the targets `from` named as mentions (independent corroboration of external targets).
fn record_mentions(st: &mut State, from: &str, targets: &[Target], indep: &Independence) {
    for t in targets {
        st.mentions
            .entry(t.key())
            .or_default()
            .push(Mention { by: from.to_owned(), independence: indep.clone() });
    }
}

/// The relations an answer's verdicts state, and the proposals for which they count: a verdict
/// line counts for its handle's proposal only when the handle was issued to this agent, for this
/// channel, and still names the action the proposal now is; a structured `FULL_SUPPORT` or
/// `REFUTES` in answer to the request on its channel is a verdict for that request's actions.
/// Any other structured relation is recorded as stated (a refutation still disputes).
fn verdicts(st: &State, a: &Answer<'_>, asked: &[String]) -> (Vec<Stated>, BTreeSet<String>) {
    let mut stated = Vec::new();
    let mut counted = BTreeSet::new();
    let on_channel =
        a.call_id.is_some() && st.request_to(a.from).is_some_and(|r| r.call_id.as_deref() == a.call_id);
    for line in verdict_lines(a.text) {
        let Some(h) = st.handle(&line.handle) else { continue };
        let current = st.proposal(&h.proposal).is_some_and(|p| p.fingerprint == h.fingerprint);
        if h.to != a.from || Some(h.call_id.as_str()) != a.call_id || !current {
            continue;
        }
        let relation = match line.verdict {
            VerdictWord::Approve => Relation::FullSupport,
            VerdictWord::Refuse => Relation::Refutes,
            VerdictWord::Unsure => continue,
        };
        counted.insert(h.proposal.clone());
        stated.push((h.proposal.clone(), relation, Detection::Verdict));
    }
    for r in a.relations {
        let answers = on_channel && asked.contains(&r.proposal);
        let verdict = answers && matches!(r.relation, Relation::FullSupport | Relation::Refutes);
        if verdict {
            counted.insert(r.proposal.clone());
        }
        stated.push((
            r.proposal.clone(),
            r.relation,
            if verdict { Detection::Verdict } else { Detection::Structured },
        ));
    }
    (stated, counted)
}

/// A refutation of `target` (about proposal `pid`) by the answer `r`.
fn dispute(r: &Relating<'_, '_>, target: Target, pid: &str, via: Detection) -> Dispute {
    let explicit =
        via != Detection::Lexical || r.items.iter().any(|j| j.polarity == Polarity::Refuse && j.explicit);
    Dispute {
        target,
        by: r.from.to_owned(),
        proposal: Some(pid.to_owned()),
        evidence: r.id.to_owned(),
        via,
        explicit,
    }
}

/// Records `r`'s refutation of `p`: every target of `p` is disputed, and so is the proposal
/// itself (its artifact too, unless the refutation is the proposer's own doubt in prose).
fn record_refutation(st: &mut State, r: &Relating<'_, '_>, p: &ProposalRec, via: Detection) {
    for t in p.targets.iter().filter(|t| !matches!(t, Target::Tool(_))) {
        st.add_dispute(dispute(r, t.clone(), &p.id, via));
    }
    let refutation = dispute(r, Target::Word(format!("proposal:{}", p.id)), &p.id, via);
    if refutation.counts_against(Some(&p.proposer)) && p.evidence != r.id {
        let reason = format!("proposal `{}` refuted by {}", p.id, r.id);
        st.graph.dispute(&p.evidence, &reason, "blindfold", r.now_ms);
    }
    st.add_dispute(refutation);
}

/// Marks the artifact `old` `SUPERSEDED` once no proposal it made is current any more: each was
/// re-proposed by its proposer under the same id with another action (the last, `pid`, in
/// `newer`). An artifact still carrying a current proposal keeps its state.
fn supersede_replaced(st: &mut State, old: &str, pid: &str, newer: &str, now_ms: u64) {
    if st.proposal_by_id.values().any(|&i| st.proposals[i].evidence == old) {
        return;
    }
    let reason = format!("proposal `{pid}` re-proposed with another action in {newer}");
    st.graph.supersede(old, &reason, "blindfold", now_ms);
}

/// The artifact of a refutation that already stands against proposal `pid` of `proposer` (made
/// before the proposal itself, or against an earlier action under that id), if any: not revoked
/// and not the proposer's own doubt in prose.
fn standing_refutation(st: &State, pid: &str, proposer: &str) -> Option<String> {
    let ids = st.disputes_by_proposal.get(pid)?;
    ids.iter().map(|&i| &st.disputes[i]).find_map(|d| {
        let revoked = st.graph.get(&d.evidence).is_some_and(|a| a.lifecycle_state == Lifecycle::Revoked);
        (!revoked && d.counts_against(Some(proposer))).then(|| d.evidence.clone())
    })
}
