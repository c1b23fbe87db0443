//! The judge's way into review: a newly held item is handed to a [`ReviewJudge`] (the judge
//! quorum, when configured) off the decision path; its verdict can only reject the item or leave
//! it to a human.

use super::item::{ReviewItem, ReviewStatus};
use super::{Refusal, Reviews};
use blindfold_schemas::Reason;
use std::sync::Arc;

/// The quorum's verdict on one held action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeVerdict {
    /// At least k judges saw no reason to refuse: a human decides.
    ToHuman,
    /// Denied: `judge_denied` (too few passes) or `judge_unavailable` (an error or timeout).
    Deny {
        /// `JudgeDenied` or `JudgeUnavailable`.
        reason: Reason,
        /// What happened (never which family answered what).
        detail: String,
    },
}

/// What reads every new review item before a human does, and can only refuse it.
#[async_trait::async_trait]
pub trait ReviewJudge: Send + Sync {
    /// The verdict on `item`; any failure is a denial.
    async fn consult(&self, item: &ReviewItem) -> JudgeVerdict;
}

impl Reviews {
    /// Hands a new item to the judge quorum, if one is configured, off the decision path: a
    /// denial (refusal, error, timeout, garbage) rejects the item; a pass leaves it to a human.
    /// Without a runtime to ask on, the item is rejected (fail closed).
    pub(super) fn consult_judge(self: &Arc<Self>, item: &ReviewItem) {
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
                let answered = self.store.resolve(&item.id, now_ms, None, &mut |it| {
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
}
