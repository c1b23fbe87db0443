//! The console's trajectory pages: the trajectories of the recent trace (and the live ones), and
//! one trajectory's records as rows (blocked ones marked), its authority vectors, `V(τ)`, the
//! legend of aliases and true identities, and its flow as the SVG `trace render` draws.
//!
//! Records are read from the newest trace files (at most [`READ_BUDGET`] bytes of them) when a
//! page is opened, off the runtime's workers; new ones arrive on the page's live feed.

use super::{ApiError, Console, fresh, session};
use crate::operator::control::audit::CONTROL_TRAJECTORY;
use crate::runtime::trace::render;
use crate::runtime::trace::summary::{layer_name, mode_name, reports, summarize};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use blindfold_schemas::{TraceKind, TraceRecord, Verdict};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most bytes of trace files a page reads (the newest files first).
pub const READ_BUDGET: u64 = 32 << 20;
/// Most trajectories the list shows (the most recently active).
const MAX_LISTED: usize = 200;

type Shared = State<Arc<Console>>;

/// The records of the newest trace files within [`READ_BUDGET`], in chain order; a line still
/// being written is skipped.
fn recent_records(app: &crate::runtime::app::App) -> Result<Vec<TraceRecord>, ApiError> {
    let Some(trace) = &app.trace else {
        return Err(ApiError(StatusCode::CONFLICT, "tracing is off ([trace] enabled = false)".into()));
    };
    // Informational records linger a moment in the writer's queue: write them first.
    let _ = trace.flush();
    let files = crate::runtime::trace::trace_files(&app.config.trace.dir)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("trace directory: {e}")))?;
    let mut chosen = Vec::new();
    let mut budget = READ_BUDGET;
    for file in files.iter().rev() {
        let len = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        chosen.push(file.clone());
        if len >= budget {
            break;
        }
        budget -= len;
    }
    let mut out = Vec::new();
    for file in chosen.iter().rev() {
        let Ok(bytes) = std::fs::read(file) else { continue };
        for line in bytes.split_inclusive(|b| *b == b'\n') {
            let Some(body) = line.strip_suffix(b"\n") else { break };
            if let Ok(r) = serde_json::from_slice::<TraceRecord>(body) {
                out.push(r);
            }
        }
    }
    Ok(out)
}

async fn records_off_path(c: &Arc<Console>) -> Result<Vec<TraceRecord>, ApiError> {
    let app = c.app.clone();
    tokio::task::spawn_blocking(move || recent_records(&app))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

/// True when a decision record stopped its action (or, in `observe`, would have).
fn blocked(r: &TraceRecord) -> bool {
    matches!(r.decision, Some(Verdict::Deny | Verdict::Review))
}

/// `GET /console/api/trajectories`: the recent trajectories, newest activity first, with their
/// decisions, blocks and `V(τ)`, and CAR over them.
pub async fn list(State(c): Shared, headers: HeaderMap) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let records = records_off_path(&c).await?;
    let records: Vec<TraceRecord> =
        records.into_iter().filter(|r| r.trajectory != CONTROL_TRAJECTORY).collect();
    let mut rows: BTreeMap<String, Value> = BTreeMap::new();
    for r in &records {
        let row = rows.entry(r.trajectory.clone()).or_insert_with(|| {
            json!({"trajectory": r.trajectory, "records": 0, "decisions": 0, "blocked": 0,
                   "first_ts": r.ts, "last_ts": r.ts, "mode": mode_name(&r.mode)})
        });
        let bump = |row: &mut Value, key: &str| {
            let n = row[key].as_u64().unwrap_or(0);
            row[key] = json!(n + 1);
        };
        bump(row, "records");
        if r.decision.is_some() {
            bump(row, "decisions");
        }
        if blocked(r) {
            bump(row, "blocked");
        }
        row["last_ts"] = json!(r.ts);
    }
    for ((_, trajectory), report) in reports(&records) {
        if let Some(row) = rows.get_mut(&trajectory) {
            row["contradicted"] = json!(report.contradicted);
            row["captured"] = json!(report.captured);
            row["execute_captured"] = json!(report.execute_captured);
        }
    }
    for id in c.app.trajectories.ids() {
        rows.entry(id.clone())
            .or_insert_with(|| json!({"trajectory": id, "records": 0, "decisions": 0, "blocked": 0}));
        if let Some(row) = rows.get_mut(&id) {
            row["live"] = json!(true);
        }
    }
    let mut listed: Vec<Value> = rows.into_values().collect();
    listed.sort_by_key(|r| std::cmp::Reverse(r["last_ts"].as_u64().unwrap_or(u64::MAX)));
    listed.truncate(MAX_LISTED);
    let overall = summarize(&records).overall;
    Ok(fresh(json!({
        "trajectories": listed,
        "car": overall.car, "execute_car": overall.execute_car,
        "contradicted": overall.contradicted, "captured": overall.captured,
    })))
}

/// One record as a row of the trajectory page.
pub fn row(r: &TraceRecord) -> Value {
    json!({
        "seq": r.seq, "ts": r.ts, "kind": r.kind, "actor": r.actor_alias, "actor_true": r.actor_true,
        "stage": r.stage, "intent": r.intent, "tool": r.tool, "target": r.target,
        "verdict": r.decision, "reason": r.reason, "check": r.check,
        "layer": r.layer.map(layer_name), "enforced": r.enforced, "detail": r.detail,
        "proposal": r.proposal, "proposer": r.proposer_alias,
        "relations": r.relations, "proposals": r.proposals,
        "blocked": blocked(r), "control": r.kind == TraceKind::Control,
    })
}

/// `GET /console/api/trajectories/{id}`: rows, legend, authority report and headline.
pub async fn show(
    State(c): Shared,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let records = records_off_path(&c).await?;
    let mine: Vec<TraceRecord> = records.into_iter().filter(|r| r.trajectory == id).collect();
    let live = c.app.trajectories.get(&id).is_some();
    let Some(flow) = render::flow(&mine, &id, None) else {
        if live {
            return Ok(fresh(json!({"trajectory": id, "live": true, "rows": [], "legend": []})));
        }
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            format!("no records of trajectory `{id}` in the recent trace"),
        ));
    };
    let legend: Vec<Value> =
        flow.legend.iter().map(|(alias, identity)| json!({"alias": alias, "true": identity})).collect();
    Ok(fresh(json!({
        "trajectory": id,
        "live": live,
        "mode": flow.mode,
        "headline": flow.headline(),
        "report": flow.report,
        "legend": legend,
        "rows": mine.iter().map(row).collect::<Vec<Value>>(),
    })))
}

/// `GET /console/api/trajectories/{id}/flow.svg`: the picture `trace render --format svg` draws.
pub async fn svg(State(c): Shared, headers: HeaderMap, Path(id): Path<String>) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let records = records_off_path(&c).await?;
    let flow = render::flow(&records, &id, None)
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no records of trajectory `{id}`")))?;
    let mut r = render::to_svg(&flow).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}
