//! Informational events (task, card, delegate, response, tool result): they decide nothing
//! themselves but build the evidence the cascade reads — trusted task input, tool results,
//! proposals, verify requests, and relations detected in responses (structured, then lexical).

mod prose;
mod response;

use crate::authority::delegated_stage;
use crate::engine::Engine;
use crate::evidence::{Independence, NewArtifact, relay};
use crate::shell;
use crate::state::{ProposalRec, State, VerifyRequest};
use crate::text::Target;
use crate::text::target::resources_in_text;
use crate::verify::{HandleRec, IssuedHandle, VerificationRequest, instruction, issue_handle};
use blindfold_schemas::{
    AuthorityStage, Channel, DetectedRelation, EvidenceScope, Intent, Lifecycle, ProposalRef, Provenance,
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
pub(super) fn hashed_provenance(
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

/// One delegation as the engine receives it.
pub(crate) struct Delegation<'a> {
    pub(crate) to: &'a str,
    pub(crate) intent: Intent,
    pub(crate) text: &'a str,
    pub(crate) proposal: Option<&'a str>,
    pub(crate) call_id: Option<&'a str>,
}

/// One answer as the engine receives it.
pub(crate) struct Answer<'a> {
    pub(crate) from: &'a str,
    pub(crate) text: &'a str,
    pub(crate) proposals: &'a [blindfold_schemas::event::ProposedAction],
    pub(crate) relations: &'a [blindfold_schemas::RelationClaim],
    pub(crate) call_id: Option<&'a str>,
}

/// The proposals a delegation to `to` puts under review (sorted): the pending effectful actions
/// of other agents it names (by id, by the proposal it is about, or by a target), or, for an
/// explicit verify intent naming none, every pending effectful action of others.
fn under_review(
    st: &State,
    to: &str,
    intent: Intent,
    named: Option<&str>,
    text: &str,
    targets: &[Target],
) -> Vec<String> {
    let pending = |id: &str| {
        st.proposal(id).is_some_and(|p| {
            p.proposer != to && p.action.effect.is_effectful() && !st.executed.contains(&p.fingerprint)
        })
    };
    let mut ids: Vec<String> =
        asked_proposals(st, named, text, targets).into_iter().filter(|id| pending(id)).collect();
    if ids.is_empty() && intent == Intent::Verify {
        ids = st.proposal_by_id.keys().filter(|id| pending(id)).cloned().collect();
        ids.sort();
    }
    ids
}

