//! One trajectory's state: the evidence graph and indexes over it, proposals, verify requests,
//! disputes, verifications, the ledger, replay keys (with expiry) and shared-memory records.

use crate::evidence::{ContentIndex, EvidenceGraph, Independence};
use crate::registry::DerivedAction;
use crate::text::Target;
use blindfold_schemas::{Detection, Lifecycle};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

/// An action an agent proposed (or executed itself, which is its own proposal).
#[derive(Debug, Clone)]
pub struct ProposalRec {
    /// Proposal id.
    pub id: String,
    /// Proposing agent.
    pub proposer: String,
    /// Tool.
    pub tool: String,
    /// Its arguments as proposed.
    pub args: serde_json::Map<String, Value>,
    /// Fingerprint of the proposed action.
    pub fingerprint: String,
    /// Its derived action.
    pub action: DerivedAction,
    /// Its targets.
    pub targets: Vec<Target>,
    /// The response artifact it came in.
    pub evidence: String,
}

/// A verify delegation the coordinator sent (through Blindfold) and not yet answered.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    /// The agent asked.
    pub to: String,
    /// The proposal named, if any.
    pub proposal: Option<String>,
    /// Targets named in the delegation text.
    pub targets: Vec<Target>,
    /// The delegation text (proposal ids named in it count as asked).
    pub text: String,
    /// How many proposals had been made when it was relayed: one made later (a re-proposal
    /// under an asked id included) was never shown to the verifier.
    pub proposals_before: usize,
    /// The proposals under review (pending effectful actions of other agents it names, or all of
    /// them for an explicit verify intent naming none).
    pub asked: Vec<String>,
    /// The delegation's channel id, when the transport gave one (handles were issued then).
    pub call_id: Option<String>,
}

/// A standing refutation of a target.
#[derive(Debug, Clone)]
pub struct Dispute {
    /// The disputed target.
    pub target: Target,
    /// Who refuted it.
    pub by: String,
    /// The proposal refuted, when known.
    pub proposal: Option<String>,
    /// The refuting artifact.
    pub evidence: String,
    /// How the refutation was found.
    pub via: Detection,
    /// True for an explicit refusal (a prohibition, a refusal word, a negated approval, a
    /// verdict), false for warning language only.
    pub explicit: bool,
}

impl Dispute {
    /// True when this refutation stands against an action of `proposer`: it comes from someone
    /// else, or is the proposer's own structured statement, verdict or explicit refusal (its
    /// doubts in prose about its own proposal are not a refutation).
    pub fn counts_against(&self, proposer: Option<&str>) -> bool {
        proposer != Some(self.by.as_str()) || self.via != Detection::Lexical || self.explicit
    }
}

/// A positive verification of a proposal: of the action it proposed when verified, so a
/// re-proposal under the same id with another action is not verified by it.
#[derive(Debug, Clone)]
pub struct Verification {
    /// The proposal id.
    pub proposal: String,
    /// The fingerprint of the action verified.
    pub fingerprint: String,
    /// Who verified it.
    pub by: String,
    /// The verifying artifact.
    pub evidence: String,
    /// How support was found.
    pub via: Detection,
}

/// One executed effectful action in the ledger.
#[derive(Debug, Clone)]
pub struct LedgerEntry {
    /// When, milliseconds.
    pub at_ms: u64,
    /// Who ran it.
    pub actor: String,
    /// Its fingerprint.
    pub fingerprint: String,
}

/// One record in a shared store.
#[derive(Debug, Clone)]
pub struct MemRecord {
    /// The record as written.
    pub record: Value,
    /// Writer.
    pub writer: String,
    /// Evidence artifact id.
    pub evidence: String,
    /// Lifecycle (writes land as `CANDIDATE`).
    pub lifecycle: Lifecycle,
}

/// The tool results of a source's latest reading (see [`State::source_current`]).
#[derive(Debug, Clone, Default)]
pub struct CurrentReading {
    /// Their content hash (`None` for a result without one).
    pub hash: Option<String>,
    /// Their artifact ids, oldest first.
    pub ids: Vec<String>,
}

/// Evidence text indexed by target key (`path:/x`, `word:prod`, …).
#[derive(Debug, Clone, Default)]
pub struct TargetIndex {
    keys: HashSet<String>,
}

