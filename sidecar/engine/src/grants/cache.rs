//! Grants submitted on the trusted path: verified once at submit, claims cached (a scoped grant's
//! scope compiled with them) for the hot path.

use super::check::{CHECK_ID, GrantAction, GrantCheck, GrantPolicy, deny, lifetime_failure};
use super::facts::ActionFacts;
use super::keys::TrustedKeys;
use super::scope::CompiledScope;
use super::verify::{Verified, VerifiedGrant, verify_any};
use blindfold_schemas::{AnyGrantClaims, Decision, GrantClaims, Proposal, Reason, ScopedGrantClaims};
use dashmap::DashMap;
use std::sync::Arc;

/// A verified scoped grant with its compiled scope.
#[derive(Debug, Clone)]
pub struct ScopedGrant {
    /// The signed claims.
    pub claims: ScopedGrantClaims,
    /// The issuer key id that signed it.
    pub kid: String,
    /// The scope, compiled.
    pub scope: CompiledScope,
}

impl ScopedGrant {
    /// Wraps verified claims and their compiled scope.
    pub fn new(claims: ScopedGrantClaims, kid: String, scope: CompiledScope) -> Self {
        Self { claims, kid, scope }
    }

    fn verified(&self) -> Verified {
        Verified { claims: AnyGrantClaims::Scoped(self.claims.clone()), kid: self.kid.clone() }
    }

    /// True when the scope lists `operation` (by name or `*`).
    fn lists(&self, operation: &str) -> bool {
        self.claims.scope.iter().any(|e| e.operations.iter().any(|o| o == operation || o == "*"))
    }

    /// Steps 4–8 for a scoped grant: task, time, operation and every resource in scope (as
    /// written and as it lands; a critical action only by an entry naming it exactly), then the
    /// byte limit. `None` when the grant covers the call.
    pub(crate) fn first_failure(&self, check: &GrantCheck<'_>, call: &GrantAction<'_>) -> Option<Decision> {
        let c = &self.claims;
        if c.task_id != call.proposal.task_id {
            return Some(deny(Reason::WrongTask, "the grant belongs to another task"));
        }
        if let Some(d) = check.time_failure(&AnyGrantClaims::Scoped(c.clone())) {
            return Some(d);
        }
        if let Some((reason, detail)) = self.scope.first_failure(&call.proposal.operation, call.facts) {
            return Some(deny(reason, detail));
        }
        if let Some(limit) = c.max_bytes.get(&call.proposal.operation)
            && call.facts.artifact_len as u64 > *limit
        {
            return Some(deny(
                Reason::ByteLimitExceeded,
                format!(
                    "{} bytes exceed the grant's limit of {limit} for `{}`",
                    call.facts.artifact_len, call.proposal.operation
                ),
            ));
        }
        None
    }
}

/// What `grant list` shows of one cached grant.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GrantInfo {
    /// Grant id.
    pub jti: String,
    /// `exact` or `scoped`.
    pub kind: &'static str,
    /// Task.
    pub task_id: String,
    /// Issuer key id.
    pub kid: String,
    /// Authorization version.
    pub version: u64,
    /// Issue time and expiry, seconds since the epoch.
    pub iat: u64,
    /// Expiry.
    pub exp: u64,
    /// Uses allowed in all.
    pub max_uses: u32,
    /// `operation target` (exact) or the scope as text (scoped).
    pub allows: String,
    /// The review item answered, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_id: Option<String>,
}

/// Verified grants by `jti`. The hot path does lookups, glob matches and hash compares, never
/// Ed25519.
#[derive(Default)]
pub struct GrantCache {
    grants: DashMap<String, Arc<VerifiedGrant>>,
    scoped: DashMap<String, Arc<ScopedGrant>>,
}

