//! Informational events (task, card, delegate, response, tool result): they decide nothing
//! themselves but build the evidence the cascade reads — trusted task input, tool results,
//! proposals, verify requests, and relations detected in responses (structured, then lexical).

use crate::action;
use crate::authority::delegated_stage;
use crate::engine::Engine;
use crate::evidence::{Independence, NewArtifact, independent, relay};
use crate::shell;
use crate::state::{Dispute, Mention, ProposalRec, State, Verification, VerifyRequest};
use crate::text::polarity::{clauses_marked, segments};
use crate::text::target::resources_in_text;
use crate::text::{Polarity, Target};
use blindfold_schemas::{
    AuthorityStage, Channel, DetectedRelation, Detection, EvidenceScope, Intent, Lifecycle, ProposalRef,
    Provenance, Relation, RelationClaim, event::ProposedAction,
};
use std::collections::{BTreeSet, HashMap};

/// What observing a response produced, for the Step.
#[derive(Debug, Default)]
pub struct Observed {
    /// Relations detected.
    pub relations: Vec<DetectedRelation>,
    /// Proposals recorded.
    pub proposals: Vec<ProposalRef>,
    /// `(proposal id, action fingerprint)` of each proposal recorded.
    pub fingerprints: Vec<(String, String)>,
    /// Artifacts created.
    pub evidence: Vec<String>,
}

fn provenance(
    source_type: &str,
    source_ref: &str,
    text: &str,
    now_ms: u64,
    derived: Vec<String>,
) -> Provenance {
    hashed_provenance(source_type, source_ref, crate::canonical::sha256_hex(text.as_bytes()), now_ms, derived)
}

/// [`provenance`] of a text whose SHA-256 (lowercase hex) is `hash`.
fn hashed_provenance(
    source_type: &str,
    source_ref: &str,
    hash: String,
    now_ms: u64,
    derived: Vec<String>,
) -> Provenance {
    Provenance {
        source_type: source_type.into(),
        source_ref: source_ref.into(),
        hash: Some(hash),
        observed_at: now_ms,
        derived_from: derived,
    }
}

/// Targets named in text: resources and code spans (as whole commands plus their resources).
pub fn text_targets(text: &str) -> Vec<Target> {
    let mut out = resources_in_text(text);
    for span in text.split('`').skip(1).step_by(2) {
        let span = span.trim();
        if span.is_empty() {
            continue;
        }
        out.push(Target::Command(shell::normalise(span)));
        out.extend(shell::resources(span));
    }
    out.sort();
    out.dedup();
    out
}

/// True when `word` occurs in `text` as a whole word (proposal ids such as `p2`).
pub fn mentions_word(text: &str, word: &str) -> bool {
    word.len() >= 2
        && text
            .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
            .any(|w| w.eq_ignore_ascii_case(word))
}

/// The ids of the proposals a verify request asks about (sorted): the one it names, those whose
/// ids its `text` mentions, and those with a target among (or inside) its `targets`.
fn asked_proposals(st: &State, named: Option<&str>, text: &str, targets: &[Target]) -> Vec<String> {
    let mut ids: Vec<String> = st
        .proposals
        .iter()
        .filter(|p| {
            named == Some(p.id.as_str())
                || mentions_word(text, &p.id)
                || p.targets.iter().any(|t| {
                    !matches!(t, Target::Tool(_)) && targets.iter().any(|rt| rt == t || t.touches(rt))
                })
        })
        .map(|p| p.id.clone())
        .collect();
    if let Some(named) = named
        && !ids.iter().any(|id| id == named)
    {
        ids.push(named.to_owned());
    }
    ids.sort();
    ids.dedup();
    ids
}

/// True when a clause names proposal `p`: its id as a word, or one of its targets.
fn names_proposal(clause: &str, ctargets: &[Target], p: &ProposalRec) -> bool {
    mentions_word(clause, &p.id) || p.targets.iter().any(|t| clause_names(clause, ctargets, t))
}

