//! Where a permission request waits when the engine leaves its action to a human: the review
//! queue behind a small trait, so the follower holds the request (OpenCode's tool waits on it)
//! until the review is answered or the wait runs out — a timeout is a rejection.

use blindfold_engine::Step;
use std::time::Duration;

/// How a held request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldOutcome {
    /// A human approved exactly this action: decide it again (the approval now lets it pass).
    Approved,
    /// Rejected, expired, timed out or unknown: the request is rejected with this reason.
    Refused(String),
}

/// The review queue as the permission follower sees it.
#[async_trait::async_trait]
pub trait ReviewHolds: Send + Sync {
    /// The pending review that holds `step` of `trajectory`, when the gate held it for one.
    fn pending(&self, trajectory: &str, step: &Step) -> Option<String>;
    /// Waits for the review `id` to be answered, at most `timeout`.
    async fn wait(&self, id: &str, timeout: Duration) -> HoldOutcome;
}

/// No review queue: a request that needs a human is rejected at once (fail closed).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoReviews;

#[async_trait::async_trait]
impl ReviewHolds for NoReviews {
    fn pending(&self, _trajectory: &str, _step: &Step) -> Option<String> {
        None
    }

    async fn wait(&self, id: &str, _timeout: Duration) -> HoldOutcome {
        HoldOutcome::Refused(format!("review {id}: no review queue to wait on"))
    }
}

/// The daemon's durable review queue (`blindfold review approve|reject`).
pub struct QueueHolds(pub crate::runtime::app::App);

#[async_trait::async_trait]
impl ReviewHolds for QueueHolds {
    fn pending(&self, trajectory: &str, step: &Step) -> Option<String> {
        let fingerprint = step.fingerprint.as_deref()?;
        self.0.reviews().find_pending(trajectory, fingerprint)
    }

    async fn wait(&self, id: &str, timeout: Duration) -> HoldOutcome {
        use crate::runtime::review::ReviewOutcome;
        match self.0.reviews().wait(id, timeout).await {
            ReviewOutcome::Approved { .. } => HoldOutcome::Approved,
            ReviewOutcome::Rejected { reason } => HoldOutcome::Refused(format!(
                "review {id} rejected{}",
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            )),
            ReviewOutcome::Expired => HoldOutcome::Refused(format!("review {id} expired unanswered")),
            ReviewOutcome::Withdrawn => HoldOutcome::Refused(format!("review {id} was withdrawn")),
            ReviewOutcome::TimedOut => {
                HoldOutcome::Refused(format!("review {id} not answered within {}s", timeout.as_secs()))
            }
            ReviewOutcome::Unknown => HoldOutcome::Refused(format!("review {id} is unknown")),
        }
    }
}