impl GrantCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Verifies `token` (signature, issuer, lifetime, not expired, a scope that compiles) and
    /// caches its claims.
    ///
    /// Returns the denial when the token is not acceptable; nothing is cached then.
    pub fn submit(
        &self,
        token: &str,
        keys: &TrustedKeys,
        policy: GrantPolicy,
        now: u64,
    ) -> Result<AnyGrantClaims, Decision> {
        let verified = verify_any(token.trim(), keys).map_err(|reason| {
            Decision::deny(reason, CHECK_ID).with_detail("the grant is not signed by a trusted issuer key")
        })?;
        let c = &verified.claims;
        if c.exp().saturating_add(policy.leeway_s) <= now {
            return Err(
                Decision::deny(Reason::ExpiredGrant, CHECK_ID).with_detail("the grant has already expired")
            );
        }
        if let Some(d) = lifetime_failure(c, policy, now) {
            return Err(d);
        }
        match verified.claims.clone() {
            AnyGrantClaims::Exact(claims) => {
                let jti = claims.jti.clone();
                self.grants.insert(jti, Arc::new(VerifiedGrant { claims, kid: verified.kid }));
            }
            AnyGrantClaims::Scoped(claims) => {
                let scope = CompiledScope::compile(&claims).map_err(|e| {
                    Decision::deny(Reason::InvalidSchema, CHECK_ID)
                        .with_detail(format!("the grant's scope is malformed: {e}"))
                })?;
                let jti = claims.jti.clone();
                self.scoped.insert(jti, Arc::new(ScopedGrant::new(claims, verified.kid, scope)));
            }
        }
        Ok(verified.claims)
    }

    /// Checks a call against every cached grant: the one that fits is consumed (unless the
    /// check is a dry run), exact grants first; otherwise the reason is that of the closest
    /// grant — a grant for this very call (same task, operation and target, or a scope of the
    /// task listing the operation) first, so an expired grant for the target reports
    /// `expired_grant` whatever other grants the task holds; then same operation; then the one
    /// that failed latest in the check order. An allow whose paths could not be resolved says so.
    pub fn check(&self, check: &GrantCheck<'_>, call: &GrantAction<'_>) -> Decision {
        let mut best: Option<(Closeness, Decision)> = None;
        let mut consider = |key: Closeness, d: Decision| {
            if best.as_ref().is_none_or(|(closest, _)| key > *closest) {
                best = Some((key, d));
            }
        };
        for entry in self.grants.iter() {
            let g = entry.value();
            let decision = match check.first_failure(call, &g.claims) {
                Some(d) => d,
                None => {
                    let d = check.consume(
                        call,
                        &Verified { claims: AnyGrantClaims::Exact(g.claims.clone()), kid: g.kid.clone() },
                    );
                    if d.is_allow() {
                        return unseen_note(d, call.facts);
                    }
                    d
                }
            };
            consider(exact_closeness(&g.claims, call.proposal, decision.reason), decision);
        }
        for entry in self.scoped.iter() {
            let g = entry.value();
            let decision = match g.first_failure(check, call) {
                Some(d) => d,
                None => {
                    let d = check.consume(call, &g.verified());
                    if d.is_allow() {
                        return unseen_note(d, call.facts);
                    }
                    d
                }
            };
            let lists = g.lists(&call.proposal.operation);
            let key = (lists && g.claims.task_id == call.proposal.task_id, lists, step_of(decision.reason));
            consider(key, decision);
        }
        best.map(|(_, d)| d).unwrap_or_else(|| {
            Decision::deny(Reason::NoGrant, CHECK_ID)
                .with_detail("no grant covers this action; ask an issuer for one")
        })
    }

    /// [`GrantCache::check`] for a proposal given as task, operation and target plus its bytes
    /// (the control API's `check_grant`): facts through the default registry, paths compared as
    /// written.
    pub fn check_proposal(
        &self,
        check: &GrantCheck<'_>,
        proposal: &Proposal,
        bytes: super::check::ActionBytes<'_>,
    ) -> Decision {
        let registry = crate::registry::Registry::defaults();
        let facts =
            ActionFacts::for_proposal(&registry, &super::paths::NoWorkspace::default(), proposal, bytes);
        self.check(check, &GrantAction { proposal, bytes, facts: &facts, reconciliation: false })
    }

    /// The claims of a usable exact grant that fits the action exactly (steps 4–9, never
    /// consuming) and satisfies `pred`, if any: the engine uses it to see whether a human
    /// approved exactly this action through the review queue.
    pub fn matching(
        &self,
        check: &GrantCheck<'_>,
        call: &GrantAction<'_>,
        pred: impl Fn(&GrantClaims) -> bool,
    ) -> Option<GrantClaims> {
        let dry = GrantCheck {
            keys: check.keys,
            policy: check.policy,
            store: check.store,
            now: check.now,
            dry_run: true,
        };
        let call = GrantAction { reconciliation: false, ..*call };
        self.grants.iter().find_map(|entry| {
            let g = entry.value();
            (pred(&g.claims)
                && dry.first_failure(&call, &g.claims).is_none()
                && dry
                    .consume(
                        &call,
                        &Verified { claims: AnyGrantClaims::Exact(g.claims.clone()), kid: g.kid.clone() },
                    )
                    .is_allow())
            .then(|| g.claims.clone())
        })
    }

    /// True when a usable scoped grant of the call's task covers it (dry run, uses left): the
    /// human's scope is trusted evidence of its targets, and authorises a repeat.
    pub fn scope_covers(&self, check: &GrantCheck<'_>, call: &GrantAction<'_>) -> bool {
        let dry = GrantCheck {
            keys: check.keys,
            policy: check.policy,
            store: check.store,
            now: check.now,
            dry_run: true,
        };
        self.scoped.iter().any(|entry| {
            let g = entry.value();
            g.first_failure(&dry, call).is_none() && dry.consume(call, &g.verified()).is_allow()
        })
    }

    /// True when an unexpired scoped grant of the call's task names its targets (whatever its
    /// uses, revocation or the action's criticality): the human's statement of what the task
    /// touches, which is trusted evidence of the target; whether the grant still authorises the
    /// action is the grant check's to say (`replayed_grant`, `revoked_grant`, `critical_action`).
    pub fn scope_names(&self, check: &GrantCheck<'_>, call: &GrantAction<'_>) -> bool {
        let facts = ActionFacts { critical: None, ..call.facts.clone() };
        let call = GrantAction { facts: &facts, ..*call };
        self.scoped.iter().any(|entry| entry.value().first_failure(check, &call).is_none())
    }

    /// `(operation, target)` of every cached exact grant bound to `task_id`: grants are trusted
    /// evidence of a target.
    pub fn targets_for(&self, task_id: &str) -> Vec<(String, String)> {
        self.grants
            .iter()
            .filter(|g| g.value().claims.task_id == task_id)
            .map(|g| (g.value().claims.operation.clone(), g.value().claims.target.clone()))
            .collect()
    }

    /// Every cached grant, for listings (`grant list`), newest first.
    pub fn list(&self) -> Vec<GrantInfo> {
        let mut out: Vec<GrantInfo> = self
            .grants
            .iter()
            .map(|g| {
                let (c, kid) = (&g.value().claims, &g.value().kid);
                GrantInfo {
                    jti: c.jti.clone(),
                    kind: "exact",
                    task_id: c.task_id.clone(),
                    kid: kid.clone(),
                    version: c.version(),
                    iat: c.iat,
                    exp: c.exp,
                    max_uses: c.uses_allowed(),
                    allows: format!("{} {}", c.operation, c.target),
                    review_id: c.review_id.clone(),
                }
            })
            .chain(self.scoped.iter().map(|g| {
                let g = g.value();
                GrantInfo {
                    jti: g.claims.jti.clone(),
                    kind: "scoped",
                    task_id: g.claims.task_id.clone(),
                    kid: g.kid.clone(),
                    version: g.claims.version(),
                    iat: g.claims.iat,
                    exp: g.claims.exp,
                    max_uses: g.claims.uses_allowed(),
                    allows: g.scope.shown().to_owned(),
                    review_id: g.claims.review_id.clone(),
                }
            }))
            .collect();
        out.sort_by(|a, b| b.iat.cmp(&a.iat).then_with(|| a.jti.cmp(&b.jti)));
        out
    }

    /// The revocation key of a cached grant.
    pub fn grant_ref(&self, jti: &str) -> Option<(String, String, u64)> {
        if let Some(g) = self.grants.get(jti) {
            return Some((g.kid.clone(), g.claims.task_id.clone(), g.claims.version()));
        }
        self.scoped.get(jti).map(|g| (g.kid.clone(), g.claims.task_id.clone(), g.claims.version()))
    }

    /// The highest version among cached grants of `task_id`, if any.
    pub fn highest_version(&self, task_id: &str) -> Option<u64> {
        let exact = self.grants.iter().filter(|g| g.claims.task_id == task_id).map(|g| g.claims.version());
        let scoped = self.scoped.iter().filter(|g| g.claims.task_id == task_id).map(|g| g.claims.version());
        exact.chain(scoped).max()
    }

    /// Drops a grant (after revocation, or once spent).
    pub fn remove(&self, jti: &str) {
        self.grants.remove(jti);
        self.scoped.remove(jti);
    }

    /// Forgets grants expired before `now - leeway`; returns how many went.
    pub fn sweep(&self, now: u64, policy: GrantPolicy) -> usize {
        let before = self.len();
        self.grants.retain(|_, g| g.claims.exp.saturating_add(policy.leeway_s) > now);
        self.scoped.retain(|_, g| g.claims.exp.saturating_add(policy.leeway_s) > now);
        before - self.len()
    }

    /// Number of cached grants.
    pub fn len(&self) -> usize {
        self.grants.len() + self.scoped.len()
    }

    /// True when no grant is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An allow whose call names paths Blindfold cannot resolve says so.
