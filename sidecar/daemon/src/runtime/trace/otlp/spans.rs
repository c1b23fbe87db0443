//! Trace records as OTLP spans (the OTLP JSON mapping of `ExportTraceServiceRequest`): one span
//! per decision, a child of its trajectory's span, with the attributes a security team filters on
//! (check, reason, decision, mode, alias, true family, grant `jti`); and the trajectory's span with
//! the authority verdict and one event per record that is not a decision.

use super::super::summary::{layer_name, mode_name};
use super::super::traceparent::TraceContext;
use blindfold_engine::authority::AuthorityTracker;
use blindfold_schemas::TraceRecord;
use serde_json::{Value, json};

/// A string attribute.
pub fn s(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

/// An integer attribute (OTLP JSON writes 64-bit integers as strings).
pub fn i(key: &str, value: u64) -> Value {
    json!({"key": key, "value": {"intValue": value.to_string()}})
}

/// A boolean attribute.
pub fn b(key: &str, value: bool) -> Value {
    json!({"key": key, "value": {"boolValue": value}})
}

/// Milliseconds as OTLP's nanoseconds (a string).
fn nanos(ms: u64) -> String {
    (u128::from(ms) * 1_000_000).to_string()
}

fn kind_name(r: &TraceRecord) -> String {
    serde_json::to_value(r.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// What every span and event of a record says about who and what.
fn common(r: &TraceRecord) -> Vec<Value> {
    let mut attrs = vec![
        s("blindfold.trajectory", &r.trajectory),
        i("blindfold.seq", r.seq),
        s("blindfold.kind", &kind_name(r)),
        s("blindfold.mode", &mode_name(&r.mode)),
    ];
    if let Some(a) = &r.actor_alias {
        attrs.push(s("blindfold.actor.alias", a));
    }
    if let Some(t) = &r.actor_true {
        attrs.push(s("blindfold.actor.model", &t.model));
        attrs.push(s("blindfold.actor.family", &t.family));
        attrs.push(s("blindfold.actor.tier", &t.tier));
    }
    if let Some(st) = r.stage {
        attrs.push(s("blindfold.authority.stage", super::super::render::stage_text(st)));
    }
    if let Some(tool) = &r.tool {
        attrs.push(s("blindfold.tool", tool));
    }
    if let Some(p) = &r.proposal {
        attrs.push(s("blindfold.proposal", p));
    }
    if let Some(p) = &r.proposer_alias {
        attrs.push(s("blindfold.proposer.alias", p));
    }
    attrs
}

/// The span of one decision: under the trajectory's span, named by its check and verdict, ending
/// when the decision was made and starting its latency earlier.
pub fn decision_span(r: &TraceRecord) -> Option<Value> {
    let verdict = r.decision?;
    let ctx = TraceContext::for_trajectory(&r.trajectory);
    let check = r.check.as_deref().unwrap_or("");
    let mut attrs = common(r);
    attrs.push(s("blindfold.decision", super::super::render::verdict_text(verdict)));
    attrs.push(s("blindfold.reason", r.reason.map_or("", |x| x.as_str())));
    attrs.push(s("blindfold.check", check));
    attrs.push(s("blindfold.layer", r.layer.map_or("", layer_name)));
    attrs.push(b("blindfold.enforced", r.enforced != Some(false)));
    attrs.push(i("blindfold.latency_us", r.latency_us));
    if let Some(jti) = &r.grant_jti {
        attrs.push(s("blindfold.grant.jti", jti));
    }
    if let Some(e) = r.effect {
        let effect = serde_json::to_value(e).ok().and_then(|v| v.as_str().map(str::to_owned));
        attrs.push(s("blindfold.effect", &effect.unwrap_or_default()));
    }
    let end_ns = u128::from(r.ts) * 1_000_000;
    let start_ns = end_ns.saturating_sub(u128::from(r.latency_us) * 1000);
    // OTLP status: 1 ok for an allow, 2 error for a refusal, so backends colour refusals.
    let status = if r.passed() {
        json!({"code": 1})
    } else {
        json!({"code": 2, "message": r.reason.map_or("", |x| x.as_str())})
    };
    Some(json!({
        "traceId": ctx.trace_id_hex(),
        "spanId": ctx.child(r.seq).span_id_hex(),
        "parentSpanId": ctx.span_id_hex(),
        "name": format!("{} {}", if check.is_empty() { kind_name(r) } else { check.to_owned() }, super::super::render::verdict_text(verdict)),
        "kind": 1,
        "startTimeUnixNano": start_ns.to_string(),
        "endTimeUnixNano": end_ns.to_string(),
        "attributes": attrs,
        "status": status,
    }))
}

/// A record that is not a decision, as an event of its trajectory's span.
pub fn event(r: &TraceRecord) -> Value {
    json!({"timeUnixNano": nanos(r.ts), "name": kind_name(r), "attributes": common(r)})
}

/// What the trajectory's span gathers while it is open.
pub struct OpenTrajectory {
    /// First and last record times (ms).
    pub first_ts: u64,
    /// Last record time (ms).
    pub last_ts: u64,
    /// Mode at the first record.
    pub mode: String,
    /// Events (records that are not decisions).
    pub events: Vec<Value>,
    /// The authority tracker fed with every record.
    pub tracker: AuthorityTracker,
    /// Decisions seen.
    pub decisions: u64,
    /// Decisions that did not allow.
    pub blocked: u64,
}

/// The trajectory's span: its id the one every transport's `traceparent` carries, with the
/// authority verdict as attributes.
pub fn trajectory_span(trajectory: &str, o: &OpenTrajectory) -> Value {
    let ctx = TraceContext::for_trajectory(trajectory);
    let report = o.tracker.report();
    let mut attrs = vec![
        s("blindfold.trajectory", trajectory),
        s("blindfold.mode", &o.mode),
        i("blindfold.decisions", o.decisions),
        i("blindfold.blocked", o.blocked),
        b("blindfold.authority.contradicted", report.contradicted),
        b("blindfold.authority.captured", report.captured),
        b("blindfold.authority.execute_captured", report.execute_captured),
    ];
    if let Some(first) = &report.first_called {
        attrs.push(s("blindfold.authority.first_called", first));
    }
    for (alias, v) in &report.vectors {
        attrs.push(s(&format!("blindfold.authority.vector.{alias}"), &v.to_string()));
    }
    json!({
        "traceId": ctx.trace_id_hex(),
        "spanId": ctx.span_id_hex(),
        "name": format!("trajectory {trajectory}"),
        "kind": 1,
        "startTimeUnixNano": nanos(o.first_ts),
        "endTimeUnixNano": nanos(o.last_ts.max(o.first_ts)),
        "attributes": attrs,
        "events": o.events,
        "status": {"code": 0},
    })
}

/// An `ExportTraceServiceRequest` in the OTLP JSON mapping, naming the service and this
/// Blindfold (`service.instance.id`, so a fleet's spans stay apart in one backend).
pub fn request(spans: Vec<Value>, instance: &str) -> Value {
    json!({"resourceSpans": [{
        "resource": {"attributes": [
            s("service.name", "blindfold"),
            s("service.version", env!("CARGO_PKG_VERSION")),
            s("service.instance.id", instance),
        ]},
        "scopeSpans": [{"scope": {"name": "blindfold.trace", "version": env!("CARGO_PKG_VERSION")}, "spans": spans}],
    }]})
}
