//! Control API methods of the evidence graph (operator only, SPEC §5, §9): `list_evidence`
//! shows a live trajectory's artifacts, `revoke_evidence` revokes one. Revocation propagates:
//! what derives from the artifact, the claims they bear on and the pending decisions resting on
//! any of them are marked `NEEDS_REVALIDATION`; a pending review among those decisions is
//! withdrawn (decided afresh if the action comes again); every change is a trace record.

use super::rpc::RpcError;
use crate::runtime::app::App;
use blindfold_engine::Trajectory;
use blindfold_engine::evidence::Revalidation;
use blindfold_schemas::{EvidenceArtifact, Lifecycle, TraceKind, TraceRecord};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::runtime::trace::revocation::{Revoked, lifecycle_records};

/// Who a revocation through the control API is recorded as (only the operator token reaches it).
const OPERATOR: &str = "human:operator";

fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

fn unavailable(task_id: &str) -> RpcError {
    RpcError::internal(format!("the state of trajectory `{task_id}` is unavailable"))
}

fn not_live(task_id: &str) -> RpcError {
    RpcError::invalid_params(format!("no live trajectory `{task_id}`"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    task_id: String,
}

/// `list_evidence {task_id}` → `{task_id, artifacts: [{evidence_id, producer, channel,
/// lifecycle_state, needs_revalidation, source_type, source_ref, derived_from}]}`, oldest first:
/// what an operator names in `revoke_evidence`. Revoked and quarantined artifacts are listed with
/// their state (this is the operator's view, not a read any decision uses).
pub fn list_evidence(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ListParams = params(p)?;
    let rows = app
        .with_live_trajectory(&p.task_id, |t| t.evidence().artifacts().map(summary).collect::<Vec<_>>())
        .ok_or_else(|| not_live(&p.task_id))?
        .map_err(|()| unavailable(&p.task_id))?;
    Ok(json!({"task_id": p.task_id, "artifacts": rows}))
}

fn summary(a: &EvidenceArtifact) -> Value {
    json!({
        "evidence_id": a.evidence_id,
        "producer": a.producer,
        "channel": a.channel,
        "lifecycle_state": a.lifecycle_state,
        "needs_revalidation": a.needs_revalidation,
        "source_type": a.provenance.source_type,
        "source_ref": a.provenance.source_ref,
        "derived_from": a.provenance.derived_from,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevokeParams {
    task_id: String,
    evidence_id: String,
    reason: String,
}

/// `revoke_evidence {task_id, evidence_id, reason}` → `{task_id, revoked, artifacts, claims,
/// decisions, reviews_withdrawn}`: what was marked. An unknown trajectory or artifact, an empty
/// reason, or an artifact already revoked is refused (`-32602`). The revocation takes effect even
/// when its records cannot be written (it only narrows authority); that failure is then the
/// answer (`-32603`).
pub fn revoke_evidence(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: RevokeParams = params(p)?;
    if p.reason.trim().is_empty() {
        return Err(RpcError::invalid_params("reason must not be empty"));
    }
    let now_ms = crate::unix_now_ms();
    let (marked, mut records) = app
        .with_live_trajectory(&p.task_id, |t| revoke_in(app, t, &p, now_ms))
        .ok_or_else(|| not_live(&p.task_id))?
        .map_err(|()| unavailable(&p.task_id))??;
    let withdrawn = withdraw_reviews(app, &p, &marked.decisions)?;
    records.push(audit_record(app, &p, now_ms));
    write_all(app, records)?;
    Ok(json!({
        "task_id": p.task_id,
        "revoked": p.evidence_id,
        "artifacts": marked.artifacts,
        "claims": marked.claims,
        "decisions": marked.decisions,
        "reviews_withdrawn": withdrawn,
    }))
}

/// Revokes under the trajectory's lock; returns what was marked and the lifecycle records.
fn revoke_in(
    app: &App,
    t: &mut Trajectory,
    p: &RevokeParams,
    now_ms: u64,
) -> Result<(Revalidation, Vec<TraceRecord>), RpcError> {
    match t.evidence().get(&p.evidence_id) {
        None => {
            return Err(RpcError::invalid_params(format!(
                "no evidence `{}` in trajectory `{}`",
                p.evidence_id, p.task_id
            )));
        }
        Some(a) if a.lifecycle_state == Lifecycle::Revoked => {
            return Err(RpcError::invalid_params(format!("evidence `{}` is already revoked", p.evidence_id)));
        }
        Some(_) => {}
    }
    let marked = t.revoke_evidence(&p.evidence_id, &p.reason, OPERATOR, now_ms);
    let revoked = Revoked {
        task_id: &p.task_id,
        evidence_id: &p.evidence_id,
        reason: &p.reason,
        actor: OPERATOR,
        mode: app.modes(),
        at: now_ms,
    };
    let records = lifecycle_records(&revoked, t.evidence(), &marked);
    Ok((marked, records))
}

/// Withdraws the pending reviews among the marked decisions; returns their ids.
fn withdraw_reviews(app: &App, p: &RevokeParams, decisions: &[String]) -> Result<Vec<String>, RpcError> {
    let note = format!(
        "evidence {} it rested on was revoked ({}); the action is decided afresh if tried again",
        p.evidence_id, p.reason
    );
    let mut withdrawn = Vec::new();
    for review in decisions.iter().filter_map(|d| crate::runtime::review::review_of_decision(d)) {
        match app.reviews().withdraw(review, &note) {
            Ok(item) => withdrawn.push(item.id),
            // Answered or expired meanwhile (or purged): nothing left to withdraw.
            Err(
                crate::runtime::review::ReviewError::NotPending { .. }
                | crate::runtime::review::ReviewError::NotFound(_),
            ) => {}
            Err(e) => {
                return Err(RpcError::internal(format!(
                    "evidence revoked, but review {review} could not be withdrawn: {e}"
                )));
            }
        }
    }
    Ok(withdrawn)
}

/// The operator action itself, under the control trajectory like every other.
fn audit_record(app: &App, p: &RevokeParams, at: u64) -> TraceRecord {
    let mut r = TraceRecord::new(super::audit::CONTROL_TRAJECTORY, TraceKind::Control, at, app.modes());
    r.tool = Some("revoke_evidence".to_owned());
    r.target = Some(format!("{}/{}", p.task_id, p.evidence_id));
    r.detail = Some(p.reason.clone());
    r
}

/// Writes `records`, each on disk before the next is submitted.
fn write_all(app: &App, records: Vec<TraceRecord>) -> Result<(), RpcError> {
    let Some(trace) = app.trace.as_ref() else { return Ok(()) };
    for r in records {
        trace.sink().submit_blocking(r, true).and_then(|s| s.written_blocking()).map_err(|e| {
            tracing::error!(error = %e, "evidence revoked, but its records were not written");
            RpcError::internal(format!("evidence revoked, but the trace could not be written ({e})"))
        })?;
    }
    Ok(())
}
