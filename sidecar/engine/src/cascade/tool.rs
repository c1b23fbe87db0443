//! The tool-call cascade: P1 authorized interface → P2 capability scope → P3 verified execution.

use super::glob::glob;
use super::{Check, Stop};
use super::{tool_evidence, tool_wire};
use crate::authority::COORDINATOR;
use crate::engine::Engine;
use crate::grants::ActionFacts;
use crate::registry::DerivedAction;
use crate::state::{ProposalRec, State};
use crate::text::Target;
use blindfold_schemas::{CheckId, Facts, Lifecycle, ModeSet, Reason};
use serde_json::{Map, Value};

/// Everything a tool-call check may read. Built once per call; checks never mutate state
/// (the final one consumes a grant use through the store's own atomic step).
pub struct CallCtx<'a> {
    /// The engine (config, grants).
    pub engine: &'a Engine,
    /// What grants read of the call (resources, resolved paths, criticality, size).
    pub facts: &'a ActionFacts,
    /// The trajectory's state.
    pub st: &'a State,
    /// Trajectory (task) id.
    pub task_id: &'a str,
    /// Who calls: `coordinator` or an agent id.
    pub actor: &'a str,
    /// The tool.
    pub tool: &'a str,
    /// Its arguments.
    pub args: &'a Map<String, Value>,
    /// Effect, operation, target, artifact, other arguments.
    pub action: &'a DerivedAction,
    /// The action fingerprint.
    pub fingerprint: &'a str,
    /// Every target (including what a run script names, from the ledger).
    pub targets: &'a [Target],
    /// The proposal this call executes (named, or adopted by fingerprint / operation+target).
    pub proposal: Option<&'a ProposalRec>,
    /// The sub-agent whose proposal this is; `None` for the coordinator's own call.
    pub proposer: Option<&'a str>,
    /// True when the call names its proposal (or the proposer runs it itself): then it must be
    /// exactly the proposal as verified.
    pub named: bool,
    /// A proposal id the call names that Blindfold never relayed.
    pub named_unknown: Option<&'a str>,
    /// The transport's call id.
    pub call_id: Option<&'a str>,
    /// What the transport saw of the call besides its event (its bytes, the connection's
    /// allowlist, the tool's pin): [`super::tool_wire`] checks it.
    pub wire: &'a Facts,
    /// The standing disputes against this action ([`disputes_against`], computed once).
    pub against: &'a [&'a crate::state::Dispute],
    /// Modes in force.
    pub modes: ModeSet,
    /// Milliseconds since the epoch.
    pub now_ms: u64,
    /// True at the moment of forwarding.
    pub consume: bool,
    /// The grant whose use the call took (set by the check that takes it).
    pub granted: std::cell::RefCell<Option<String>>,
}

/// The tool-call checks, in order. Why this order:
/// - P1 first: a call that is malformed is refused on structure alone, before anything reads
///   content — what the transport saw first (a call it could not read, a number the decision
///   could not hold exactly, a tool outside the connection's allowlist or whose definition
///   changed), then the registry's schema. (The trajectory's event limit comes before every
///   event kind's checks: [`super::EVERY_EVENT`].)
/// - P2 next, content-free before content-dependent: the stage allowlist and caps need only the
///   tool and the actor; argument rules and target-in-evidence read attacker-influenced values.
/// - A refuted action is decided by its refutation: `P2.target_in_evidence` defers to
///   `P3.contradiction` when a dispute stands (it holds the action for a human with the refuting
///   text, never allows it); the hard refusals before that check — P1, the stage allowlist and
///   caps, `deny` and `critical` rules, Blindfold's own secrets — and the denying checks between
///   the two (intent chain, ledger, replay) keep their place.
/// - P3 last, cheapest state lookups first: intent chain, ledger and replay are map lookups;
///   contradiction and verification read the evidence graph; the grant is checked after them so
///   a contradicted action never spends a grant use; the final check compares what executes
///   with what was approved and only then consumes the grant (atomically, at forwarding).
pub const TOOL_CALL: &[Check<ToolCheck>] = &[
    Check { id: CheckId::Schema, run: tool_wire::schema },
    Check { id: CheckId::ExactNumbers, run: tool_wire::exact_numbers },
    Check { id: CheckId::Allowlist, run: tool_wire::allowlist },
    Check { id: CheckId::ToolPin, run: tool_wire::tool_pin },
    Check { id: CheckId::Protected, run: protected },
    Check { id: CheckId::Registry, run: registry },
    Check { id: CheckId::StageAllowlist, run: stage_allowlist },
    Check { id: CheckId::ActionCap, run: action_cap },
    Check { id: CheckId::ArgumentRules, run: argument_rules },
    Check { id: CheckId::TargetInEvidence, run: tool_evidence::target_in_evidence },
    Check { id: CheckId::IntentChain, run: intent_chain },
    Check { id: CheckId::Ledger, run: ledger },
    Check { id: CheckId::Replay, run: replay },
    Check { id: CheckId::Contradiction, run: contradiction },
    Check { id: CheckId::Verification, run: verification },
    Check { id: CheckId::Grant, run: grant },
    Check { id: CheckId::ExecutedMatches, run: executed_matches },
];

