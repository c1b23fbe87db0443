//! The review queue (SPEC §7): an effectful action the cascade left to a human is held here,
//! durably, until an operator approves it with a grant bound to exactly that proposal, rejects
//! it, or its time runs out (treated as a rejection).
//!
//! The API a holder uses (e.g. a harness permission handler):
//! `app.reviews().find_pending(trajectory, fingerprint)` or the `review_id` of a decision, then
//! `app.reviews().wait(id, timeout).await` → [`ReviewOutcome`]; only `Approved` lets the action
//! be retried (it then passes through the approving grant, once).

mod answer;
pub mod approver;
mod hold;
mod item;
mod judging;
mod redis_store;
mod store;
#[cfg(test)]
mod tests;

pub use item::{MAX_STORED_ARTIFACT, ReviewItem, ReviewStatus};
pub use redis_store::RedisReviewStore;
pub use store::{Refusal, ResolveRefusal, ReviewBackend, ReviewStore, StoreError, Submitted};

pub use crate::config::{DEFAULT_KEEP_ANSWERED_SECS, ReviewConfig};
pub use judging::{JudgeVerdict, ReviewJudge};

use crate::runtime::trace::TraceHub;
use blindfold_engine::grants::{GrantCache, GrantPolicy, TrustedKeys};
use blindfold_schemas::{ModeSet, TraceKind, TraceRecord};
use dashmap::DashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Least time between two purges of answered items while the daemon runs (ms).
const PURGE_EVERY_MS: u64 = 60_000;
/// Changes kept for a slow subscriber of [`Reviews::subscribe`] before it lags.
const CHANGES_BUFFER: usize = 256;

/// An item submitted, answered, expired or withdrawn: what [`Reviews::subscribe`] tells (the
/// console's live list and the webhook announcer). A queue shared by several daemons would feed
/// the changes made elsewhere into the same channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewChange {
    /// The item.
    pub id: String,
    /// Its status after the change.
    pub status: ReviewStatus,
    /// True for a newly held item.
    pub created: bool,
}

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

/// The daemon's review queue: the durable store, waiters, and what approving needs.
pub struct Reviews {
    store: Arc<dyn ReviewBackend>,
    config: ReviewConfig,
    /// Approved items whose grant this Blindfold's cache already holds.
    adopted: dashmap::DashSet<String>,
    watchers: DashMap<String, watch::Sender<ReviewStatus>>,
    grants: Arc<GrantCache>,
    keys: TrustedKeys,
    policy: GrantPolicy,
    trace: Option<Arc<TraceHub>>,
    modes: Arc<watch::Sender<ModeSet>>,
    judge: Option<Arc<dyn ReviewJudge>>,
    /// When answered items were last purged (ms since the epoch).
    last_purge_ms: std::sync::atomic::AtomicU64,
    /// Every change, to whoever listens (nobody listening costs nothing).
    changes: tokio::sync::broadcast::Sender<ReviewChange>,
    /// Submissions and answers counted for `/metrics`.
    metrics: Option<Arc<crate::runtime::metrics::Metrics>>,
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
    pub judge: Option<Arc<dyn ReviewJudge>>,
    /// Where submissions and answers are counted.
    pub metrics: Option<Arc<crate::runtime::metrics::Metrics>>,
}

impl Reviews {
    /// Opens `reviews.redb` in `state_dir` and re-submits the grants of approved items that
    /// are still valid to `grants` (an approval survives a restart like the item itself).
    pub fn open(state_dir: &Path, config: ReviewConfig, deps: ReviewDeps) -> Result<Self, StoreError> {
        Self::open_on(Arc::new(ReviewStore::open(state_dir)?), config, deps)
    }

