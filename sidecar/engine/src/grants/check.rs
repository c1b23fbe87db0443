//! The ordered grant check of SPEC §6: first failure wins, each with its own reason code.

use super::keys::TrustedKeys;
use super::store::{ConsumeOutcome, GrantStore};
use super::verify::verify_token;
use crate::canonical::{args_sha256, sha256_hex};
use blindfold_schemas::{Decision, GrantClaims, Layer, Proposal, Reason, strict_json};
use serde_json::{Map, Value};

/// The check id every grant decision carries.
pub const CHECK_ID: &str = "P3.grant";

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
pub(crate) fn lifetime_failure(claims: &GrantClaims, policy: GrantPolicy, now: u64) -> Option<Decision> {
    if claims.iat > now.saturating_add(policy.leeway_s) {
        return Some(deny(
            Reason::NotYetValid,
            format!(
                "the grant says it was issued at {}, later than now ({now}); ask the issuer for one issued now",
                claims.iat
            ),
        ));
    }
    if claims.exp.saturating_sub(claims.iat) > policy.max_ttl_s {
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

/// One grant check at the moment of execution (or a dry run of it).
pub struct GrantCheck<'a> {
    /// Trusted issuer keys.
    pub keys: &'a TrustedKeys,
    /// Leeway and lifetime bound.
    pub policy: GrantPolicy,
    /// Replay and revocation state.
    pub store: &'a dyn GrantStore,
    /// Seconds since the Unix epoch.
    pub now: u64,
    /// `true` checks without consuming a use (`check_grant`, a permission request).
    pub dry_run: bool,
}

impl GrantCheck<'_> {
    /// The full ordered check for a proposal given as raw JSON bytes and an optional token
    /// (the CLI `grant check` path). Steps 1–9 of SPEC §6.
    pub fn check_raw(&self, proposal_json: &[u8], token: Option<&str>, action: ActionBytes<'_>) -> Decision {
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
        let verified = match verify_token(token, self.keys) {
            Ok(v) => v,
            Err(reason) => return deny(reason, "the grant is not signed by a trusted issuer key"),
        };
        self.check_claims(&proposal, &verified.claims, action)
    }

    /// Steps 4–9 on claims whose signature already verified (cached at submit time).
    pub fn check_claims(
        &self,
        proposal: &Proposal,
        claims: &GrantClaims,
        action: ActionBytes<'_>,
    ) -> Decision {
        match self.first_failure(proposal, claims, action) {
            Some(d) => d,
            None => self.consume(claims),
        }
    }

    /// Steps 4–8 without touching the store: `None` when the grant fits the action.
    pub(crate) fn first_failure(
        &self,
        proposal: &Proposal,
        claims: &GrantClaims,
        action: ActionBytes<'_>,
    ) -> Option<Decision> {
        // 4. Bound to this task.
        if claims.task_id != proposal.task_id {
            return Some(deny(Reason::WrongTask, "the grant belongs to another task"));
        }
        // 5. Time: expiry, lifetime bound, not-before — with the explicit leeway only.
        if claims.exp.saturating_add(self.policy.leeway_s) <= self.now {
            return Some(deny(Reason::ExpiredGrant, "the grant has expired; ask the issuer to renew it"));
        }
        if let Some(d) = lifetime_failure(claims, self.policy, self.now) {
            return Some(d);
        }
        if let Some(nbf) = claims.nbf
            && nbf > self.now.saturating_add(self.policy.leeway_s)
        {
            return Some(deny(Reason::NotYetValid, format!("the grant is valid only from {nbf}")));
        }
        // 6. Operation.
        if claims.operation != proposal.operation {
            return Some(deny(
                Reason::OperationDenied,
                format!("the grant allows operation `{}`, not `{}`", claims.operation, proposal.operation),
            ));
        }
        // 7. Target.
        if claims.target != proposal.target {
            return Some(deny(
                Reason::TargetDenied,
                format!("target `{}` is outside the grant's scope", proposal.target),
            ));
        }
        // 8. The bytes about to be sent, and every other argument.
        let (artifact, args) = action.digests();
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

    /// Step 9: not replayed, not revoked — checked and consumed in one atomic store step.
    pub(crate) fn consume(&self, claims: &GrantClaims) -> Decision {
        let keep_until = claims.exp.saturating_add(self.policy.leeway_s);
        match self.store.consume(&claims.jti, claims.uses_allowed(), keep_until, self.now, self.dry_run) {
            Ok(ConsumeOutcome::Consumed) => Decision::allow(CHECK_ID, Layer::ContentFree),
            Ok(ConsumeOutcome::Replayed) => deny(Reason::ReplayedGrant, "the grant was already used"),
            Ok(ConsumeOutcome::Revoked) => deny(Reason::RevokedGrant, "the grant was revoked"),
            Err(e) => deny(Reason::InternalError, format!("grant state unavailable ({e}); failing closed")),
        }
    }
}

fn deny(reason: Reason, detail: impl Into<String>) -> Decision {
    Decision::deny(reason, CHECK_ID, Layer::ContentFree).with_detail(detail)
}
