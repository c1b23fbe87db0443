//! An operator's answers to a pending item: approve it with a grant bound to exactly its
//! proposal, reject it, or withdraw it on behalf of what held it.

use super::item::{ReviewItem, ReviewStatus};
use super::{Refusal, ReviewError, Reviews};
use blindfold_engine::grants::verify_token;

impl Reviews {
    /// Approves `id` with `token`: a grant signed by a trusted issuer, within the lifetime
    /// policy, bound to exactly this item (`review_id`, task, operation, target, artifact and
    /// other-argument digests). The grant is cached so the retried action passes; waiters wake.
    pub fn approve(&self, id: &str, token: &str) -> Result<ReviewItem, ReviewError> {
        let now_s = crate::unix_now();
        let verified = verify_token(token.trim(), &self.keys)
            .map_err(|r| ReviewError::BadGrant(format!("{r}: not signed by a trusted issuer key")))?;
        let claims = verified.claims;
        let now_ms = crate::unix_now_ms();
        let answered = self.store.resolve(id, now_ms, Some(token.trim()), &mut |item| {
            let bound = claims.review_id.as_deref() == Some(item.id.as_str())
                && claims.task_id == item.proposal.task_id
                && claims.operation == item.proposal.operation
                && claims.target == item.proposal.target
                && claims.artifact_sha256 == item.artifact_sha256
                && claims.args_sha256 == item.args_sha256;
            if !bound {
                return Err(Refusal::Grant(
                    "the grant is not bound to exactly this review's proposal (review_id, task, operation, target, artifact, other arguments)".into(),
                ));
            }
            // Cached inside the transaction: if the cache refuses it (expired, too long), the
            // item stays pending.
            self.grants.submit(token, &self.keys, self.policy, now_s).map_err(|d| {
                Refusal::Grant(format!("{}: {}", d.reason, d.detail.unwrap_or_default()))
            })?;
            item.status = ReviewStatus::Approved;
            item.grant_jti = Some(claims.jti.clone());
            item.grant_exp = Some(claims.exp);
            Ok(())
        })?;
        let item = answered.map_err(|r| self.refusal(id, r))?;
        self.adopted.insert(item.id.clone());
        self.settled(std::slice::from_ref(&item));
        self.trace_item(&item, "review.approve", Some(format!("approved with grant {}", claims.jti)), now_ms);
        Ok(item)
    }

    /// Rejects `id` (the action stays denied); waiters wake.
    pub fn reject(&self, id: &str, reason: Option<String>) -> Result<ReviewItem, ReviewError> {
        let now_ms = crate::unix_now_ms();
        let answered = self.store.resolve(id, now_ms, None, &mut |item| {
            item.status = ReviewStatus::Rejected;
            item.note = reason.clone();
            Ok::<(), Refusal>(())
        })?;
        let item = answered.map_err(|r| self.refusal(id, r))?;
        self.settled(std::slice::from_ref(&item));
        let detail = format!("rejected{}", reason.map(|r| format!(": {r}")).unwrap_or_default());
        self.trace_item(&item, "review.reject", Some(detail), now_ms);
        Ok(item)
    }

    /// Withdraws the pending item `id` because what held its action gave it up or the evidence
    /// it rested on was revoked (`why`): it becomes `withdrawn`, can no longer be approved, and
    /// waiters wake (the holder treats it as refused; the action, if tried again, is decided
    /// afresh and, if still held, gets a new review). Refused (`NotPending`) when it was answered
    /// or expired first.
    pub fn withdraw(&self, id: &str, why: &str) -> Result<ReviewItem, ReviewError> {
        let now_ms = crate::unix_now_ms();
        let answered = self.store.resolve(id, now_ms, None, &mut |item| {
            item.status = ReviewStatus::Withdrawn;
            item.note = Some(why.to_owned());
            Ok::<(), Refusal>(())
        })?;
        let item = answered.map_err(|r| self.refusal(id, r))?;
        self.settled(std::slice::from_ref(&item));
        self.trace_item(&item, "review.withdraw", Some(format!("withdrawn: {why}")), now_ms);
        Ok(item)
    }
}