    /// [`Reviews::open`] on any backend (the fleet's Redis with `[state] backend = "redis"`).
    pub fn open_on(
        store: Arc<dyn ReviewBackend>,
        config: ReviewConfig,
        deps: ReviewDeps,
    ) -> Result<Self, StoreError> {
        let ReviewDeps { grants, keys, policy, trace, modes, judge, metrics } = deps;
        let now = crate::unix_now();
        // Not re-caching only holds actions longer (an approved item's grant is also taken when
        // its holder next reads it), so a store that cannot answer yet is no reason to stop.
        match store.live_tokens(now) {
            Ok(tokens) => {
                for token in tokens {
                    // A token whose key was since revoked or untrusted is simply not re-cached.
                    let _ = grants.submit(&token, &keys, policy, now);
                }
            }
            Err(e) => tracing::warn!(error = %e, "approved reviews' grants not re-cached at start"),
        }
        let reviews = Self {
            store,
            config,
            adopted: dashmap::DashSet::new(),
            watchers: DashMap::new(),
            grants,
            keys,
            policy,
            trace,
            modes,
            judge,
            last_purge_ms: std::sync::atomic::AtomicU64::new(0),
            changes: tokio::sync::broadcast::channel(CHANGES_BUFFER).0,
            metrics,
        };
        if let Err(e) = reviews.purge_answered(crate::unix_now_ms()) {
            tracing::warn!(error = %e, "answered reviews not purged at start");
        }
        Ok(reviews)
    }

    /// The configuration in force.
    pub fn config(&self) -> ReviewConfig {
        self.config
    }

    /// A receiver of every change from now on (an item held, answered, expired, withdrawn).
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<ReviewChange> {
        self.changes.subscribe()
    }

    /// Tells subscribers and metrics of the change `check` (a `trace_item` check id) made.
    fn changed(&self, item: &ReviewItem, check: &str) {
        let outcome = match check {
            "review.submit" => "submitted",
            "review.approve" => "approved",
            "review.reject" | "judge.deny" => "rejected",
            "review.expire" => "expired",
            "review.withdraw" => "withdrawn",
            _ => return,
        };
        if let Some(m) = &self.metrics {
            m.review(outcome);
        }
        let change =
            ReviewChange { id: item.id.clone(), status: item.status, created: outcome == "submitted" };
        let _ = self.changes.send(change);
    }

    /// The item `id` (expiring it first if its time is up).
    pub fn get(&self, id: &str) -> Result<Option<ReviewItem>, StoreError> {
        self.expire_now()?;
        let item = self.store.get(id)?;
        if let Some(item) = &item {
            self.adopt(item);
        }
        Ok(item)
    }

    /// Puts the grant of an item approved on another Blindfold of the fleet into this one's
    /// cache, so the action held here passes through it (its uses are counted fleet-wide).
    fn adopt(&self, item: &ReviewItem) {
        if item.status != ReviewStatus::Approved || self.adopted.contains(&item.id) {
            return;
        }
        match self.store.token(&item.id) {
            Ok(Some(token)) => match self.grants.submit(&token, &self.keys, self.policy, crate::unix_now()) {
                Ok(_) => {
                    self.adopted.insert(item.id.clone());
                }
                Err(d) => tracing::warn!(review = %item.id, reason = %d.reason, "approving grant not taken"),
            },
            Ok(None) => {}
            Err(e) => tracing::warn!(review = %item.id, error = %e, "approving grant not read"),
        }
    }

    /// Follows answers given on other Blindfolds sharing the backend: their holders here wake,
    /// an approval's grant is taken into this cache.
    pub fn follow_fleet(self: &Arc<Self>) {
        let me = Arc::downgrade(self);
        self.store.on_answered_elsewhere(Box::new(move |id| {
            let Some(reviews) = me.upgrade() else { return };
            match reviews.store.get(id) {
                Ok(Some(item)) if item.status != ReviewStatus::Pending => {
                    reviews.adopt(&item);
                    reviews.wake(&item);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(review = %id, error = %e, "answer from the fleet not read"),
            }
        }));
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

    /// Waits until `id` is answered or expires, or `timeout` passes (whichever comes first).
    pub async fn wait(&self, id: &str, timeout: Duration) -> ReviewOutcome {
        let Ok(Some(item)) = self.get(id) else { return ReviewOutcome::Unknown };
        if item.status != ReviewStatus::Pending {
            return outcome_of(&item);
        }
        let mut rx =
            self.watchers.entry(id.to_owned()).or_insert_with(|| watch::channel(item.status).0).subscribe();
        // The item may have been answered between the read above and the subscription.
        if let Ok(Some(now)) = self.get(id)
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
        self.changed(item, check);
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