/// The ids of the proposals a verify request asks about (sorted): the one it names, those whose
/// ids its `text` mentions, and those with a target among (or inside) its `targets`.
pub(super) fn asked_proposals(
    st: &State,
    named: Option<&str>,
    text: &str,
    targets: &[Target],
) -> Vec<String> {
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

/// Every root the `index` (target key → roots) holds for `targets`.
fn roots_of(index: &HashMap<String, BTreeSet<String>>, targets: &[&Target]) -> BTreeSet<String> {
    targets.iter().filter_map(|t| index.get(&t.key())).flat_map(|s| s.iter().cloned()).collect()
}

/// Indexes response artifact `id` under the `targets` it names (in its text or a proposal), so
/// a later delegation relaying any of them is known to carry its content.
pub(super) fn index_response<'t>(st: &mut State, id: &str, targets: impl IntoIterator<Item = &'t Target>) {
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
        if let Some(cid) = call_id {
            st.tool_call_ids.insert(cid.to_owned());
        }
        // Bind the result to its call: by call id, else the last call of that tool.
        let bound = st.last_call.as_ref().filter(|c| {
            (call_id.is_some() && c.call_id.as_deref() == call_id) || (call_id.is_none() && c.tool == tool)
        });
        let source = bound.map_or_else(|| format!("tool:{tool}"), |c| c.source.clone());
        let observer = bound.map(|c| c.actor.clone()).filter(|a| a != "coordinator");
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
        relay::record_observer(st, &id, observer);
        vec![id]
    }

    /// Observes a delegation: what it relays joins the delegate's ancestry, a scope delegation
    /// gives it work, and a delegation that names pending effectful actions of others (or
    /// carries an explicit verify intent) is a verification request — relayed under a channel
    /// id, it gets one handle per action and the instruction its transport adds.
    pub(crate) fn observe_delegate(
        &self,
        st: &mut State,
        trajectory: &str,
        d: &Delegation<'_>,
        now_ms: u64,
    ) -> (Vec<String>, Option<VerificationRequest>) {
        let Delegation { to, intent, text, proposal, call_id } = *d;
        // What Blindfold relays to an agent is part of that agent's observed ancestry. A verify
        // request shows the verifier the action it judges: naming that action's own targets
        // relays nothing of where they came from (everything else it relays does).
        let targets = text_targets(text);
        let asked = under_review(st, to, intent, proposal, text, &targets);
        let subject: Vec<&Target> = if intent == Intent::Verify {
            asked.iter().filter_map(|id| st.proposal(id)).flat_map(|p| p.targets.iter()).collect()
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
        // (evidence::relay); a verify request's quote of the action it asks about is not.
        let quoted: Vec<String> = if intent == Intent::Verify {
            asked
                .iter()
                .filter_map(|id| st.proposal(id))
                .flat_map(|p| p.args.values().filter_map(serde_json::Value::as_str).map(str::to_owned))
                .collect()
        } else {
            Vec::new()
        };
        let (carried, pointed) = relay::relayed_artifacts(st, &relay::unquoted(text, &quoted), &relayed);
        let mut carried_sources = relay::sources_of(st, &carried);
        carried_sources.extend(relay::sources_of(st, &pointed));
        st.content_relayed.entry(to.to_owned()).or_default().extend(carried.iter().cloned());
        responses.extend(carried.into_iter().chain(pointed));
        st.agent_sources.entry(to.to_owned()).or_default().extend(sources.into_iter().chain(carried_sources));
        st.agent_relayed.entry(to.to_owned()).or_default().extend(responses.iter().cloned());
        relay::record_delegated_context(st, to);
        if delegated_stage(intent) == AuthorityStage::Scope && !st.scoped.contains(to) {
            st.scoped.insert(to.to_owned());
        }
        let request =
            (!asked.is_empty()).then(|| self.issue_handles(st, trajectory, to, call_id, &asked)).flatten();
        if intent == Intent::Verify || !asked.is_empty() {
            st.verify_requests.retain(|r| r.to != to);
            st.verify_requests.push(VerifyRequest {
                to: to.to_owned(),
                proposal: proposal.map(str::to_owned),
                targets,
                text: text.to_owned(),
                proposals_before: st.proposals.len(),
                asked,
                call_id: call_id.map(str::to_owned),
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
        (vec![id], request)
    }

    /// Issues one handle per proposal in `asked` for a request to `to` relayed under
    /// `call_id`; `None` without a channel id (nothing would carry the answer back).
    fn issue_handles(
        &self,
        st: &mut State,
        trajectory: &str,
        to: &str,
        call_id: Option<&str>,
        asked: &[String],
    ) -> Option<VerificationRequest> {
        let call_id = call_id?;
        let family = self.config.family(to).to_owned();
        let mut issued = Vec::new();
        for pid in asked {
            let Some(p) = st.proposal(pid).cloned() else { continue };
            let mut rec = HandleRec {
                handle: String::new(),
                proposal: p.id.clone(),
                fingerprint: p.fingerprint.clone(),
                to: to.to_owned(),
                family: family.clone(),
                call_id: call_id.to_owned(),
            };
            st.handles_issued += 1;
            rec.handle = issue_handle(&self.config.handle_secret, trajectory, &rec, st.handles_issued);
            let args = &p.args;
            issued.push(IssuedHandle {
                handle: rec.handle.clone(),
                proposal: p.id.clone(),
                tool: p.tool.clone(),
                action: crate::verify::render_action(&p.tool, args),
            });
            st.handles.push(rec);
        }
        (!issued.is_empty())
            .then(|| VerificationRequest { instruction: instruction(&issued), handles: issued })
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

    /// The independence of whoever proposed `p` (the coordinator is independent of every agent).
    pub(crate) fn proposer_independence(&self, st: &State, p: &ProposalRec) -> Independence {
        Independence {
            family: self.config.family(&p.proposer).to_owned(),
            sources: st.agent_sources.get(&p.proposer).cloned().unwrap_or_default(),
        }
    }
}