/// A tool-call check function.
pub type ToolCheck = for<'a, 'b> fn(&'b CallCtx<'a>) -> Option<Stop>;

fn effectful(c: &CallCtx<'_>) -> bool {
    c.action.effect.is_effectful()
}

impl CallCtx<'_> {
    fn role(&self) -> Option<&blindfold_schemas::Role> {
        self.engine.config.roles.get(self.actor)
    }
}

/// Blindfold's own state and endpoints are off-limits to every agent it mediates (read or
/// write, whatever grants exist).
fn protected(c: &CallCtx<'_>) -> Option<Stop> {
    let what = c.engine.config.protected.touched(c.targets, c.args)?;
    Some(Stop::deny(
        Reason::ProtectedTarget,
        format!("the call reaches Blindfold's own {what}; no agent may"),
    ))
}

fn registry(c: &CallCtx<'_>) -> Option<Stop> {
    let spec = c.engine.config.registry.get(c.tool)?;
    if let Some(allowed) = &spec.args
        && let Some(extra) = c.args.keys().find(|k| !allowed.iter().any(|a| a == *k))
    {
        return Some(Stop::deny(
            Reason::InvalidSchema,
            format!("argument `{extra}` is not in the registry schema of `{}`", c.tool),
        ));
    }
    if let Some(t) = &spec.target_arg
        && spec.effect.is_effectful()
        && !c.args.contains_key(t)
    {
        return Some(Stop::deny(
            Reason::InvalidSchema,
            format!("`{}` needs its target argument `{t}`", c.tool),
        ));
    }
    None
}

fn stage_allowlist(c: &CallCtx<'_>) -> Option<Stop> {
    let tools = c.role()?.tools.as_ref()?;
    (!tools.iter().any(|t| t == c.tool)).then(|| {
        Stop::deny(Reason::ToolNotAllowed, format!("`{}` is outside this agent's stage allowlist", c.tool))
    })
}

fn action_cap(c: &CallCtx<'_>) -> Option<Stop> {
    let cap = c.role()?.max_actions?;
    let done = c.st.actions.get(c.actor).copied().unwrap_or(0);
    (effectful(c) && done >= cap).then(|| {
        Stop::deny(Reason::ActionCapExceeded, format!("this stage may take at most {cap} effectful actions"))
    })
}

fn argument_rules(c: &CallCtx<'_>) -> Option<Stop> {
    use crate::config::RuleAction;
    let mut review = None;
    for rule in c.engine.config.arg_rules.iter().filter(|r| r.tool == "*" || r.tool == c.tool) {
        let hit = c.targets.iter().any(|t| !matches!(t, Target::Tool(_)) && glob(&rule.pattern, t.value()))
            || glob(&rule.pattern, &c.action.target);
        if !hit {
            continue;
        }
        match rule.action {
            RuleAction::Deny => {
                return Some(Stop::deny(
                    Reason::ArgumentDenied,
                    format!("an argument matches the denied pattern `{}`", rule.pattern),
                ));
            }
            // A grant issued through the review queue for exactly this action is the human's
            // decision the rule asks for.
            RuleAction::Critical
                if effectful(c) && !c.human_decided(&format!("critical asset `{}`", rule.pattern)) =>
            {
                review = Some(Stop::review(
                    Reason::Undecided,
                    format!("`{}` touches a critical asset (`{}`); a human decides", c.tool, rule.pattern),
                ));
            }
            RuleAction::Critical => {}
        }
    }
    review
}

/// An effectful call must stand in the task's intent chain: a proposal it names was relayed,
/// and an agent running its own proposal (or acting unproposed, which is its own proposal) was
/// given work in the task — a `scope` or `execute` delegation (SPEC §7). The coordinator's own
/// calls and its adoption of a proposal are left to the later checks.
fn intent_chain(c: &CallCtx<'_>) -> Option<Stop> {
    if !c.modes.preverify || !effectful(c) {
        return None;
    }
    if let Some(named) = c.named_unknown {
        return Some(Stop::deny(
            Reason::Unverified,
            format!("proposal `{named}` was never relayed in this task; it cannot be executed"),
        ));
    }
    let runs_its_own = c.actor != COORDINATOR && c.proposer == Some(c.actor);
    (runs_its_own && !c.st.scoped.contains(c.actor)).then(|| {
        Stop::deny(
            Reason::Unverified,
            "this agent was given no work in this task; it may not execute its own proposals",
        )
    })
}

fn ledger(c: &CallCtx<'_>) -> Option<Stop> {
    let cap = c.engine.config.ledger_max_actions;
    if cap == 0 || !effectful(c) {
        return None;
    }
    let window_start = c.now_ms.saturating_sub(c.engine.config.ledger_window_ms);
    let recent = c.st.ledger.iter().filter(|e| e.actor == c.actor && e.at_ms > window_start).count();
    (recent >= cap as usize).then(|| {
        Stop::deny(
            Reason::ActionCapExceeded,
            format!("at most {cap} effectful actions per ledger window; wait or ask for review"),
        )
    })
}