impl TargetIndex {
    /// Indexes every resource, code span and word of `text`.
    pub fn insert_text(&mut self, text: &str) {
        for t in crate::text::target::resources_in_text(text) {
            self.keys.insert(t.key());
        }
        for span in text.split('`').skip(1).step_by(2) {
            self.keys.insert(Target::Command(crate::shell::normalise(span)).key());
            for t in crate::shell::resources(span) {
                self.keys.insert(t.key());
            }
        }
        // One key buffer for every word; a key is copied only when it is new.
        let mut key = String::with_capacity(32);
        for word in text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'))) {
            let w = word.trim_matches('.');
            if w.is_empty() {
                continue;
            }
            key.clear();
            key.push_str("word:");
            if w.is_ascii() {
                key.extend(w.bytes().map(|b| char::from(b.to_ascii_lowercase())));
            } else {
                key.push_str(&w.to_lowercase());
            }
            if !self.keys.contains(key.as_str()) {
                self.keys.insert(key.clone());
            }
        }
        // The whole text as a command, when its normal form is short (a long text is not
        // normalised at all: its form could not be short).
        let whole = text.trim();
        if crate::shell::min_normalised_len(whole) <= 512 {
            let normalised = crate::shell::normalise(whole);
            if !normalised.is_empty() && normalised.len() <= 512 {
                self.keys.insert(Target::Command(normalised).key());
            }
        }
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Indexes one target.
    pub fn insert(&mut self, t: &Target) {
        self.keys.insert(t.key());
    }

    /// True when `t` appears: exactly, as an enclosing directory, by file name, or (for a URL
    /// without a query) by its host.
    pub fn contains(&self, t: &Target) -> bool {
        if self.keys.contains(&t.key()) {
            return true;
        }
        match t {
            Target::Path(p) => {
                let mut cur = p.as_str();
                while let Some((parent, _)) = cur.rsplit_once('/') {
                    if parent.len() > 1
                        && parent.matches('/').count() + usize::from(!parent.starts_with('/')) >= 2
                        && self.keys.contains(&format!("path:{parent}"))
                    {
                        return true;
                    }
                    cur = parent;
                }
                let name = p.rsplit('/').next().unwrap_or(p);
                name.contains('.') && name != p && self.keys.contains(&format!("path:{name}"))
            }
            Target::Url(u) if !u.contains('?') => {
                crate::text::target::host_of(u).is_some_and(|h| self.keys.contains(&format!("host:{h}")))
            }
            Target::Word(w) => self.keys.contains(&format!("word:{w}")),
            Target::Host(h) => self.keys.contains(&format!("word:{h}")),
            Target::Email(e) => self.keys.contains(&format!("word:{e}")),
            _ => false,
        }
    }
}

/// A mention of a target in an agent's response (for independent corroboration).
#[derive(Debug, Clone)]
pub struct Mention {
    /// The agent.
    pub by: String,
    /// Its independence.
    pub independence: Independence,
}

/// Most bytes of a refuting answer kept for reviewers.
pub const REFUTING_TEXT_MAX: usize = 4096;