fn unseen_note(d: Decision, facts: &ActionFacts) -> Decision {
    if facts.paths_unseen() && d.detail.is_none() { d.with_detail(UNSEEN_PATHS) } else { d }
}

/// What an allow says when the workspace's file system is not visible to Blindfold.
pub const UNSEEN_PATHS: &str = "paths were compared as written: Blindfold cannot see this workspace's file system, so symbolic links were not resolved";

/// How close a grant that does not fit came to fitting, compared in field order: it is the
/// call's own grant (task, operation and target all those of the action), it grants the
/// action's operation, and how far it got through the check order.
type Closeness = (bool, bool, u8);

/// The [`Closeness`] of an exact grant with `claims` whose check for `proposal` failed with
/// `reason`.
fn exact_closeness(claims: &GrantClaims, proposal: &Proposal, reason: Reason) -> Closeness {
    let same_operation = claims.operation == proposal.operation;
    let scenario = same_operation && claims.task_id == proposal.task_id && claims.target == proposal.target;
    (scenario, same_operation, step_of(reason))
}

/// Position of a grant failure in SPEC §6's order (later = closer to fitting).
fn step_of(reason: Reason) -> u8 {
    match reason {
        Reason::WrongTask => 4,
        Reason::ExpiredGrant | Reason::NotYetValid | Reason::GrantTooLong => 5,
        Reason::OperationDenied => 6,
        Reason::TargetDenied => 7,
        Reason::PathEscapes | Reason::CriticalAction => 8,
        Reason::ArtifactChanged | Reason::ByteLimitExceeded => 9,
        Reason::ReplayedGrant | Reason::RevokedGrant | Reason::InternalError => 10,
        _ => 0,
    }
}