/// The replay key of a call: its call id when the transport gives one, else its fingerprint.
pub fn replay_key(call_id: Option<&str>, fingerprint: &str) -> String {
    match call_id {
        Some(id) => format!("call:{id}"),
        None => format!("fp:{fingerprint}"),
    }
}

fn replay(c: &CallCtx<'_>) -> Option<Stop> {
    if !effectful(c) {
        return None;
    }
    let live = |key: &str| c.st.replay.get(key).is_some_and(|exp| *exp > c.now_ms);
    if let Some(id) = c.call_id
        && live(&replay_key(Some(id), c.fingerprint))
    {
        return Some(Stop::deny(Reason::ReplayedAction, "this call id was already executed"));
    }
    if c.call_id.is_none() && live(&replay_key(None, c.fingerprint)) {
        // A grant that still has uses for exactly this action authorises the repeat.
        let granted = c.modes.grants && (c.matching_grant().is_some() || c.scope_covers());
        if !granted {
            return Some(Stop::deny(
                Reason::ReplayedAction,
                "the same action ran moments ago; a repeat needs its own approval",
            ));
        }
    }
    None
}

/// The standing disputes against this action (excluding an agent's lexical doubts about its own
/// proposal — a refutation must come from someone else).
pub fn disputes_against<'s>(
    st: &'s State,
    targets: &[Target],
    proposal: Option<&ProposalRec>,
    proposer: Option<&str>,
) -> Vec<&'s crate::state::Dispute> {
    st.disputes_touching(targets, proposal.map(|p| p.id.as_str()))
        .into_iter()
        .map(|i| &st.disputes[i])
        .filter(|d| {
            // A revoked refutation no longer stands; one awaiting revalidation still does.
            let revoked = st.graph.get(&d.evidence).is_some_and(|a| a.lifecycle_state == Lifecycle::Revoked);
            !revoked && d.counts_against(proposer)
        })
        .collect()
}

pub(super) fn contradiction(c: &CallCtx<'_>) -> Option<Stop> {
    if !c.modes.preverify || !effectful(c) {
        return None;
    }
    let first = c.against.first()?;
    if c.review_grant() {
        return None;
    }
    // The human also learns what the evidence check would have said (it defers to this one).
    let unbacked = tool_evidence::missing_evidence(c)
        .map(|gap| format!("; nor is it backed: {}", gap.detail))
        .unwrap_or_default();
    Some(Stop::review(
        Reason::Contradicted,
        format!(
            "contradicting evidence stands against this action (it touches `{}`); a human must resolve it{unbacked}",
            first.target.value()
        ),
    ))
}

fn verification(c: &CallCtx<'_>) -> Option<Stop> {
    if !c.modes.preverify || !effectful(c) {
        return None;
    }
    let proposer = c.proposer?;
    // A proposal whose own answer is no longer usable (revoked, or resting on revoked or
    // superseded evidence) must be made and verified again (seed `evidence-state` §31).
    if c.proposal.is_some_and(|p| !c.st.graph.usable(&p.evidence)) && !c.review_grant() {
        return Some(Stop::deny(Reason::Unverified, super::STALE_PROPOSAL));
    }
    // Only usable evidence verifies: a revoked or quarantined answer, or one whose sources
    // await revalidation, no longer counts.
    let verified = c.proposal.is_some_and(|p| {
        c.st.verifications_of(p).any(|v| v.by != proposer && c.st.graph.usable(&v.evidence))
    });
    if verified || c.review_grant() {
        return None;
    }
    // Held, not denied: a human approving it in review is a verification (SPEC §5).
    Some(Stop::review(
        Reason::Unverified,
        "this action has no verdict from an independent verifier yet; delegate a verification and relay its answer, or a human decides",
    ))
}

fn grant(c: &CallCtx<'_>) -> Option<Stop> {
    if !c.modes.grants || !effectful(c) {
        return None;
    }
    let d = c.grant_decision(true);
    (!d.is_allow()).then(|| Stop::deny(d.reason, d.detail.unwrap_or_default()))
}

fn executed_matches(c: &CallCtx<'_>) -> Option<Stop> {
    if let Some(p) = c.proposal
        && effectful(c)
        && p.fingerprint != c.fingerprint
        && c.named
    {
        return Some(Stop::deny(
            Reason::ExecutedMismatch,
            format!(
                "the call differs from proposal `{}` as it was verified; re-propose the exact action",
                p.id
            ),
        ));
    }
    if c.modes.grants && effectful(c) && c.consume {
        let d = c.grant_decision(false);
        if !d.is_allow() {
            return Some(Stop::deny(d.reason, d.detail.unwrap_or_default()));
        }
        *c.granted.borrow_mut() = d.grant;
    }
    None
}
