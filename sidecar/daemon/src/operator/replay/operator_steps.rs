//! Operator steps of a scenario (`revoke_evidence`): applied on the trusted path as the control
//! API applies them — in-process on the run's trajectory, or through the daemon's own control
//! method with `--via-proxy` — and recorded the same way.

use crate::runtime::app::App;
use crate::runtime::trace::revocation::{Revoked, lifecycle_records};
use blindfold_engine::Trajectory;
use blindfold_schemas::{Lifecycle, ModeSet, TraceRecord};
use serde_json::json;

/// Who a scenario's `revoke_evidence` steps are recorded as (the operator, as on the control API).
const OPERATOR: &str = "human:operator";

/// A `revoke_evidence` step about to be applied.
pub(super) struct Revocation<'a> {
    pub(super) task_id: &'a str,
    pub(super) reason: &'a str,
    pub(super) modes: ModeSet,
    pub(super) now_ms: u64,
}

impl Revocation<'_> {
    /// Revokes each artifact in `ids` not revoked yet, as the control API would; returns the
    /// trace records of every change.
    pub(super) fn apply(&self, trajectory: &mut Trajectory, ids: &[String]) -> Vec<TraceRecord> {
        let mut records = Vec::new();
        for id in ids {
            let live = trajectory.evidence().get(id).is_some_and(|a| a.lifecycle_state != Lifecycle::Revoked);
            if !live {
                continue;
            }
            let marked = trajectory.revoke_evidence(id, self.reason, OPERATOR, self.now_ms);
            let revoked = Revoked {
                task_id: self.task_id,
                evidence_id: id,
                reason: self.reason,
                actor: OPERATOR,
                mode: self.modes,
                at: self.now_ms,
            };
            records.extend(lifecycle_records(&revoked, trajectory.evidence(), &marked));
        }
        records
    }
}

/// A `revoke_evidence` step through the daemon's own control API method, on every artifact the
/// revoked step produced; a step whose artifacts the wire did not report cannot be revoked here.
pub(super) fn revoke_via_control(
    app: &App,
    task: &str,
    step: &blindfold_schemas::ScenarioStep,
    produced: &[Vec<String>],
) -> Result<(), String> {
    let blindfold_schemas::StepBody::Operator(blindfold_schemas::OperatorStep::RevokeEvidence {
        step: n,
        reason,
    }) = &step.body
    else {
        return Ok(());
    };
    let ids = produced.get(*n).filter(|ids| !ids.is_empty()).ok_or_else(|| {
        format!("revoke_evidence of step {n}: its artifacts went over the wire and are not known here")
    })?;
    for id in ids {
        let params = json!({"task_id": task, "evidence_id": id, "reason": reason});
        crate::operator::control::evidence::revoke_evidence(app, params)
            .map_err(|e| format!("revoke_evidence of step {n}: {e:?}"))?;
    }
    Ok(())
}