/// True when `clause` names `t` (normalised comparison; words as whole words).
pub fn clause_names(clause: &str, clause_targets: &[Target], t: &Target) -> bool {
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

/// True when proposal `pid`, as it now stands, was made before `request` was relayed (so the
/// verifier answering it saw that action, not an earlier one under the same id).
fn shown_before(request: Option<&VerifyRequest>, st: &State, pid: &str) -> bool {
    request.is_some_and(|r| st.proposal_by_id.get(pid).is_some_and(|&i| i < r.proposals_before))
}

/// True when every target in `clause_targets` is (or touches) one of `p`'s targets: a clause
/// naming no target at all qualifies, a clause about some other target does not.
fn names_only_targets_of(clause_targets: &[Target], p: &ProposalRec) -> bool {
    clause_targets.iter().all(|t| p.targets.iter().any(|pt| pt == t || pt.touches(t) || t.touches(pt)))
}

/// The verdict of a verify answer's judgements about one proposal: any refusal refutes it,
/// otherwise any approval supports it; no judgement is no verdict.
fn verdict_of(judgements: &[Polarity]) -> Polarity {
    if judgements.contains(&Polarity::Refuse) {
        Polarity::Refuse
    } else if judgements.contains(&Polarity::Approve) {
        Polarity::Approve
    } else {
        Polarity::None
    }
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

/// Every root the `index` (target key → roots) holds for `targets`.
fn roots_of(index: &HashMap<String, BTreeSet<String>>, targets: &[&Target]) -> BTreeSet<String> {
    targets.iter().filter_map(|t| index.get(&t.key())).flat_map(|s| s.iter().cloned()).collect()
}

/// Indexes response artifact `id` under the `targets` it names (in its text or a proposal), so
/// a later delegation relaying any of them is known to carry its content.
fn index_response<'t>(st: &mut State, id: &str, targets: impl IntoIterator<Item = &'t Target>) {
    for t in targets.into_iter().filter(|t| !matches!(t, Target::Tool(_))) {
        st.response_roots.entry(t.key()).or_default().insert(id.to_owned());
    }
}

fn add_stems(st: &mut State, text: &str) {
    for w in text.split(|ch: char| !ch.is_alphanumeric()).filter(|w| w.chars().count() >= 4) {
        let stem: String = if w.is_ascii() {
            w.bytes().take(5).map(|b| char::from(b.to_ascii_lowercase())).collect()
        } else {
            w.to_lowercase().chars().take(5).collect()
        };
        st.evidence_stems.insert(stem);
    }
}

impl Engine {
    pub(crate) fn observe_task(&self, st: &mut State, text: &str, now_ms: u64) -> Vec<String> {
        st.has_task = true;
        st.trusted.insert_text(text);
        // The user's words are nobody's derivation (evidence::relay).
        st.content.trust(text);
        add_stems(st, text);
        let id = st.graph.add(NewArtifact {
            producer: "user".into(),
            producer_family: None,
            channel: Channel::C1,
            provenance: provenance("user", "task", text, now_ms, Vec::new()),
            independence_group: "user".into(),
            scope: EvidenceScope::default(),
        });
        st.graph.transition(&id, Lifecycle::Validated, "trusted channel C1", "blindfold", now_ms);
        vec![id]
    }

    pub(crate) fn observe_tool_result(
        &self,
        st: &mut State,
        tool: &str,
        content: &str,
        call_id: Option<&str>,
        now_ms: u64,
    ) -> Vec<String> {
        // Bind the result to its call: by call id, else the last call of that tool.
        let source = match &st.last_call {
            Some((t, cid, src))
                if (call_id.is_some() && cid.as_deref() == call_id) || (call_id.is_none() && t == tool) =>
            {
                src.clone()
            }
            _ => format!("tool:{tool}"),
        };
        // A copy of an earlier result counts under the original's source (evidence::relay).
        let lineage = relay::tool_result_lineage(st, &source, content);
        let id = st.graph.add(NewArtifact {
            producer: format!("tool:{tool}"),
            producer_family: None,
            channel: Channel::C2,
            provenance: provenance("tool", &source, content, now_ms, lineage.derived_from),
            independence_group: format!("src:{}", lineage.source),
            scope: EvidenceScope::default(),
        });
        st.observed.insert_text(content);
        add_stems(st, content);
        let named = text_targets(content);
        for t in &named {
            st.c2_roots.entry(t.key()).or_default().insert(lineage.source.clone());
        }
        if relay::record_tool_result(st, &id, (&source, &lineage.source), content, &named, now_ms) {
            st.reindex_verified();
        }
        vec![id]
    }

    pub(crate) fn observe_delegate(
        &self,
        st: &mut State,
        to: &str,
        intent: Intent,
        text: &str,
        proposal: Option<&str>,
        now_ms: u64,
    ) -> Vec<String> {
        // What Blindfold relays to an agent is part of that agent's observed ancestry. A verify
        // request shows the verifier the action it judges: naming that action's own targets
        // relays nothing of where they came from (everything else it relays does).
        let targets = text_targets(text);
        let subject: Vec<&Target> = if intent == Intent::Verify {
            asked_proposals(st, proposal, text, &targets)
                .iter()
                .filter_map(|id| st.proposal(id))
                .flat_map(|p| p.targets.iter())
                .collect()
        } else {
            Vec::new()
        };
        let relayed: Vec<&Target> = targets
            .iter()
            .filter(|t| !subject.iter().any(|s| s == t || s.touches(t) || t.touches(s)))
            .collect();
        let sources = roots_of(&st.c2_roots, &relayed);
        let mut responses = roots_of(&st.response_roots, &relayed);
        // What the handoff repeats or points at is relayed too, with the sources behind it
        // (evidence::relay).
        let (carried, pointed) = relay::relayed_artifacts(st, text, &relayed);
        let mut carried_sources = relay::sources_of(st, &carried);
        carried_sources.extend(relay::sources_of(st, &pointed));
        st.content_relayed.entry(to.to_owned()).or_default().extend(carried.iter().cloned());
        responses.extend(carried.into_iter().chain(pointed));
        st.agent_sources.entry(to.to_owned()).or_default().extend(sources.into_iter().chain(carried_sources));
        st.agent_relayed.entry(to.to_owned()).or_default().extend(responses.iter().cloned());
        if delegated_stage(intent) == AuthorityStage::Scope && !st.scoped.contains(to) {
            st.scoped.insert(to.to_owned());
        }
        if intent == Intent::Verify {
            st.verify_requests.retain(|r| r.to != to);
            st.verify_requests.push(VerifyRequest {
                to: to.to_owned(),
                proposal: proposal.map(str::to_owned),
                targets,
                text: text.to_owned(),
                proposals_before: st.proposals.len(),
            });
        }
        let id = st.graph.add(NewArtifact {
            producer: "coordinator".into(),
            producer_family: None,
            channel: Channel::C4,
            provenance: provenance("handoff", to, text, now_ms, responses.into_iter().collect()),
            independence_group: "coordinator".into(),
            scope: EvidenceScope::default(),
        });
        vec![id]
    }

    /// The independence of `agent`'s judgement in `text`: its true family and the observed root
    /// sources the text rests on (resources it names that Blindfold saw in tool results, and
    /// pages it cites). Citing can only make judgements less independent, never more.
    pub(crate) fn independence_of(&self, st: &State, agent: &str, text: &str) -> Independence {
        self.independence_from(st, agent, &text_targets(text))
    }

    /// [`Engine::independence_of`] a text whose [`text_targets`] are `targets`.
    fn independence_from(&self, st: &State, agent: &str, targets: &[Target]) -> Independence {
        let mut sources = BTreeSet::new();
        for t in targets {
            match t {
                Target::Url(_) | Target::Path(_) => {
                    sources.insert(t.key());
                    // A copy's address stands for the original's source (evidence::relay).
                    sources.insert(st.canonical_source(&t.key()));
                    if let Some(roots) = st.c2_roots.get(&t.key()) {
                        sources.extend(roots.iter().cloned());
                    }
                }
                _ => {}
            }
        }
        Independence { family: self.config.family(agent).to_owned(), sources }
    }

    /// The independence of `agent`'s support of `p`: what Blindfold relayed to the agent before
    /// this response, and what the response rests on, leaving out refusals about other proposals
    /// (the sources a refutation of another step cites say nothing about this one). Relations
    /// are per proposal.
    fn support_independence(
        &self,
        st: &State,
        agent: &str,
        items: &[(Polarity, Vec<Target>, &str)],
        p: &ProposalRec,
    ) -> Independence {
        let about: Vec<&str> = items
            .iter()
            .filter(|(pol, ct, c)| *pol != Polarity::Refuse || names_proposal(c, ct, p))
            .map(|(_, _, c)| *c)
            .collect();
        let mut support = self.independence_of(st, agent, &about.join("\n"));
        if let Some(relayed) = st.agent_sources.get(agent) {
            support.sources.extend(relayed.iter().cloned());
        }
        support
    }

    /// The independence of whoever proposed `p` (the coordinator is independent of every agent).
    pub(crate) fn proposer_independence(&self, st: &State, p: &ProposalRec) -> Independence {
        Independence {
            family: self.config.family(&p.proposer).to_owned(),
            sources: st.agent_sources.get(&p.proposer).cloned().unwrap_or_default(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn observe_response(
        &self,
        st: &mut State,
        from: &str,
        text: &str,
        proposals: &[ProposedAction],
        relations: &[RelationClaim],
        now_ms: u64,
    ) -> Observed {
        let mut out = Observed::default();
        let disputes_before = st.disputes.len();
        // The text is hashed once: for its provenance and, with its author, as the replay key.
        let text_hash = crate::canonical::sha256_hex(text.as_bytes());
        let replay_key = format!("{from}\u{0}{text_hash}");
        let replayed = !st.seen_responses.insert(replay_key) && proposals.is_empty() && relations.is_empty();
        let targets = text_targets(text);
        let indep = self.independence_from(st, from, &targets);
        // It derives from what Blindfold relayed to its author and what it cites (evidence::relay).
        let derived = relay::response_parents(st, from, &targets);
        let id = st.graph.add(NewArtifact {
            producer: from.to_owned(),
            producer_family: Some(indep.family.clone()),
            channel: Channel::C4,
            provenance: hashed_provenance("agent", from, text_hash, now_ms, derived),
            independence_group: indep.group(),
            scope: EvidenceScope::default(),
        });
        out.evidence.push(id.clone());
        index_response(st, &id, &targets);
        st.content.insert(&id, text);
        relay::record_answer(st, &id, from);
        if replayed {
            // A replayed answer adds nothing (P1 response replay): no second vote.
            return out;
        }

        // Proposals (their rationale is channel C5).
        for p in proposals {
            let action = self.config.registry.derive(&p.tool, &p.args);
            let rec = ProposalRec {
                id: p.id.clone(),
                proposer: from.to_owned(),
                tool: p.tool.clone(),
                fingerprint: action::fingerprint(&self.config.registry, &p.tool, &p.args),
                targets: action::targets(&self.config.registry, &p.tool, &p.args),
                action,
                evidence: id.clone(),
            };
            out.proposals.push(ProposalRef { proposal: rec.id.clone(), proposer: from.to_owned() });
            // The proposal rests on the answer it came in (revoking its sources reaches it).
            st.graph.originate(&id, &rec.id);
            out.fingerprints.push((rec.id.clone(), rec.fingerprint.clone()));
            index_response(st, &id, &rec.targets);
            let replaced = st
                .proposal(&rec.id)
                .filter(|old| {
                    old.proposer == from && old.fingerprint != rec.fingerprint && old.evidence != id
                })
                .map(|old| old.evidence.clone());
            st.add_proposal(rec);
            if let Some(old) = replaced {
                supersede_replaced(st, &old, &p.id, &id, now_ms);
            }
            if let Some(refuting) = standing_refutation(st, &p.id, from) {
                let reason = format!("proposal `{}` refuted by {refuting}", p.id);
                st.graph.dispute(&id, &reason, "blindfold", now_ms);
            }
        }

        // Mentions of targets (independent corroboration of external targets).
        for t in &targets {
            st.mentions
                .entry(t.key())
                .or_default()
                .push(Mention { by: from.to_owned(), independence: indep.clone() });
        }

        // The verify request this response answers, if any.
        let request =
            st.verify_requests.iter().position(|r| r.to == from).map(|i| st.verify_requests.remove(i));
        let asked: Vec<String> = match &request {
            Some(r) => asked_proposals(st, r.proposal.as_deref(), &r.text, &r.targets),
            None => Vec::new(),
        };

        // (1) Structured relations.
        let mut stated: Vec<(String, Relation, Detection)> =
            relations.iter().map(|r| (r.proposal.clone(), r.relation, Detection::Structured)).collect();

        // (2) Lexical: clauses that name a known proposal's targets (or its id) with refusal
        // or approval language; refusal clauses also dispute every resource they name.
        // Sentences, split further at contrastive markers; a single-part sentence without
        // polarity that names targets borrows a refusal from an adjacent sentence ("Do not run
        // it. `rm -rf /data` wipes the disk.").
        let patterns = &self.config.patterns;
        let sentences: Vec<Vec<(&str, Polarity)>> = clauses_marked(text)
            .into_iter()
            .map(|(s, question)| {
                segments(s).into_iter().map(|seg| (seg, patterns.statement_polarity(seg, question))).collect()
            })
            .collect();
        let refuses: Vec<bool> =
            sentences.iter().map(|segs| segs.iter().any(|(_, p)| *p == Polarity::Refuse)).collect();
        let mut items: Vec<(Polarity, Vec<Target>, &str)> = Vec::new();
        for (i, segs) in sentences.iter().enumerate() {
            for (seg, pol) in segs {
                let neighbour_refuses =
                    (i > 0 && refuses[i - 1]) || refuses.get(i + 1).copied().unwrap_or(false);
                let effective = if *pol == Polarity::None && segs.len() == 1 && neighbour_refuses {
                    Polarity::Refuse
                } else {
                    *pol
                };
                // A clause that is the whole text names what the text names.
                let ctargets = if *seg == text { targets.clone() } else { text_targets(seg) };
                items.push((effective, ctargets, seg));
            }
        }
        for (effective, ctargets, clause) in &items {
            if *effective == Polarity::Refuse {
                for t in ctargets {
                    st.add_dispute(Dispute {
                        target: t.clone(),
                        by: from.to_owned(),
                        proposal: None,
                        evidence: id.clone(),
                        via: Detection::Lexical,
                    });
                }
                for tool in patterns.refused_tools(clause) {
                    st.add_dispute(Dispute {
                        target: Target::Tool(tool),
                        by: from.to_owned(),
                        proposal: None,
                        evidence: id.clone(),
                        via: Detection::Lexical,
                    });
                }
            }
            if *effective == Polarity::None {
                continue;
            }
            let relation =
                if *effective == Polarity::Refuse { Relation::Refutes } else { Relation::FullSupport };
            for p in &st.proposals {
                if p.proposer == from && relation == Relation::FullSupport {
                    continue; // one's own approval is no evidence
                }
                if names_proposal(clause, ctargets, p) {
                    stated.push((p.id.clone(), relation, Detection::Lexical));
                }
            }
        }
        // An answer to a verify request is about the asked proposal even when it does not
        // repeat its targets: clauses naming it decide; otherwise every judgement that is not
        // about some other named target does. Either way any refusal wins (fail closed).
        for pid in &asked {
            let Some(p) = st.proposal(pid) else { continue };
            let naming: Vec<Polarity> = items
                .iter()
                .filter(|(pol, ct, c)| *pol != Polarity::None && names_proposal(c, ct, p))
                .map(|(pol, _, _)| *pol)
                .collect();
            let judgements = if naming.is_empty() {
                items
                    .iter()
                    .filter(|(pol, ct, _)| *pol != Polarity::None && names_only_targets_of(ct, p))
                    .map(|(pol, _, _)| *pol)
                    .collect()
            } else {
                naming
            };
            match verdict_of(&judgements) {
                Polarity::Refuse => stated.push((pid.clone(), Relation::Refutes, Detection::Lexical)),
                Polarity::Approve => stated.push((pid.clone(), Relation::FullSupport, Detection::Lexical)),
                Polarity::None => {}
            }
        }

        // Apply: relations into the graph, refutations to targets, support to verifications.
        let mut applied: BTreeSet<(String, String)> = BTreeSet::new();
        let refuted: BTreeSet<String> =
            stated.iter().filter(|(_, r, _)| *r == Relation::Refutes).map(|(p, _, _)| p.clone()).collect();
        for (pid, relation, via) in stated {
            // Fail closed: a proposal this response refutes anywhere is not supported by it.
            if relation != Relation::Refutes && refuted.contains(&pid) {
                continue;
            }
            if !applied.insert((pid.clone(), format!("{relation:?}"))) {
                continue;
            }
            st.graph.relate(&id, &pid, relation);
            let Some(p) = st.proposal(&pid).cloned() else {
                if relation == Relation::Refutes {
                    st.add_dispute(Dispute {
                        target: Target::Word(format!("proposal:{pid}")),
                        by: from.to_owned(),
                        proposal: Some(pid.clone()),
                        evidence: id.clone(),
                        via,
                    });
                }
                continue;
            };
            let mut counts = false;
            match relation {
                Relation::Refutes => {
                    for t in p.targets.iter().filter(|t| !matches!(t, Target::Tool(_))) {
                        st.add_dispute(Dispute {
                            target: t.clone(),
                            by: from.to_owned(),
                            proposal: Some(pid.clone()),
                            evidence: id.clone(),
                            via,
                        });
                    }
                    let refutation = Dispute {
                        target: Target::Word(format!("proposal:{pid}")),
                        by: from.to_owned(),
                        proposal: Some(pid.clone()),
                        evidence: id.clone(),
                        via,
                    };
                    if refutation.counts_against(Some(&p.proposer)) && p.evidence != id {
                        let reason = format!("proposal `{pid}` refuted by {id}");
                        st.graph.dispute(&p.evidence, &reason, "blindfold", now_ms);
                    }
                    st.add_dispute(refutation);
                }
                Relation::FullSupport => {
                    let proposer = self.proposer_independence(st, &p);
                    let support = self.support_independence(st, from, &items, &p);
                    // Repeating the proposer's own words (pasted, paraphrased, through another
                    // answer) is no independent judgement of it (evidence::relay).
                    counts = asked.contains(&pid)
                        && shown_before(request.as_ref(), st, &pid)
                        && from != p.proposer
                        && independent(&support, &proposer)
                        && !relay::repeats_agent(st, from, &p.proposer);
                    if counts {
                        st.verifications.push(Verification {
                            proposal: pid.clone(),
                            fingerprint: p.fingerprint.clone(),
                            by: from.to_owned(),
                            evidence: id.clone(),
                            via,
                        });
                        for t in &p.targets {
                            st.verified.insert(t);
                        }
                    }
                }
                _ => {}
            }
            out.relations.push(DetectedRelation {
                proposal: pid.clone(),
                proposer: p.proposer.clone(),
                by: from.to_owned(),
                relation,
                via,
                counts_as_verification: counts,
            });
        }
        if st.disputes.len() > disputes_before {
            st.graph.transition(&id, Lifecycle::Validated, "refutation recorded", "blindfold", now_ms);
        }
        // What the response cites joins its author's ancestry once its own relations are judged
        // (its support of a proposal rests on what it cites about that proposal only).
        st.agent_sources.entry(from.to_owned()).or_default().extend(indep.sources);
        out
    }
}
