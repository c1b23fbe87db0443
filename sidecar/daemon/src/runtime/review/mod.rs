//! The review queue (SPEC §7): an effectful action the cascade left to a human is held here,
//! durably, until an operator approves it with a grant bound to exactly that proposal, rejects
//! it, or its time runs out (treated as a rejection).
//!
//! The API a holder uses (e.g. a harness permission handler):
//! `app.reviews().find_pending(trajectory, fingerprint)` or the `review_id` of a decision, then
//! `app.reviews().wait(id, timeout).await` → [`ReviewOutcome`]; only `Approved` lets the action
//! be retried (it then passes through the approving grant, once).

mod item;
mod store;
#[cfg(test)]
mod tests;

pub use item::{MAX_STORED_ARTIFACT, ReviewItem, ReviewStatus};
pub use store::{ResolveRefusal, ReviewStore, StoreError, Submitted};

pub use crate::config::{DEFAULT_KEEP_ANSWERED_SECS, ReviewConfig};

use crate::runtime::judge::{Judge, JudgeVerdict};
use crate::runtime::trace::TraceHub;
use blindfold_engine::canonical::{args_sha256, sha256_hex};
use blindfold_engine::grants::{GrantCache, GrantPolicy, TrustedKeys, verify_token};
use blindfold_engine::{Step, Trajectory};
use blindfold_schemas::{Decision, ModeSet, Proposal, Reason, TraceKind, TraceRecord, Verdict};
use dashmap::DashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Least time between two purges of answered items while the daemon runs (ms).
const PURGE_EVERY_MS: u64 = 60_000;

/// How a review ended, for a holder waiting on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewOutcome {
    /// Approved: the grant `jti` now lets exactly that action pass (once, unless it says more).
    Approved {
        /// The approving grant's id.
        jti: String,
    },
    /// Rejected by a human.
    Rejected {
        /// The reason given, if any.
        reason: Option<String>,
    },
    /// Nobody answered in time: treat as rejected.
    Expired,
    /// Withdrawn by what held it before anyone answered: treat as rejected.
    Withdrawn,
    /// Still pending when the holder's own timeout ran out: treat as rejected for this request.
    TimedOut,
    /// No such review (or the store failed): treat as rejected.
    Unknown,
}

impl ReviewOutcome {
    /// True only for an approval.
    pub fn approved(&self) -> bool {
        matches!(self, Self::Approved { .. })
    }
}

