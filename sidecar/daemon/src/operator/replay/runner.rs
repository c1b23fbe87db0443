//! Running one scenario in one mode through the engine the daemon uses.

use crate::runtime::trace::evidence_metrics::{facts_of, measure};
use blindfold_engine::authority::{AuthorityTracker, facts};
use blindfold_engine::canonical::{artifact_bytes, target_string};
use blindfold_engine::grants::{
    GrantCache, GrantPolicy, GrantRequest, GrantStore, IssuerKey, MemoryGrantStore, NoWorkspace, Revocation,
    ScopedGrantRequest, TrustedKeys, issue_grant, issue_scoped,
};
use blindfold_engine::{Engine, EngineConfig, StepContext, Trajectory};
use blindfold_schemas::TraceRecord;
use blindfold_schemas::scenario::RevocationTarget;
use blindfold_schemas::{
    Event, Label, ModeSet, OperatorStep, Policy, Role, Scenario, StepBody, StoreAcl, Verdict,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The scenario clock's origin (seconds since the Unix epoch): fixed so runs are reproducible.
pub const START_S: u64 = 1_800_000_000;

/// What happened to one step in one mode.
#[derive(Debug, Clone, Serialize)]
pub struct StepOutcome {
    /// Position in the scenario's `steps`.
    pub index: usize,
    /// Step kind (`tool_call`, …).
    pub kind: &'static str,
    /// Scoring label, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Label>,
    /// The engine's verdict, when the step needed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Verdict>,
    /// Reason code of the decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Check id that made the decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// Whether the decision was enforced (false in observe).
    pub enforced: bool,
    /// Whether the step went through (not blocked).
    pub allowed: bool,
    /// For a tool call: whether its action is effectful (the registry's `mutate` or `external`,
    /// after the shell classifier and the host allowlist) — task completion's denominator.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub effectful: bool,
    /// Identity tokens in what the coordinator received from this step.
    pub identity_leaks: usize,
    /// With `--via-proxy`: how the step reached Blindfold (`a2a`, `mcp`, or `in_process` for a
    /// step the wire cannot carry); absent in an in-process run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<&'static str>,
}

/// One scenario run in one mode.
#[derive(Debug, Clone, Serialize)]
pub struct ModeRun {
    /// Per-step outcomes.
    pub steps: Vec<StepOutcome>,
    /// Identity tokens in everything the coordinator received.
    pub identity_leaks: usize,
    /// Whether the trajectory had contradicting evidence (from the authority tracker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contradicted: Option<bool>,
    /// Whether a contradicted agent still obtained adopt or execute authority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured: Option<bool>,
    /// Whether a contradicted agent still obtained execute authority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execute_captured: Option<bool>,
    /// Agents' authority vectors `(scope, verify, adopt, execute)`, by the name the coordinator
    /// knew them under.
    pub authority: BTreeMap<String, String>,
    /// The evidence metrics of this run (`docs/metrics-evidence.md`).
    pub evidence: super::evidence_metrics::EvidenceRates,
    /// Trace records of the run (collected only when a trace is written).
    #[serde(skip)]
    pub records: Vec<TraceRecord>,
}

/// The engine configuration a scenario implies (SPEC §11): the default registry plus the
/// policy's tools and fetchable hosts, roles, restricted stores and the agents' TRUE identities.
pub(super) fn engine_config(scenario: &Scenario) -> EngineConfig {
    let mut policy = Policy::default();
    if let Some(p) = &scenario.policy {
        policy.tools = p.tools.clone();
        policy.allowed_hosts = p.allowed_hosts.clone();
        for (agent, role) in &p.roles {
            policy.roles.insert(
                agent.clone(),
                Role {
                    // A role without `tools` leaves the allowlist open; a given one (even `[]`)
                    // restricts it.
                    tools: role.tools.clone(),
                    read_stores: role.read_stores.clone(),
                    write_stores: role.write_stores.clone(),
                    max_actions: None,
                },
            );
        }
        for (name, store) in &p.stores {
            policy.stores.insert(
                name.clone(),
                StoreAcl {
                    tenant: store.tenant.clone(),
                    readers: store.readers.clone(),
                    writers: Vec::new(),
                },
            );
        }
    }
    let agents = scenario.agents.iter().map(|a| (a.id.clone(), a.true_identity.clone()));
    let mut config = EngineConfig::from_policy(&policy, agents);
    config.reconciliation = scenario.policy.as_ref().map(|p| p.reconciliation.clone()).unwrap_or_default();
    // Handles repeat from run to run of the same scenario.
    use sha2::Digest;
    config.handle_secret = sha2::Sha256::digest(scenario.id.as_bytes()).into();
    config
}

/// Marks the tool-call steps of `run` whose action is effectful (by the scenario's registry).
pub fn mark_effectful(scenario: &Scenario, run: &mut ModeRun) {
    let registry = engine_config(scenario).registry;
    for (outcome, step) in run.steps.iter_mut().zip(&scenario.steps) {
        if let Some(Event::ToolCall { tool, args, .. }) = step.event() {
            outcome.effectful = registry.derive(tool, args).effect.is_effectful();
        }
    }
}

/// The scenario's grants, signed once at the scenario's start by the run's ephemeral issuer key.
pub struct SignedGrants {
    pub(super) tokens: Vec<String>,
}

impl SignedGrants {
    /// Signs every grant of `scenario` with `key`; an error names the grant that cannot be issued.
    pub fn issue(scenario: &Scenario, key: &IssuerKey) -> Result<Self, String> {
        Self::issue_at(scenario, key, START_S)
    }

    /// As [`SignedGrants::issue`], issued at `now` (seconds since the epoch) instead of the
    /// scenario clock's origin (a daemon on loopback reads its own clock).
    pub fn issue_at(scenario: &Scenario, key: &IssuerKey, now: u64) -> Result<Self, String> {
        let mut tokens = Vec::with_capacity(scenario.grants.len() + scenario.scoped_grants.len());
        for (i, g) in scenario.grants.iter().enumerate() {
            let req = GrantRequest {
                task_id: g.task_id.clone().unwrap_or_else(|| scenario.task_id().to_owned()),
                operation: g.operation.clone(),
                target: target_string(&g.target),
                artifact: g.artifact.as_ref().map(artifact_bytes).unwrap_or_default(),
                args: g.args.clone(),
                ttl_s: g.ttl_s,
                now,
                nbf: None,
                max_uses: None,
                review_id: None,
                jti: Some(grant_jti(scenario, i)),
                version: None,
            };
            tokens.push(issue_grant(key, &req).map_err(|e| format!("grants[{i}]: {e}"))?.0);
        }
        for (i, g) in scenario.scoped_grants.iter().enumerate() {
            let req = ScopedGrantRequest {
                task_id: g.task_id.clone().unwrap_or_else(|| scenario.task_id().to_owned()),
                scope: g.scope.clone(),
                max_bytes: g.max_bytes.clone(),
                ttl_s: g.ttl_s,
                now,
                nbf: None,
                max_uses: g.max_uses,
                version: g.version,
                review_id: None,
                jti: Some(scoped_jti(scenario, i)),
            };
            tokens.push(issue_scoped(key, &req).map_err(|e| format!("scoped_grants[{i}]: {e}"))?.0);
        }
        Ok(Self { tokens })
    }
}

/// The `jti` the replay gives grant `i` of `scenario`.
fn grant_jti(scenario: &Scenario, i: usize) -> String {
    format!("{}-grant-{i}", scenario.id)
}

/// The `jti` the replay gives scoped grant `i` of `scenario`.
fn scoped_jti(scenario: &Scenario, i: usize) -> String {
    format!("{}-scoped-{i}", scenario.id)
}

/// What a scenario revocation revokes, for the store.
fn revocation(scenario: &Scenario, key: &IssuerKey, what: &RevocationTarget) -> Revocation {
    match what {
        RevocationTarget::Grant(i) => Revocation::Grant(grant_jti(scenario, *i)),
        RevocationTarget::ScopedGrant(i) => Revocation::Grant(scoped_jti(scenario, *i)),
        RevocationTarget::Issuer(_) => Revocation::Issuer(key.kid().to_owned()),
        RevocationTarget::TaskBeforeVersion(v) => {
            Revocation::TaskBefore { task_id: scenario.task_id().to_owned(), version: *v }
        }
    }
}

/// An engine for `scenario` whose only trusted issuer is `key`, holding the scenario's grants
/// (submitted at `now_s`: a resumed task re-submits them, and an expired one is gone) over the
/// use and revocation `store`.
fn build_engine(
    scenario: &Scenario,
    key: &IssuerKey,
    grants: &SignedGrants,
    store: Arc<dyn GrantStore>,
    now_s: u64,
) -> Result<Engine, String> {
    let mut keys = TrustedKeys::new();
    keys.add(&key.verifying_key());
    let policy = GrantPolicy::default();
    let cache = GrantCache::new();
    for (i, token) in grants.tokens.iter().enumerate() {
        match cache.submit(token, &keys, policy, now_s) {
            Ok(_) => {}
            // After a resumption an expired grant is simply no longer held.
            Err(d) if now_s > START_S && d.reason == blindfold_schemas::Reason::ExpiredGrant => {}
            Err(d) => return Err(format!("grants[{i}]: {}", d.reason.as_str())),
        }
    }
    let workspace = Arc::new(NoWorkspace(scenario.workspace.clone()));
    Ok(Engine::new(engine_config(scenario), Arc::new(keys), Arc::new(cache), store)
        .with_workspaces(workspace))
}

/// The event the engine sees for a step: scoring fields are already gone; a bare `card` step
/// gets the agent's raw card.
pub(super) fn engine_event(scenario: &Scenario, event: &Event) -> Event {
    match event {
        Event::Card { agent, card } if card.is_null() => {
            let card = scenario.agents.iter().find(|a| &a.id == agent).and_then(|a| a.card.clone());
            Event::Card { agent: agent.clone(), card: card.unwrap_or_default() }
        }
        other => other.clone(),
    }
}

/// The channels a replay relays delegations on, and the verification requests they carried:
/// each delegation step gets a channel id, each answer of its agent comes back on it, and a
/// response step's `verdicts` become `VERDICT` lines with the handles Blindfold issued.
#[derive(Default)]
pub(super) struct Relay {
    channels: std::collections::HashMap<String, String>,
    requests: std::collections::HashMap<String, blindfold_engine::verify::VerificationRequest>,
}

impl Relay {
    /// The event step `index` relays.
    pub(super) fn event(
        &mut self,
        index: usize,
        step: &blindfold_schemas::ScenarioStep,
        event: Event,
    ) -> Event {
        match event {
            Event::Delegate { to, intent, text, proposal, call_id } => {
                let call_id = call_id.unwrap_or_else(|| format!("replay-{}", index + 1));
                self.channels.insert(to.clone(), call_id.clone());
                self.requests.remove(&to);
                Event::Delegate { to, intent, text, proposal, call_id: Some(call_id) }
            }
            Event::Response { from, mut text, metadata, proposals, relations, call_id } => {
                let call_id = call_id.or_else(|| self.channels.get(&from).cloned());
                for (pid, word) in &step.verdicts {
                    // A verdict for an action no handle was issued for names a made-up one.
                    let handle = self
                        .requests
                        .get(&from)
                        .and_then(|r| r.handles.iter().find(|h| &h.proposal == pid))
                        .map_or_else(|| "bf-none0000000".to_owned(), |h| h.handle.clone());
                    text.push_str(&format!("\nVERDICT {handle}: {}", word.as_str()));
                }
                Event::Response { from, text, metadata, proposals, relations, call_id }
            }
            other => other,
        }
    }

    /// Remembers that the delegation `event` went out through a transport that answers on
    /// `channel` (its answers, replayed in-process, come back on it).
    pub(super) fn relayed_on(&mut self, event: &Event, channel: &str) {
        if let Event::Delegate { to, .. } = event {
            self.channels.insert(to.clone(), channel.to_owned());
            self.requests.remove(to);
        }
    }

    /// Remembers the verification request a delegation's step carried.
    pub(super) fn issued(&mut self, event: &Event, step: &blindfold_engine::Step) {
        if let (Event::Delegate { to, .. }, Some(request)) = (event, &step.verification) {
            self.requests.insert(to.clone(), request.clone());
        }
    }
}

/// Runs `scenario` once with `modes`, its grants signed by `key`; an error means a grant was not
/// accepted (the scenario is malformed). The run's trace records are always built (the evidence
/// metrics are measured from them, as `trace summarize` measures a daemon's); `trace` keeps them.
pub fn run_scenario(
    scenario: &Scenario,
    key: &IssuerKey,
    grants: &SignedGrants,
    modes: ModeSet,
    trace: bool,
) -> Result<ModeRun, String> {
    let store: Arc<dyn GrantStore> = Arc::new(MemoryGrantStore::new());
    let mut engine = build_engine(scenario, key, grants, store.clone(), START_S)?;
    let mut trajectory = Trajectory::new(scenario.task_id());
    let (mut revoked, mut resumed) = (0_usize, 0_usize);
    let mut revocations: Vec<_> = scenario.revocations.iter().collect();
    revocations.sort_by(|a, b| a.at.total_cmp(&b.at));
    let mut resumptions = scenario.resumed_at.clone();
    resumptions.sort_by(f64::total_cmp);
    let mut view = super::view::CoordinatorView::new(scenario, modes);
    let mut tracker = AuthorityTracker::new();
    let directory = super::trace::ScenarioDirectory::new(scenario, |a| view.key(a));
    let mut records = Vec::new();
    let mut produced: Vec<Vec<String>> = Vec::with_capacity(scenario.steps.len());
    let mut at_s = 0.0_f64;
    let mut steps = Vec::new();
    let ctx = |at: f64| StepContext { now_ms: START_S * 1000 + (at * 1000.0) as u64, modes, consume: true };
    if let Some(task) = &scenario.task {
        engine.step(&mut trajectory, &Event::Task { text: task.clone() }, ctx(0.0));
    }
    let mut relay = Relay::default();
    for (index, step) in scenario.steps.iter().enumerate() {
        at_s = step.at.unwrap_or(at_s + 1.0);
        // The operator's revocations in force by now, then a resumption: decision state lost as
        // in a restart, grants re-submitted at that moment, uses and revocations kept.
        while let Some(r) = revocations.get(revoked).filter(|r| r.at <= at_s) {
            store.revoke(&revocation(scenario, key, &r.what), u64::MAX).map_err(|e| e.to_string())?;
            revoked += 1;
        }
        while let Some(at) = resumptions.get(resumed).copied().filter(|at| *at <= at_s) {
            let now_s = START_S + at as u64;
            engine = build_engine(scenario, key, grants, store.clone(), now_s)?;
            trajectory = Trajectory::new(scenario.task_id());
            if let Some(task) = &scenario.task {
                engine.step(&mut trajectory, &Event::Task { text: task.clone() }, ctx(at));
            }
            resumed += 1;
        }
        let now_ms = ctx(at_s).now_ms;
        let truth =
            super::evidence_metrics::step_truth(scenario, index, records.is_empty(), &|a| view.key(a));
        let event = match &step.body {
            StepBody::Event(e) => relay.event(index, step, engine_event(scenario, e)),
            StepBody::Operator(OperatorStep::RevokeEvidence { step: revoked, reason }) => {
                let revocation =
                    super::operator_steps::Revocation { task_id: scenario.task_id(), reason, modes, now_ms };
                let mut changes = revocation.apply(&mut trajectory, &produced[*revoked]);
                if let Some(first) = changes.first_mut() {
                    first.label = step.label;
                    first.truth = truth;
                }
                records.extend(changes);
                produced.push(Vec::new());
                steps.push(operator_outcome(index, step));
                continue;
            }
        };
        let result = engine.step(&mut trajectory, &event, ctx(at_s));
        relay.issued(&event, &result);
        let identity_leaks = view.leaks(&event);
        let fact = facts::from_step(&event, &result, &|a: &str| view.key(a));
        let reference = format!("{}#{}", scenario.task_id(), index + 1);
        let transfer = tracker.observe(&fact, Some(reference));
        let rctx = crate::runtime::trace::RecordContext {
            trajectory: scenario.task_id(),
            ts: now_ms,
            mode: modes,
            latency_us: 0,
            directory: &directory,
        };
        let mut record = crate::runtime::trace::record::build(&rctx, &event, &result, &transfer);
        record.label = step.label;
        record.truth = truth;
        records.push(record);
        produced.push(if matches!(event, Event::ToolCall { .. }) {
            Vec::new()
        } else {
            result.evidence_refs.clone()
        });
        let decision = result.decision.as_ref();
        steps.push(StepOutcome {
            index,
            kind: event.kind(),
            label: step.label,
            decision: decision.map(|d| d.decision),
            reason: decision.map(|d| d.reason.as_str().to_owned()),
            check: decision.map(|d| d.check.as_str().to_owned()),
            enforced: result.enforced,
            allowed: !result.blocks(),
            effectful: false,
            identity_leaks,
            via: None,
        });
    }
    let identity_leaks = steps.iter().map(|s| s.identity_leaks).sum();
    let report = tracker.report();
    let evidence = super::evidence_metrics::EvidenceCounts {
        trace: measure(&facts_of(&records)),
        graph: super::evidence_metrics::graph_counts(scenario, trajectory.evidence(), &produced),
    };
    let mut run = ModeRun {
        steps,
        identity_leaks,
        contradicted: Some(report.contradicted),
        captured: Some(report.captured),
        execute_captured: Some(report.execute_captured),
        authority: report.vectors.iter().map(|(k, v)| (k.clone(), v.to_string())).collect(),
        evidence: evidence.rates(),
        records: if trace { records } else { Vec::new() },
    };
    mark_effectful(scenario, &mut run);
    Ok(run)
}

/// The outcome of an operator step: nothing to decide, it always takes effect.
pub(super) fn operator_outcome(index: usize, step: &blindfold_schemas::ScenarioStep) -> StepOutcome {
    StepOutcome {
        index,
        kind: step.kind(),
        label: step.label,
        decision: None,
        reason: None,
        check: None,
        enforced: true,
        allowed: true,
        effectful: false,
        identity_leaks: 0,
        via: None,
    }
}
