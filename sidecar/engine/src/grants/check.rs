//! The ordered grant check of SPEC §6: first failure wins, each with its own reason code.

use super::facts::ActionFacts;
use super::keys::TrustedKeys;
use super::paths::{NoWorkspace, Workspaces};
use super::store::{ConsumeOutcome, GrantRef, GrantStore};
use super::verify::{Verified, verify_any};
use crate::canonical::{args_sha256, sha256_hex};
use crate::registry::Registry;
use blindfold_schemas::{AnyGrantClaims, Decision, GrantClaims, Proposal, Reason, strict_json};
use serde_json::{Map, Value};

/// The check id every grant decision carries.
pub const CHECK_ID: blindfold_schemas::CheckId = blindfold_schemas::CheckId::Grant;

/// Clock leeway and lifetime bound; explicit, never a library default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrantPolicy {
    /// Seconds of clock skew tolerated on `exp` and `nbf` (default 0).
    pub leeway_s: u64,
    /// Longest lifetime (`exp - iat`) accepted, in seconds (default 24 h).
    pub max_ttl_s: u64,
}

impl Default for GrantPolicy {
    fn default() -> Self {
        Self { leeway_s: 0, max_ttl_s: 24 * 3600 }
    }
}

/// The lifetime bound of step 5: a grant dated later than `now` (beyond the leeway) is not yet
/// valid — its lifetime counts from `iat`, so a future `iat` would let it outlive `max_ttl` — and
/// one whose `exp - iat` exceeds `max_ttl` is too long. `None` when the grant is within both.
pub(crate) fn lifetime_failure(claims: &AnyGrantClaims, policy: GrantPolicy, now: u64) -> Option<Decision> {
    let (iat, exp) = (claims.iat(), claims.exp());
    if iat > now.saturating_add(policy.leeway_s) {
        return Some(deny(
            Reason::NotYetValid,
            format!(
                "the grant says it was issued at {iat}, later than now ({now}); ask the issuer for one issued now"
            ),
        ));
    }
    if exp.saturating_sub(iat) > policy.max_ttl_s {
        return Some(deny(
            Reason::GrantTooLong,
            format!("the grant lives longer than the allowed {} s; ask for a shorter one", policy.max_ttl_s),
        ));
    }
    None
}

/// The exact bytes an action is about to send: the artifact and every other argument.
#[derive(Debug, Clone, Copy)]
pub struct ActionBytes<'a> {
    /// The artifact bytes, exactly as they will be forwarded.
    pub artifact: &'a [u8],
    /// Every other argument.
    pub args: &'a Map<String, Value>,
}

impl ActionBytes<'_> {
    /// The two digests a grant binds: `(artifact_sha256, args_sha256)`.
    pub fn digests(&self) -> (String, String) {
        (sha256_hex(self.artifact), args_sha256(self.args))
    }
}

/// One call as a grant check sees it: the proposal (task, operation, target), the exact bytes,
/// the facts derived from its arguments, and whether it only reconciles what already happened.
#[derive(Debug, Clone, Copy)]
pub struct GrantAction<'a> {
    /// Task, operation and target.
    pub proposal: &'a Proposal,
    /// The bytes about to be sent.
    pub bytes: ActionBytes<'a>,
    /// Resources, paths, criticality and size ([`ActionFacts::derive`]).
    pub facts: &'a ActionFacts,
    /// The operation is in the configured reconciliation set: a revoked grant that covers it
    /// still lets it run (it reads what already happened; never consumes a use).
    pub reconciliation: bool,
}

/// One grant check at the moment of execution (or a dry run of it).
pub struct GrantCheck<'a> {
    /// Trusted issuer keys.
    pub keys: &'a TrustedKeys,
    /// Leeway and lifetime bound.
    pub policy: GrantPolicy,
    /// Use and revocation state.
    pub store: &'a dyn GrantStore,
    /// Seconds since the Unix epoch.
    pub now: u64,
    /// `true` checks without consuming a use (`check_grant`, a permission request).
    pub dry_run: bool,
}

