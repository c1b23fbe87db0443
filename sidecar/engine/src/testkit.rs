//! Test support shared by unit tests, property tests and benchmarks: an engine with an
//! ephemeral issuer key, grant issuing in one call, and event constructors.

use crate::grants::{
    GrantCache, GrantPolicy, GrantRequest, IssuerKey, MemoryGrantStore, TrustedKeys, issue_grant,
};
use crate::{Engine, EngineConfig, Input, Step, StepContext, Trajectory};
use blindfold_schemas::event::ProposedAction;
use blindfold_schemas::{AgentIdentity, Event, Facts, Intent, ModeSet, Relation, RelationClaim};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Start of every test clock (milliseconds).
pub const T0_MS: u64 = 1_800_000_000_000;

/// An engine, its issuer key and one trajectory, with a clock that advances a second per event.
pub struct Kit {
    /// The engine under test.
    pub engine: Engine,
    /// Issuer key trusted by the engine.
    pub key: IssuerKey,
    /// Submitted grants (shared with the engine).
    pub grants: Arc<GrantCache>,
    /// The trajectory.
    pub traj: Trajectory,
    /// Current time, ms.
    pub now_ms: u64,
    /// Modes used by [`Kit::step`].
    pub modes: ModeSet,
}

/// An agent identity of `family`.
pub fn agent(family: &str) -> AgentIdentity {
    AgentIdentity {
        model: format!("{family}-m"),
        family: family.into(),
        tier: "frontier".into(),
        provider: format!("{family}-p"),
    }
}

/// A JSON object from a `json!` value.
pub fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

impl Kit {
    /// A kit over `config` with trajectory id `task`; modes `all`.
    pub fn new(mut config: EngineConfig, task: &str) -> Self {
        let key = IssuerKey::generate();
        let mut keys = TrustedKeys::new();
        keys.add(&key.verifying_key());
        config.grant_policy = GrantPolicy::default();
        let grants = Arc::new(GrantCache::new());
        let engine = Engine::new(config, Arc::new(keys), grants.clone(), Arc::new(MemoryGrantStore::new()));
        Self { engine, key, grants, traj: Trajectory::new(task), now_ms: T0_MS, modes: ModeSet::ALL }
    }

    /// Agents `a1`.. with the given true families; everything else default.
    pub fn with_agents(families: &[(&str, &str)]) -> Self {
        let agents = families.iter().map(|(id, fam)| ((*id).to_owned(), agent(fam)));
        Self::new(EngineConfig::from_policy(&Default::default(), agents), "task-1")
    }

    /// Issues and submits a grant for `tool` on `target` with `artifact` and other `args`.
    pub fn grant(
        &self,
        tool: &str,
        target: &str,
        artifact: &[u8],
        args: Value,
        review_id: Option<&str>,
        max_uses: Option<u32>,
    ) {
        let req = GrantRequest {
            task_id: self.traj.id.clone(),
            operation: tool.into(),
            target: target.into(),
            artifact: artifact.to_vec(),
            args: obj(args),
            ttl_s: 3600,
            now: self.now_ms / 1000,
            nbf: None,
            max_uses,
            review_id: review_id.map(str::to_owned),
            jti: None,
            version: None,
        };
        let (token, _) = issue_grant(&self.key, &req).unwrap_or_else(|e| panic!("issue: {e}"));
        if let Err(d) =
            self.grants.submit(&token, &self.engine.keys, GrantPolicy::default(), self.now_ms / 1000)
        {
            panic!("submit: {d:?}");
        }
    }

    /// A verify delegation of `pid` to `to`, answered with `text` and a verdict line `word`
    /// for its handle: the answer's step.
    pub fn verdict(&mut self, to: &str, pid: &str, text: &str, word: &str) -> Step {
        let d = self.step(delegate(to, Intent::Verify, &format!("check {pid}"), Some(pid)));
        self.step(response(to, &with_verdicts(&d, text, &[(pid, word)]), &[], &[]))
    }

    /// Feeds one event (consuming, the moment of forwarding); the clock advances a second.
    pub fn step(&mut self, event: Event) -> Step {
        self.step_with(&event, &Facts::default())
    }

    /// [`Kit::step`] of an event with the facts its transport saw.
    pub fn step_with(&mut self, event: &Event, facts: &Facts) -> Step {
        self.now_ms += 1000;
        let ctx = StepContext { now_ms: self.now_ms, modes: self.modes, consume: true };
        self.engine.step_with(&mut self.traj, Input::with_facts(event, facts), ctx)
    }
}

/// `task` event.
pub fn task(text: &str) -> Event {
    Event::Task { text: text.into() }
}

/// A tool call.
pub fn call(actor: &str, tool: &str, args: Value, proposal: Option<&str>) -> Event {
    Event::ToolCall {
        actor: actor.into(),
        tool: tool.into(),
        args: obj(args),
        proposal: proposal.map(str::to_owned),
        call_id: None,
    }
}

/// A response with text, proposals `(id, tool, args)` and structured relations.
pub fn response(
    from: &str,
    text: &str,
    proposals: &[(&str, &str, Value)],
    relations: &[(&str, Relation)],
) -> Event {
    Event::Response {
        from: from.into(),
        text: text.into(),
        metadata: None,
        proposals: proposals
            .iter()
            .map(|(id, tool, args)| ProposedAction {
                id: (*id).into(),
                tool: (*tool).into(),
                args: obj(args.clone()),
            })
            .collect(),
        relations: relations
            .iter()
            .map(|(p, r)| RelationClaim { proposal: (*p).into(), relation: *r })
            .collect(),
        call_id: Some(channel(from)),
    }
}

/// The channel id the test helpers relay delegations to (and answers from) `agent` under.
pub fn channel(agent: &str) -> String {
    format!("relay-{agent}")
}

/// `text` ending with one verdict line per `(proposal, word)`, each with the handle `step` (the
/// delegation's step) issued for that proposal; a proposal without a handle gets a made-up one.
pub fn with_verdicts(step: &crate::Step, text: &str, verdicts: &[(&str, &str)]) -> String {
    let mut out = text.to_owned();
    for (pid, word) in verdicts {
        let handle = step
            .verification
            .as_ref()
            .and_then(|v| v.handles.iter().find(|h| h.proposal == *pid))
            .map_or_else(|| "bf-aaaaaaaaaaaa".to_owned(), |h| h.handle.clone());
        out.push_str(&format!("\nVERDICT {handle}: {word} - checked"));
    }
    out
}

/// A delegation.
pub fn delegate(to: &str, intent: Intent, text: &str, proposal: Option<&str>) -> Event {
    Event::Delegate {
        to: to.into(),
        intent,
        text: text.into(),
        proposal: proposal.map(str::to_owned),
        call_id: Some(channel(to)),
    }
}

/// A tool result.
pub fn result(tool: &str, content: &str) -> Event {
    Event::ToolResult { tool: tool.into(), content: content.into(), call_id: None }
}
