//! Holding an action: the step the cascade left to a human becomes a durable review item, or,
//! when the queue is full, unavailable or a human already rejected the same action, a denial.

use super::item::{self, ReviewItem, ReviewStatus};
use super::store::Submitted;
use super::{Reviews, pending_decision};
use blindfold_engine::canonical::{args_sha256, sha256_hex};
use blindfold_engine::{Step, Trajectory};
use blindfold_schemas::{CheckId, Decision, Proposal, Reason, Verdict};
use std::sync::Arc;

impl Reviews {
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
        // A changed tool definition is an operator's to accept (`mcp accept-tool`): a grant for
        // the call would not change it, so there is nothing to hold.
        if decision.check == CheckId::ToolPin {
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
                // The store's error names its backend (`redis at HOST:PORT …` when shared).
                let detail = format!("the review queue is unavailable ({e})");
                step.decision = Some(deny(Reason::InternalError, &detail, &decision));
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
}

fn with_review(mut d: Decision, id: &str) -> Decision {
    let detail = d.detail.take().unwrap_or_default();
    // The id only: a model may read the detail, and the commands are the person's to read
    // (`blindfold why`, `blindfold review show`).
    d.detail = Some(format!("{detail} (review {id})"));
    d
}

fn deny(reason: Reason, detail: &str, held: &Decision) -> Decision {
    Decision::deny(reason, held.check).with_detail(detail)
}
