//! Grants submitted on the trusted path: verified once at submit, claims cached for the hot path.

use super::check::{ActionBytes, CHECK_ID, GrantCheck, GrantPolicy, lifetime_failure};
use super::keys::TrustedKeys;
use super::verify::{VerifiedGrant, verify_token};
use blindfold_schemas::{Decision, GrantClaims, Layer, Proposal, Reason};
use dashmap::DashMap;
use std::sync::Arc;

/// Verified grants by `jti`. The hot path does lookups and hash compares, never Ed25519.
#[derive(Default)]
pub struct GrantCache {
    grants: DashMap<String, Arc<VerifiedGrant>>,
}

impl GrantCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Verifies `token` (signature, issuer, lifetime, not expired) and caches its claims.
    ///
    /// Returns the denial when the token is not acceptable; nothing is cached then.
    pub fn submit(
        &self,
        token: &str,
        keys: &TrustedKeys,
        policy: GrantPolicy,
        now: u64,
    ) -> Result<GrantClaims, Decision> {
        let verified = verify_token(token.trim(), keys).map_err(|reason| {
            Decision::deny(reason, CHECK_ID, Layer::ContentFree)
                .with_detail("the grant is not signed by a trusted issuer key")
        })?;
        let c = &verified.claims;
        if c.exp.saturating_add(policy.leeway_s) <= now {
            return Err(Decision::deny(Reason::ExpiredGrant, CHECK_ID, Layer::ContentFree)
                .with_detail("the grant has already expired"));
        }
        if let Some(d) = lifetime_failure(c, policy, now) {
            return Err(d);
        }
        let claims = verified.claims.clone();
        self.grants.insert(claims.jti.clone(), Arc::new(verified));
        Ok(claims)
    }

    /// Checks an action against every cached grant: the one that fits is consumed (unless the
    /// check is a dry run); otherwise the reason is that of the closest grant — a grant for this
    /// very scenario (same task, operation and target) first, so an expired grant for the target
    /// reports `expired_grant` whatever other grants the task holds; then same operation; then
    /// the one that failed latest in the check order.
    pub fn check(&self, check: &GrantCheck<'_>, proposal: &Proposal, action: ActionBytes<'_>) -> Decision {
        let mut best: Option<(Closeness, Decision)> = None;
        for entry in self.grants.iter() {
            let claims = &entry.value().claims;
            let decision = match check.first_failure(proposal, claims, action) {
                Some(d) => d,
                None => {
                    let d = check.consume(claims);
                    if d.is_allow() {
                        return d;
                    }
                    d
                }
            };
            let key = closeness(claims, proposal, decision.reason);
            if best.as_ref().is_none_or(|(closest, _)| key > *closest) {
                best = Some((key, decision));
            }
        }
        best.map(|(_, d)| d).unwrap_or_else(|| {
            Decision::deny(Reason::NoGrant, CHECK_ID, Layer::ContentFree)
                .with_detail("no grant covers this action; ask an issuer for one")
        })
    }

    /// The claims of a usable grant that fits the action exactly (steps 4–9, never consuming)
    /// and satisfies `pred`, if any: the engine uses it to see whether a human approved exactly
    /// this action through the review queue.
    pub fn matching(
        &self,
        check: &GrantCheck<'_>,
        proposal: &Proposal,
        action: ActionBytes<'_>,
        pred: impl Fn(&GrantClaims) -> bool,
    ) -> Option<GrantClaims> {
        let dry = GrantCheck {
            keys: check.keys,
            policy: check.policy,
            store: check.store,
            now: check.now,
            dry_run: true,
        };
        self.grants.iter().find_map(|entry| {
            let claims = &entry.value().claims;
            (pred(claims)
                && dry.first_failure(proposal, claims, action).is_none()
                && dry.consume(claims).is_allow())
            .then(|| claims.clone())
        })
    }

    /// `(operation, target)` of every unexpired cached grant bound to `task_id`: grants are
    /// trusted evidence of a target.
    pub fn targets_for(&self, task_id: &str) -> Vec<(String, String)> {
        self.grants
            .iter()
            .filter(|g| g.value().claims.task_id == task_id)
            .map(|g| (g.value().claims.operation.clone(), g.value().claims.target.clone()))
            .collect()
    }

    /// Drops a grant (after revocation, or once spent).
    pub fn remove(&self, jti: &str) {
        self.grants.remove(jti);
    }

    /// Forgets grants expired before `now - leeway`; returns how many went.
    pub fn sweep(&self, now: u64, policy: GrantPolicy) -> usize {
        let before = self.grants.len();
        self.grants.retain(|_, g| g.claims.exp.saturating_add(policy.leeway_s) > now);
        before - self.grants.len()
    }

    /// Number of cached grants.
    pub fn len(&self) -> usize {
        self.grants.len()
    }

    /// True when no grant is cached.
    pub fn is_empty(&self) -> bool {
        self.grants.is_empty()
    }
}

/// How close a grant that does not fit came to fitting, compared in field order: it is the
/// scenario's grant (task, operation and target all those of the action), it grants the action's
/// operation, and how far it got through the check order.
type Closeness = (bool, bool, u8);

/// The [`Closeness`] of a grant with `claims` whose check for `proposal` failed with `reason`.
fn closeness(claims: &GrantClaims, proposal: &Proposal, reason: Reason) -> Closeness {
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
        Reason::ArtifactChanged => 8,
        Reason::ReplayedGrant | Reason::RevokedGrant | Reason::InternalError => 9,
        _ => 0,
    }
}
