//! The engine facade: per-trajectory state in, one decision per effectful event out.
//!
//! This is the contract every transport, the replay runner and the trace writer use:
//! `Engine::step(&mut Trajectory, &Event, StepContext) -> Step`. It never blocks and never
//! reads a clock; `StepContext` carries the time and the modes in force.

use crate::grants::{ActionBytes, GrantCache, GrantCheck, GrantPolicy, GrantStore, TrustedKeys};
use crate::registry::{DerivedAction, Registry};
use blindfold_schemas::{Decision, Effect, Event, Layer, ModeSet, Proposal, Reason, Verdict};
use std::sync::Arc;

/// Static configuration of an engine (one per daemon).
#[derive(Clone)]
pub struct EngineConfig {
    /// Trusted tool registry.
    pub registry: Registry,
    /// Grant time policy.
    pub grant_policy: GrantPolicy,
}

/// One trajectory's state (Blindfold assigns the id; never taken from a model's field).
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// Trajectory (task) id; grants name it.
    pub id: String,
    /// Events seen so far.
    pub events: u64,
}

impl Trajectory {
    /// A fresh trajectory.
    pub fn new(id: impl Into<String>) -> Self {
        Self { id: id.into(), events: 0 }
    }
}

/// What the caller passes with each event.
#[derive(Debug, Clone, Copy)]
pub struct StepContext {
    /// Milliseconds since the Unix epoch.
    pub now_ms: u64,
    /// Modes in force for this trajectory now.
    pub modes: ModeSet,
    /// True at the moment of forwarding (consume grants); false for a dry run.
    pub consume: bool,
}

/// The engine's answer to one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The decision for an effectful event (tool call, memory write/read); `None` for events
    /// that only inform (responses, results, cards).
    pub decision: Option<Decision>,
    /// True when the decision is enforced (false in `observe`: recorded, not applied).
    pub enforced: bool,
    /// The derived action, for tool calls.
    pub action: Option<DerivedAction>,
}

impl Step {
    fn informational() -> Self {
        Self { decision: None, enforced: false, action: None }
    }

    /// A denial caused by Blindfold's own failure (fail closed).
    pub fn fail_closed(detail: &str, enforce: bool) -> Self {
        Self {
            decision: Some(
                Decision::deny(Reason::InternalError, "P0.internal", Layer::ContentFree).with_detail(detail),
            ),
            enforced: enforce,
            action: None,
        }
    }

    /// True when the caller must not let the event through.
    pub fn blocks(&self) -> bool {
        self.enforced && self.decision.as_ref().is_some_and(|d| d.decision != Verdict::Allow)
    }
}

/// The decision engine.
pub struct Engine {
    config: EngineConfig,
    keys: Arc<TrustedKeys>,
    grants: Arc<GrantCache>,
    store: Arc<dyn GrantStore>,
}

impl Engine {
    /// An engine over a registry, trusted keys, submitted grants and a grant store.
    pub fn new(
        config: EngineConfig,
        keys: Arc<TrustedKeys>,
        grants: Arc<GrantCache>,
        store: Arc<dyn GrantStore>,
    ) -> Self {
        Self { config, keys, grants, store }
    }

    /// The registry in use.
    pub fn registry(&self) -> &Registry {
        &self.config.registry
    }

    /// Feeds one event of `trajectory` and returns the decision, if the event needs one.
    pub fn step(&self, trajectory: &mut Trajectory, event: &Event, ctx: StepContext) -> Step {
        trajectory.events += 1;
        match event {
            Event::ToolCall { tool, args, .. } => {
                let action = self.config.registry.derive(tool, args);
                let decision = self.decide_tool_call(trajectory, &action, ctx);
                Step { decision: Some(decision), enforced: ctx.modes.enforce, action: Some(action) }
            }
            _ => Step::informational(),
        }
    }

    fn decide_tool_call(
        &self,
        trajectory: &Trajectory,
        action: &DerivedAction,
        ctx: StepContext,
    ) -> Decision {
        if action.effect == Effect::Read {
            return Decision::allow("P1.registry", Layer::ContentFree);
        }
        if !ctx.modes.grants {
            return Decision::allow("P3.grant", Layer::ContentFree).with_detail("grants mode is off");
        }
        let check = GrantCheck {
            keys: &self.keys,
            policy: self.config.grant_policy,
            store: self.store.as_ref(),
            now: ctx.now_ms / 1000,
            dry_run: !ctx.consume,
        };
        let proposal = Proposal {
            task_id: trajectory.id.clone(),
            operation: action.operation.clone(),
            target: action.target.clone(),
        };
        let bytes = ActionBytes { artifact: &action.artifact, args: &action.args };

        self.grants.check(&check, &proposal, bytes)
    }
}