/// The start of `text`, at most [`REFUTING_TEXT_MAX`] bytes, cut at a character boundary.
pub fn refuting_excerpt(text: &str) -> String {
    let mut end = text.len().min(REFUTING_TEXT_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len() { format!("{}…", &text[..end]) } else { text.to_owned() }
}

/// A tool call that ran, as a later `tool_result` binds to it.
#[derive(Debug, Clone)]
pub struct LastCall {
    /// The tool's name.
    pub tool: String,
    /// The call's id on its channel, when it had one.
    pub call_id: Option<String>,
    /// The source key of what it reads or touches (`path:…`, `url:…`, `tool:…`).
    pub source: String,
    /// The agent that made it.
    pub actor: String,
}

/// Everything Blindfold tracks for one trajectory.
#[derive(Debug, Clone, Default)]
pub struct State {
    /// The evidence graph.
    pub graph: EvidenceGraph,
    /// True once task input (C1) was seen.
    pub has_task: bool,
    /// Trusted evidence: task input (C1).
    pub trusted: TargetIndex,
    /// Tool results (C2).
    pub observed: TargetIndex,
    /// Targets of the proposals a usable verification supports (rebuilt when evidence is
    /// revoked: [`State::reindex_verified`]).
    pub verified: TargetIndex,
    /// Target key → agents' responses naming it.
    pub mentions: HashMap<String, Vec<Mention>>,
    /// Target key → root source keys of the tool results it appeared in.
    pub c2_roots: HashMap<String, BTreeSet<String>>,
    /// Proposals in order (append only; add through [`State::add_proposal`], which indexes).
    pub proposals: Vec<ProposalRec>,
    /// Proposal id → index of its latest proposal.
    pub proposal_by_id: HashMap<String, usize>,
    /// Action fingerprint → index of the latest proposal of exactly that action.
    pub proposal_by_fingerprint: HashMap<String, usize>,
    /// Agents the coordinator gave concrete work (a delegation whose
    /// [`delegated_stage`](crate::authority::delegated_stage) is `scope`): only they may execute
    /// their own proposals (SPEC §7 intent chain).
    pub scoped: HashSet<String>,
    /// The latest verification request to each agent (kept after it is answered: a later
    /// message of the same agent still answers it).
    pub verify_requests: Vec<VerifyRequest>,
    /// Verdict handles issued (read through [`State::handle`]).
    pub handles: Vec<crate::verify::HandleRec>,
    /// How many handles were issued (each issue hashes a fresh count).
    pub handles_issued: u64,
    /// Each agent's previous answer (a refusal split over two messages is read as one).
    pub last_answer: HashMap<String, String>,
    /// `(agent, channel)` of every answer that came back on a delegation's channel.
    pub answered_channels: HashSet<(String, String)>,
    /// Fingerprints of the effectful actions that ran (no longer pending review).
    pub executed: HashSet<String>,
    /// Standing refutations (append only; add through [`State::add_dispute`], which indexes).
    pub disputes: Vec<Dispute>,
    /// Disputed target → indexes into `disputes`.
    pub dispute_index: HashMap<Target, Vec<usize>>,
    /// Refuted proposal id → indexes into `disputes`.
    pub disputes_by_proposal: HashMap<String, Vec<usize>>,
    /// Refuting evidence id → the start of the answer's text (what a reviewer reads), at most
    /// [`REFUTING_TEXT_MAX`] bytes.
    pub refuting_texts: HashMap<String, String>,
    /// Positive verifications (read through [`State::verifications_of`]).
    pub verifications: Vec<Verification>,
    /// Executed effectful actions inside the window.
    pub ledger: VecDeque<LedgerEntry>,
    /// Replay key → expiry (ms).
    pub replay: HashMap<String, u64>,
    /// Path → targets named in what was written there (runs of the file inherit them).
    pub written: HashMap<String, Vec<Target>>,
    /// Effectful actions executed per agent.
    pub actions: HashMap<String, u32>,
    /// Store → records.
    pub memory: HashMap<String, Vec<MemRecord>>,
    /// Memory write replay key → expiry (ms).
    pub memory_replay: HashMap<String, u64>,
    /// Source keys an agent observed (what Blindfold relayed to it).
    pub agent_sources: HashMap<String, BTreeSet<String>>,
    /// Target key → the agents' response artifacts that named it (in their text or a proposal).
    pub response_roots: HashMap<String, BTreeSet<String>>,
    /// Agent → the response artifacts of which Blindfold relayed content to it (what its later
    /// responses derive from).
    pub agent_relayed: HashMap<String, BTreeSet<String>>,
    /// The last tool call seen (`tool_result` without a call id binds to it).
    pub last_call: Option<LastCall>,
    /// Agent → the tool results of its own calls (what its later answers derive from).
    pub agent_observed: HashMap<String, BTreeSet<String>>,
    /// Every answer, and every tool result not bound to a sub-agent's own call, in the order
    /// observed: what the coordinator holds, and may pass on by reference ("from the parsed
    /// rates"). Only ever appended to; each entry knows how much of it its own ancestry holds.
    pub coordinator_context: crate::evidence::CoordinatorContext,
    /// Agent → how much of [`State::coordinator_context`] the coordinator held when it last
    /// delegated to it (what an answer of an agent that observed nothing itself derives from).
    pub delegated_context: HashMap<String, usize>,
    /// Word stems (first five letters of words of four or more) of C1 and C2 evidence.
    pub evidence_stems: HashSet<String>,
    /// Responses already seen (response replay), keyed by the agent, a NUL and the SHA-256 of the text.
    pub seen_responses: HashSet<String>,
    /// The wording of responses and tool results, for what a handoff carries and what copies what.
    pub content: ContentIndex,
    /// Source key (`path:…`, `url:…`, `tool:…`) → the tool-result artifacts observed from it.
    pub source_artifacts: HashMap<String, Vec<String>>,
    /// Source key → its latest reading: the tool results not yet superseded, all of one content
    /// hash. A reading with another hash supersedes exactly these, so recording a reading costs
    /// what it replaces, not how often the source was read before.
    pub source_current: HashMap<String, CurrentReading>,
    /// Target key → the tool-result artifacts whose content names it.
    pub c2_artifacts: HashMap<String, BTreeSet<String>>,
    /// Source key → the source it copies (a mirror's address → the original's).
    pub source_alias: HashMap<String, String>,
    /// Agent → the artifacts whose wording Blindfold relayed to it.
    pub content_relayed: HashMap<String, BTreeSet<String>>,
    /// Answer artifact → the artifacts whose wording had been relayed to its author.
    pub content_parents: HashMap<String, BTreeSet<String>>,
    /// Call ids of the tool calls that ran and the tool results received (what a memory
    /// record may cite as its source).
    pub tool_call_ids: HashSet<String>,
}

impl State {
    /// The source `source` counts as: the original's, for a copy.
    pub fn canonical_source(&self, source: &str) -> String {
        self.source_alias.get(source).cloned().unwrap_or_else(|| source.to_owned())
    }

    /// The proposal `id`.
    pub fn proposal(&self, id: &str) -> Option<&ProposalRec> {
        self.proposal_by_id.get(id).map(|&i| &self.proposals[i])
    }

    /// The handle record of `handle`, if Blindfold issued it in this trajectory.
    pub fn handle(&self, handle: &str) -> Option<&crate::verify::HandleRec> {
        self.handles.iter().find(|h| h.handle == handle)
    }

    /// The latest verification request to `agent`.
    pub fn request_to(&self, agent: &str) -> Option<&VerifyRequest> {
        self.verify_requests.iter().find(|r| r.to == agent)
    }

    /// The latest proposal of exactly the action `fingerprint`.
    pub fn proposal_by_fingerprint(&self, fingerprint: &str) -> Option<&ProposalRec> {
        self.proposal_by_fingerprint.get(fingerprint).map(|&i| &self.proposals[i])
    }

    /// True when `t` appears in a tool result or is a target of a verified proposal.
    pub fn evidenced(&self, t: &Target) -> bool {
        self.observed.contains(t) || (!self.verified.is_empty() && self.verified.contains(t))
    }

    /// Rebuilds [`State::verified`] from the verifications still usable: a verification whose
    /// artifact was revoked, or awaits revalidation, no longer evidences its proposal's targets.
    pub fn reindex_verified(&mut self) {
        let mut index = TargetIndex::default();
        for v in self.verifications.iter().filter(|v| self.graph.usable(&v.evidence)) {
            let verified =
                self.proposals.iter().filter(|p| p.id == v.proposal && p.fingerprint == v.fingerprint);
            for t in verified.flat_map(|p| p.targets.iter()) {
                index.insert(t);
            }
        }
        self.verified = index;
    }

    /// The verifications of exactly proposal `p`: its id and its action.
    pub fn verifications_of<'s>(&'s self, p: &'s ProposalRec) -> impl Iterator<Item = &'s Verification> {
        self.verifications.iter().filter(|v| v.proposal == p.id && v.fingerprint == p.fingerprint)
    }

    /// Records a proposal and indexes it by id and fingerprint.
    pub fn add_proposal(&mut self, p: ProposalRec) {
        let i = self.proposals.len();
        self.proposal_by_id.insert(p.id.clone(), i);
        self.proposal_by_fingerprint.insert(p.fingerprint.clone(), i);
        self.proposals.push(p);
    }

    /// Records a refutation and indexes it by target and proposal.
    pub fn add_dispute(&mut self, d: Dispute) {
        let i = self.disputes.len();
        self.dispute_index.entry(d.target.clone()).or_default().push(i);
        if let Some(p) = &d.proposal {
            self.disputes_by_proposal.entry(p.clone()).or_default().push(i);
        }
        self.disputes.push(d);
    }

    /// Indexes (ascending) of the disputes that name `proposal` or a target one of `targets`
    /// touches: the same target, a directory above a path, or the host of a URL — the disputes
    /// with `t.touches(&d.target)` for some `t`, found by lookup — and a disputed path a target
    /// path reaches from outside (a directory above it, a glob that could expand to it: see
    /// [`crate::text::target::reaches`]), found by a scan of the disputed paths.
    pub fn disputes_touching(&self, targets: &[Target], proposal: Option<&str>) -> Vec<usize> {
        let mut out = Vec::new();
        let mut add = |t: &Target| {
            if let Some(ids) = self.dispute_index.get(t) {
                out.extend_from_slice(ids);
            }
        };
        for t in targets {
            add(t);
            match t {
                Target::Path(p) => {
                    for (i, _) in p.match_indices('/') {
                        let dir = &p[..i];
                        if i > 0 && crate::text::target::is_ancestor(dir, p) {
                            add(&Target::Path(dir.to_owned()));
                        }
                    }
                    for disputed in self.dispute_index.keys() {
                        if let Target::Path(d) = disputed
                            && crate::text::target::reaches(p, d)
                        {
                            add(disputed);
                        }
                    }
                }
                Target::Url(u) => {
                    if let Some(h) = crate::text::target::host_of(u) {
                        add(&Target::Host(h));
                    }
                }
                _ => {}
            }
        }
        if let Some(ids) = proposal.and_then(|p| self.disputes_by_proposal.get(p)) {
            out.extend_from_slice(ids);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Drops replay keys and ledger entries that expired by `now_ms`.
    pub fn expire(&mut self, now_ms: u64, ledger_window_ms: u64) {
        if self.replay.len() > 64 {
            self.replay.retain(|_, exp| *exp > now_ms);
        }
        if self.memory_replay.len() > 64 {
            self.memory_replay.retain(|_, exp| *exp > now_ms);
        }
        while self.ledger.front().is_some_and(|e| e.at_ms.saturating_add(ledger_window_ms) <= now_ms) {
            self.ledger.pop_front();
        }
    }
}