impl GrantCheck<'_> {
    /// The full ordered check for a proposal given as raw JSON bytes and an optional token
    /// (the CLI `grant check` path), paths compared as written. Steps 1–9 of SPEC §6.
    pub fn check_raw(&self, proposal_json: &[u8], token: Option<&str>, action: ActionBytes<'_>) -> Decision {
        self.check_raw_in(proposal_json, token, action, Registry::shared_defaults(), &NoWorkspace::default())
    }

    /// [`GrantCheck::check_raw`] with the call's facts derived through `registry` and paths
    /// rooted in (and, where visible, resolved against) `workspaces`.
    pub fn check_raw_in(
        &self,
        proposal_json: &[u8],
        token: Option<&str>,
        action: ActionBytes<'_>,
        registry: &Registry,
        workspaces: &dyn Workspaces,
    ) -> Decision {
        // 1. Exactly `task_id`, `operation`, `target`; duplicates and extra fields are refused.
        let proposal: Proposal = match strict_json::from_slice(proposal_json) {
            Ok(p) => p,
            Err(e) => return deny(Reason::InvalidSchema, format!("proposal rejected: {e}")),
        };
        // 2. A grant must be present.
        let Some(token) = token.map(str::trim).filter(|t| !t.is_empty()) else {
            return deny(Reason::NoGrant, "no grant was presented; ask an issuer for one");
        };
        // 3. Signature valid, issuer trusted.
        let verified = match verify_any(token, self.keys) {
            Ok(v) => v,
            Err(reason) => return deny(reason, "the grant is not signed by a trusted issuer key"),
        };
        let facts = ActionFacts::for_proposal(registry, workspaces, &proposal, action);
        let call = GrantAction { proposal: &proposal, bytes: action, facts: &facts, reconciliation: false };
        match &verified.claims {
            AnyGrantClaims::Exact(claims) => match self.first_failure(&call, claims) {
                Some(d) => d,
                None => self.consume(&call, &verified),
            },
            AnyGrantClaims::Scoped(claims) => match super::scope::CompiledScope::compile(claims) {
                Err(e) => deny(Reason::InvalidSchema, format!("the grant's scope is malformed: {e}")),
                Ok(scope) => {
                    let grant = super::cache::ScopedGrant::new(claims.clone(), verified.kid.clone(), scope);
                    match grant.first_failure(self, &call) {
                        Some(d) => d,
                        None => self.consume(&call, &verified),
                    }
                }
            },
        }
    }

    /// Steps 4–8 for an exact grant, without touching the store: `None` when it fits the call.
    pub(crate) fn first_failure(&self, call: &GrantAction<'_>, claims: &GrantClaims) -> Option<Decision> {
        let proposal = call.proposal;
        // 4. Bound to this task.
        if claims.task_id != proposal.task_id {
            return Some(deny(Reason::WrongTask, "the grant belongs to another task"));
        }
        // 5. Time: expiry, lifetime bound, not-before — with the explicit leeway only.
        if let Some(d) = self.time_failure(&AnyGrantClaims::Exact(claims.clone())) {
            return Some(d);
        }
        // 6. Operation.
        if claims.operation != proposal.operation {
            return Some(deny(
                Reason::OperationDenied,
                format!("the grant allows operation `{}`, not `{}`", claims.operation, proposal.operation),
            ));
        }
        // 7. Target — as written, and where it lands (symbolic links resolved now).
        if claims.target != proposal.target {
            return Some(deny(
                Reason::TargetDenied,
                format!(
                    "target `{}` is outside the grant's scope (it names `{}`)",
                    proposal.target, claims.target
                ),
            ));
        }
        if let Some(p) = call.facts.redirected_path() {
            return Some(deny(
                Reason::PathEscapes,
                format!(
                    "`{}` resolves (symbolic links followed) to `{}`, outside the grant's target `{}`",
                    p.written,
                    p.landing(),
                    p.lexical.as_deref().unwrap_or(&p.written)
                ),
            ));
        }
        // 8. The bytes about to be sent, and every other argument.
        let (artifact, args) = call.bytes.digests();
        if artifact != claims.artifact_sha256 {
            return Some(deny(
                Reason::ArtifactChanged,
                format!(
                    "the content changed since approval (now sha256 {artifact}); it needs a new approval"
                ),
            ));
        }
        if args != claims.args_sha256 {
            return Some(deny(
                Reason::ArtifactChanged,
                "the other arguments differ from the approved ones; they need a new approval",
            ));
        }
        None
    }

    /// Step 5 for either kind: expiry, lifetime bound, not-before.
    pub(crate) fn time_failure(&self, claims: &AnyGrantClaims) -> Option<Decision> {
        if claims.exp().saturating_add(self.policy.leeway_s) <= self.now {
            return Some(deny(Reason::ExpiredGrant, "the grant has expired; ask the issuer to renew it"));
        }
        if let Some(d) = lifetime_failure(claims, self.policy, self.now) {
            return Some(d);
        }
        if let Some(nbf) = claims.nbf()
            && nbf > self.now.saturating_add(self.policy.leeway_s)
        {
            return Some(deny(Reason::NotYetValid, format!("the grant is valid only from {nbf}")));
        }
        None
    }

    /// Step 9: not spent, not revoked — checked and consumed in one atomic store step. A
    /// revoked grant still lets a reconciliation read run (never consumed).
    pub(crate) fn consume(&self, call: &GrantAction<'_>, grant: &Verified) -> Decision {
        let claims = &grant.claims;
        let keep_until = claims.exp().saturating_add(self.policy.leeway_s);
        let r = GrantRef {
            jti: claims.jti(),
            kid: &grant.kid,
            task_id: claims.task_id(),
            version: claims.version(),
        };
        let dry_run = self.dry_run || call.reconciliation;
        match self.store.consume(&r, claims.uses_allowed(), keep_until, self.now, dry_run) {
            Ok(ConsumeOutcome::Consumed) => Decision::allow(CHECK_ID).with_grant(claims.jti()),
            Ok(ConsumeOutcome::Revoked) if call.reconciliation => Decision::allow(CHECK_ID).with_detail(
                "a reconciliation read under a revoked grant: it may look at what already happened",
            ),
            Ok(ConsumeOutcome::Replayed) => deny(
                Reason::ReplayedGrant,
                format!(
                    "the grant's {} use(s) are spent; ask the issuer for a new one",
                    claims.uses_allowed()
                ),
            ),
            Ok(ConsumeOutcome::Revoked) => deny(
                Reason::RevokedGrant,
                format!(
                    "the grant was revoked (grant {}, task {}, version {}); new effects need a new grant",
                    claims.jti(),
                    claims.task_id(),
                    claims.version()
                ),
            ),
            Err(e) => deny(Reason::InternalError, format!("grant state unavailable ({e}); failing closed")),
        }
    }
}

pub(crate) fn deny(reason: Reason, detail: impl Into<String>) -> Decision {
    Decision::deny(reason, CHECK_ID).with_detail(detail)
}