/// Why an operator's answer was not taken.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// No such item.
    #[error("no review `{0}`")]
    NotFound(String),
    /// Already answered or expired.
    #[error("review `{id}` is {status:?}, not pending")]
    NotPending {
        /// The item.
        id: String,
        /// Its state.
        status: ReviewStatus,
    },
    /// The grant is not acceptable (signature, issuer, lifetime) or not bound to this item.
    #[error("grant refused: {0}")]
    BadGrant(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A refusal inside a resolve transaction (converted to [`ReviewError`] with the id).
enum Refusal {
    Store(ResolveRefusal),
    Grant(String),
}

impl From<ResolveRefusal> for Refusal {
    fn from(r: ResolveRefusal) -> Self {
        Self::Store(r)
    }
}

/// The daemon's review queue: the durable store, waiters, and what approving needs.
pub struct Reviews {
    store: ReviewStore,
    config: ReviewConfig,
    watchers: DashMap<String, watch::Sender<ReviewStatus>>,
    grants: Arc<GrantCache>,
    keys: TrustedKeys,
    policy: GrantPolicy,
    trace: Option<Arc<TraceHub>>,
    modes: Arc<watch::Sender<ModeSet>>,
    judge: Option<Arc<Judge>>,
    /// When answered items were last purged (ms since the epoch).
    last_purge_ms: std::sync::atomic::AtomicU64,
}

/// What approving and tracing need from the daemon.
pub struct ReviewDeps {
    /// The grant cache the retried action is checked against.
    pub grants: Arc<GrantCache>,
    /// Trusted issuer keys.
    pub keys: TrustedKeys,
    /// Leeway and lifetime bound.
    pub policy: GrantPolicy,
    /// The authority trace, when on.
    pub trace: Option<Arc<TraceHub>>,
    /// The live modes (recorded on review records).
    pub modes: Arc<watch::Sender<ModeSet>>,
    /// The judge quorum, when configured: it reads every new item and can only reject it.
    pub judge: Option<Arc<Judge>>,
}

impl Reviews {
    /// Opens `reviews.redb` in `state_dir` and re-submits the grants of approved items that
    /// are still valid to `grants` (an approval survives a restart like the item itself).
    pub fn open(state_dir: &Path, config: ReviewConfig, deps: ReviewDeps) -> Result<Self, StoreError> {
        let ReviewDeps { grants, keys, policy, trace, modes, judge } = deps;
        let store = ReviewStore::open(state_dir)?;
        let now = crate::unix_now();
        for token in store.live_tokens(now)? {
            // A token whose key was since revoked or untrusted is simply not re-cached.
            let _ = grants.submit(&token, &keys, policy, now);
        }
        let reviews = Self {
            store,
            config,
            watchers: DashMap::new(),
            grants,
            keys,
            policy,
            trace,
            modes,
            judge,
            last_purge_ms: std::sync::atomic::AtomicU64::new(0),
        };
        reviews.purge_answered(crate::unix_now_ms())?;
        Ok(reviews)
    }

    /// The configuration in force.
    pub fn config(&self) -> ReviewConfig {
        self.config
    }

    /// Holds the effectful action a step sent to review, if it did: creates (or finds) its
    /// item and returns the step with the review id in the decision's detail. A full queue or
    /// a store failure turns it into an enforced denial; a human's earlier rejection of the
    /// same action keeps it denied (`review_rejected`). The held item is recorded in the
    /// trajectory as a pending decision (`review:<id>`) resting on the step's evidence, so
    /// revoking that evidence finds it.
    pub fn hold(
        self: &Arc<Self>,
        trajectory: &mut Trajectory,
        actor: &str,
        tool: &str,
        mut step: Step,
        now_ms: u64,
    ) -> Step {
        let Some(decision) = step.decision.clone() else { return step };
        let (Some(action), Some(fingerprint)) = (step.action.as_ref(), step.fingerprint.as_ref()) else {
            return step;
        };
        if decision.decision != Verdict::Review || !step.enforced || !action.effect.is_effectful() {
            return step;
        }
        let (artifact_text, artifact_base64) = item::stored_artifact(&action.artifact);
        let item = ReviewItem {
            id: item::new_id(),
            trajectory: trajectory.id.clone(),
            actor: actor.to_owned(),
            tool: tool.to_owned(),
            effect: action.effect,
            proposal: Proposal {
                task_id: trajectory.id.clone(),
                operation: action.operation.clone(),
                target: action.target.clone(),
            },
            artifact_sha256: sha256_hex(&action.artifact),
            artifact_len: action.artifact.len() as u64,
            artifact_text,
            artifact_base64,
            args: action.args.clone(),
            args_sha256: args_sha256(&action.args),
            fingerprint: fingerprint.clone(),
            decision: decision.clone(),
            evidence: step
                .evidence_refs
                .iter()
                .filter_map(|id| trajectory.evidence().get(id).cloned())
                .collect(),
            disputes: trajectory.disputes_on(&step.evidence_refs),
            created_ms: now_ms,
            expires_ms: now_ms.saturating_add(self.config.timeout_secs.saturating_mul(1000)),
            status: ReviewStatus::Pending,
            resolved_ms: None,
            note: None,
            rejected_reason: None,
            grant_jti: None,
            grant_exp: None,
        };
        let submitted = self.store.submit(item, self.config.max_pending, now_ms);
        let held = match submitted {
            Ok((outcome, expired)) => {
                self.settled(&expired);
                outcome
            }
            Err(e) => {
                tracing::error!(error = %e, "review not stored; action denied");
                step.decision =
                    Some(deny(Reason::InternalError, "the review queue is unavailable", &decision));
                return step;
            }
        };
        if let Submitted::Created(item) | Submitted::Existing(item) = &held {
            trajectory.record_pending(&pending_decision(&item.id), step.evidence_refs.clone());
        }
        step.decision = Some(match held {
            Submitted::Created(item) => {
                self.trace_item(&item, "review.submit", None, now_ms);
                self.consult_judge(&item);
                with_review(decision, &item.id)
            }
            Submitted::Existing(item) => with_review(decision, &item.id),
            Submitted::Rejected(item) => match item.rejected_reason {
                Some(reason) => deny(
                    reason,
                    &format!("{} (review {})", item.note.clone().unwrap_or_default(), item.id),
                    &decision,
                ),
                None => deny(
                    Reason::ReviewRejected,
                    &format!("a human rejected this exact action in review {}", item.id),
                    &decision,
                ),
            },
            Submitted::Full => deny(
                Reason::LimitExceeded,
                &format!(
                    "the review queue is full ({} pending); answer or let pending reviews expire first",
                    self.config.max_pending
                ),
                &decision,
            ),
        });
        step
    }

    /// Hands a new item to the judge quorum, if one is configured, off the decision path: a
    /// denial (refusal, error, timeout, garbage) rejects the item; a pass leaves it to a human.
    /// Without a runtime to ask on, the item is rejected (fail closed).
    fn consult_judge(self: &Arc<Self>, item: &ReviewItem) {
        let Some(judge) = self.judge.clone() else { return };
        let reviews = self.clone();
        let item = item.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    let verdict = judge.consult(&item).await;
                    reviews.judged(&item, verdict);
                });
            }
            Err(_) => self.judged(
                &item,
                JudgeVerdict::Deny {
                    reason: Reason::JudgeUnavailable,
                    detail: "the judge could not be asked".into(),
                },
            ),
        }
    }

    fn judged(&self, item: &ReviewItem, verdict: JudgeVerdict) {
        let now_ms = crate::unix_now_ms();
        match verdict {
            JudgeVerdict::ToHuman => {
                self.trace_item(
                    item,
                    "judge.pass",
                    Some("the judge quorum leaves it to a human".into()),
                    now_ms,
                );
            }
            JudgeVerdict::Deny { reason, detail } => {
                let answered = self.store.resolve(&item.id, now_ms, None, |it| {
                    it.status = ReviewStatus::Rejected;
                    it.note = Some(detail.clone());
                    it.rejected_reason = Some(reason);
                    Ok::<(), Refusal>(())
                });
                match answered {
                    Ok(Ok(done)) => {
                        self.settled(std::slice::from_ref(&done));
                        self.trace_item(&done, "judge.deny", Some(format!("{reason}: {detail}")), now_ms);
                    }
                    // Answered by a human first, or expired: nothing to do.
                    Ok(Err(_)) => {}
                    Err(e) => tracing::error!(review = %item.id, error = %e, "judge verdict not stored"),
                }
            }
        }
    }

    /// The item `id` (expiring it first if its time is up).
    pub fn get(&self, id: &str) -> Result<Option<ReviewItem>, StoreError> {
        self.expire_now()?;
        self.store.get(id)
    }

    /// Every item (oldest first), or those with `status`.
    pub fn list(&self, status: Option<ReviewStatus>) -> Result<Vec<ReviewItem>, StoreError> {
        self.expire_now()?;
        let all = self.store.list()?;
        Ok(all.into_iter().filter(|i| status.is_none_or(|s| i.status == s)).collect())
    }

    /// The pending review of an action (trajectory + action fingerprint), if any.
    pub fn find_pending(&self, trajectory: &str, fingerprint: &str) -> Option<String> {
        let _ = self.expire_now();
        let item = self.store.by_action(trajectory, fingerprint).ok().flatten()?;
        (item.status == ReviewStatus::Pending).then_some(item.id)
    }

    /// Approves `id` with `token`: a grant signed by a trusted issuer, within the lifetime
    /// policy, bound to exactly this item (`review_id`, task, operation, target, artifact and
    /// other-argument digests). The grant is cached so the retried action passes; waiters wake.
    pub fn approve(&self, id: &str, token: &str) -> Result<ReviewItem, ReviewError> {
        let now_s = crate::unix_now();
        let verified = verify_token(token.trim(), &self.keys)
            .map_err(|r| ReviewError::BadGrant(format!("{r}: not signed by a trusted issuer key")))?;
        let claims = verified.claims;
        let now_ms = crate::unix_now_ms();
        let answered = self.store.resolve(id, now_ms, Some(token.trim()), |item| {
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
        self.settled(std::slice::from_ref(&item));
        self.trace_item(&item, "review.approve", Some(format!("approved with grant {}", claims.jti)), now_ms);
        Ok(item)
    }

    /// Rejects `id` (the action stays denied); waiters wake.
    pub fn reject(&self, id: &str, reason: Option<String>) -> Result<ReviewItem, ReviewError> {
        let now_ms = crate::unix_now_ms();
        let answered = self.store.resolve(id, now_ms, None, |item| {
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
        let answered = self.store.resolve(id, now_ms, None, |item| {
            item.status = ReviewStatus::Withdrawn;
            item.note = Some(why.to_owned());
            Ok::<(), Refusal>(())
        })?;
        let item = answered.map_err(|r| self.refusal(id, r))?;
        self.settled(std::slice::from_ref(&item));
        self.trace_item(&item, "review.withdraw", Some(format!("withdrawn: {why}")), now_ms);
        Ok(item)
    }

    /// Waits until `id` is answered or expires, or `timeout` passes (whichever comes first).
    pub async fn wait(&self, id: &str, timeout: Duration) -> ReviewOutcome {
        let Ok(Some(item)) = self.get(id) else { return ReviewOutcome::Unknown };
        if item.status != ReviewStatus::Pending {
            return outcome_of(&item);
        }
        let mut rx =
            self.watchers.entry(id.to_owned()).or_insert_with(|| watch::channel(item.status).0).subscribe();
        // The item may have been answered between the read above and the subscription.
        if let Ok(Some(now)) = self.store.get(id)
            && now.status != ReviewStatus::Pending
        {
            return outcome_of(&now);
        }
        let until_expiry = Duration::from_millis(item.expires_ms.saturating_sub(crate::unix_now_ms()));
        let limit = timeout.min(until_expiry);
        let answered = tokio::time::timeout(limit, rx.wait_for(|s| *s != ReviewStatus::Pending)).await;
        match self.get(id) {
            Ok(Some(item)) if item.status != ReviewStatus::Pending => outcome_of(&item),
            Ok(Some(_)) if answered.is_err() => ReviewOutcome::TimedOut,
            _ => ReviewOutcome::Unknown,
        }
    }

    fn expire_now(&self) -> Result<(), StoreError> {
        let now = crate::unix_now_ms();
        let expired = self.store.expire(now)?;
        self.settled(&expired);
        // Retention rides on the queue's own traffic: at most once a minute.
        let last = self.last_purge_ms.load(std::sync::atomic::Ordering::Relaxed);
        if now.saturating_sub(last) >= PURGE_EVERY_MS {
            self.purge_answered(now)?;
        }
        Ok(())
    }

    /// Purges items answered more than `keep_answered_secs` before `now_ms` (on open and at
    /// most once a minute after); returns how many went.
    pub fn purge_answered(&self, now_ms: u64) -> Result<usize, StoreError> {
        self.last_purge_ms.store(now_ms, std::sync::atomic::Ordering::Relaxed);
        let n = self.store.purge_answered(now_ms, self.config.keep_answered_secs.saturating_mul(1000))?;
        if n > 0 {
            tracing::info!(purged = n, "answered reviews past their retention purged");
        }
        Ok(n)
    }

    /// Wakes the waiters of answered items; traces expiries.
    fn settled(&self, items: &[ReviewItem]) {
        for item in items {
            self.wake(item);
            if item.status == ReviewStatus::Expired {
                self.trace_item(
                    item,
                    "review.expire",
                    Some("nobody answered in time".into()),
                    item.resolved_ms.unwrap_or(0),
                );
            }
        }
    }

    /// Wakes the waiters of an answered item.
    fn wake(&self, item: &ReviewItem) {
        if let Some((_, tx)) = self.watchers.remove(&item.id) {
            tx.send_replace(item.status);
        }
    }

    fn refusal(&self, id: &str, r: Refusal) -> ReviewError {
        match r {
            Refusal::Store(ResolveRefusal::NotFound) => ReviewError::NotFound(id.to_owned()),
            Refusal::Store(ResolveRefusal::NotPending(status)) => {
                ReviewError::NotPending { id: id.to_owned(), status }
            }
            Refusal::Grant(m) => ReviewError::BadGrant(m),
        }
    }

    /// One control record per submission, answer and expiry (never the grant token).
    fn trace_item(&self, item: &ReviewItem, check: &str, detail: Option<String>, ts: u64) {
        let Some(trace) = &self.trace else { return };
        let mut r = TraceRecord::new(&item.trajectory, TraceKind::Control, ts, *self.modes.borrow());
        r.tool = Some(item.tool.clone());
        r.effect = Some(item.effect);
        r.target = Some(item.proposal.target.chars().take(200).collect());
        r.action_fingerprint = Some(item.fingerprint.clone());
        r.check = Some(check.to_owned());
        r.reason = Some(item.decision.reason);
        r.detail = Some(format!(
            "{} {}",
            item.id,
            detail.unwrap_or_else(|| item.decision.detail.clone().unwrap_or_default())
        ));
        r.evidence_refs = item.evidence.iter().map(|e| e.evidence_id.clone()).collect();
        if let Err(e) = trace.record(r) {
            tracing::warn!(review = %item.id, error = %e, "review record not traced");
        }
    }
}

/// The pending decision a held review is recorded as in its trajectory's evidence graph.
pub fn pending_decision(review_id: &str) -> String {
    format!("review:{review_id}")
}

/// The review a pending decision of the evidence graph names, if it names one.
pub fn review_of_decision(decision: &str) -> Option<&str> {
    decision.strip_prefix("review:")
}

fn outcome_of(item: &ReviewItem) -> ReviewOutcome {
    match item.status {
        ReviewStatus::Approved => ReviewOutcome::Approved { jti: item.grant_jti.clone().unwrap_or_default() },
        ReviewStatus::Rejected => ReviewOutcome::Rejected { reason: item.note.clone() },
        ReviewStatus::Expired => ReviewOutcome::Expired,
        ReviewStatus::Withdrawn => ReviewOutcome::Withdrawn,
        ReviewStatus::Pending => ReviewOutcome::TimedOut,
    }
}

fn with_review(mut d: Decision, id: &str) -> Decision {
    let detail = d.detail.take().unwrap_or_default();
    d.detail = Some(format!("{detail} (review {id}: `blindfold review show {id}`)"));
    d
}

fn deny(reason: Reason, detail: &str, held: &Decision) -> Decision {
    Decision::deny(reason, held.check.clone(), held.layer).with_detail(detail)
}
