//! OpenTelemetry export (OTLP/HTTP, JSON encoding) for users with a collector: one span per
//! trajectory — trace and span id from the trajectory's W3C context, so spans of the harness and
//! tools carrying that `traceparent` join it — with one event per trace record.
//!
//! Off by default (`[trace] otlp_endpoint`). It runs on its own thread fed by the trace sink's
//! live channel, never on the decision path: a collector that is down costs nothing but the export.
//! A trajectory's span is sent once it has been idle for `idle` (or holds `MAX_EVENTS` events),
//! with the authority verdict (`V(τ)`, execute captured, first-called agent) as attributes.
//! The request body is built from the OTLP JSON mapping directly and posted with a small
//! HTTP/1.1 client, which keeps the OpenTelemetry SDK, protobuf and an HTTP client stack out of
//! the build.

use super::summary::{layer_name, mode_name};
use super::traceparent::TraceContext;
use blindfold_engine::authority::{AuthorityTracker, facts};
use blindfold_schemas::TraceRecord;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// Events per span before it is sent even if the trajectory is still active.
const MAX_EVENTS: usize = 1000;
/// Bound on one export request (connect, write, read).
const HTTP_TIMEOUT: Duration = Duration::from_secs(5);

struct Open {
    first_ts: u64,
    last_ts: u64,
    last_seen: Instant,
    mode: String,
    events: Vec<Value>,
    tracker: AuthorityTracker,
    decisions: u64,
    blocked: u64,
}

/// Starts the exporter thread posting to `<endpoint>/v1/traces`.
pub fn start(
    endpoint: &str,
    records: broadcast::Receiver<Arc<TraceRecord>>,
    idle: Duration,
) -> std::io::Result<()> {
    let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
    let target =
        HttpTarget::parse(&url).ok_or_else(|| std::io::Error::other(format!("not an http:// URL: {url}")))?;
    std::thread::Builder::new().name("blindfold-otlp".into()).spawn(move || run(&target, records, idle))?;
    Ok(())
}

fn run(target: &HttpTarget, mut records: broadcast::Receiver<Arc<TraceRecord>>, idle: Duration) {
    let mut open: HashMap<String, Open> = HashMap::new();
    let tick = (idle / 4).max(Duration::from_millis(20));
    loop {
        match records.try_recv() {
            Ok(r) => {
                let full = add(&mut open, &r);
                if full {
                    flush(target, &mut open, |t, _| t == r.trajectory);
                }
                continue;
            }
            Err(broadcast::error::TryRecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "OTLP export fell behind; records skipped");
                continue;
            }
            Err(broadcast::error::TryRecvError::Closed) => {
                flush(target, &mut open, |_, _| true);
                return;
            }
            Err(broadcast::error::TryRecvError::Empty) => {}
        }
        flush(target, &mut open, |_, o| o.last_seen.elapsed() >= idle);
        std::thread::sleep(tick);
    }
}

/// Adds a record to its trajectory's span; true when the span is full.
fn add(open: &mut HashMap<String, Open>, r: &TraceRecord) -> bool {
    let o = open.entry(r.trajectory.clone()).or_insert_with(|| Open {
        first_ts: r.ts,
        last_ts: r.ts,
        last_seen: Instant::now(),
        mode: mode_name(&r.mode),
        events: Vec::new(),
        tracker: AuthorityTracker::new(),
        decisions: 0,
        blocked: 0,
    });
    o.last_ts = o.last_ts.max(r.ts);
    o.last_seen = Instant::now();
    o.tracker.observe(&facts::from_record(r), Some(r.reference()));
    if let Some(d) = r.decision {
        o.decisions += 1;
        o.blocked += u64::from(d != blindfold_schemas::Verdict::Allow);
    }
    o.events.push(event(r));
    o.events.len() >= MAX_EVENTS
}

fn flush(target: &HttpTarget, open: &mut HashMap<String, Open>, due: impl Fn(&str, &Open) -> bool) {
    let ready: Vec<String> = open.iter().filter(|(t, o)| due(t, o)).map(|(t, _)| t.clone()).collect();
    if ready.is_empty() {
        return;
    }
    let spans: Vec<Value> = ready.iter().filter_map(|t| open.remove(t).map(|o| span(t, &o))).collect();
    let body = request(spans);
    if let Err(e) = target.post(&body.to_string()) {
        tracing::warn!(error = %e, "OTLP export failed; spans dropped");
    }
}

fn s(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

fn i(key: &str, value: u64) -> Value {
    json!({"key": key, "value": {"intValue": value.to_string()}})
}

fn b(key: &str, value: bool) -> Value {
    json!({"key": key, "value": {"boolValue": value}})
}

fn nanos(ms: u64) -> String {
    (u128::from(ms) * 1_000_000).to_string()
}

/// One span event per record: what happened and the decision with its check.
fn event(r: &TraceRecord) -> Value {
    let kind =
        serde_json::to_value(r.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    let mut attrs = vec![i("blindfold.seq", r.seq), s("blindfold.kind", &kind)];
    if let Some(a) = &r.actor_alias {
        attrs.push(s("blindfold.actor.alias", a));
    }
    if let Some(t) = &r.actor_true {
        attrs.push(s("blindfold.actor.model", &t.model));
        attrs.push(s("blindfold.actor.family", &t.family));
        attrs.push(s("blindfold.actor.tier", &t.tier));
    }
    if let Some(st) = r.stage {
        attrs.push(s("blindfold.authority.stage", super::render::stage_text(st)));
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
    if let Some(d) = r.decision {
        attrs.push(s("blindfold.decision", super::render::verdict_text(d)));
        attrs.push(s("blindfold.reason", r.reason.map_or("", |x| x.as_str())));
        attrs.push(s("blindfold.check", r.check.as_deref().unwrap_or("")));
        attrs.push(s("blindfold.layer", r.layer.map_or("", layer_name)));
        attrs.push(b("blindfold.enforced", r.enforced != Some(false)));
        attrs.push(i("blindfold.latency_us", r.latency_us));
    }
    let name = match r.decision {
        Some(d) => format!("{kind} {}", super::render::verdict_text(d)),
        None => kind,
    };
    json!({"timeUnixNano": nanos(r.ts), "name": name, "attributes": attrs})
}

fn span(trajectory: &str, o: &Open) -> Value {
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

/// An `ExportTraceServiceRequest` in the OTLP JSON mapping.
fn request(spans: Vec<Value>) -> Value {
    json!({"resourceSpans": [{
        "resource": {"attributes": [s("service.name", "blindfold"), s("service.version", env!("CARGO_PKG_VERSION"))]},
        "scopeSpans": [{"scope": {"name": "blindfold.trace", "version": env!("CARGO_PKG_VERSION")}, "spans": spans}],
    }]})
}

/// Where to POST: host, port and path of an `http://` URL.
struct HttpTarget {
    host: String,
    port: u16,
    path: String,
}

impl HttpTarget {
    fn parse(url: &str) -> Option<Self> {
        let rest = url.strip_prefix("http://")?;
        let (authority, path) =
            rest.split_once('/').map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), p.parse().ok()?),
            None => (authority.to_owned(), 80),
        };
        (!host.is_empty()).then_some(Self { host, port, path })
    }

    /// One HTTP/1.1 POST of a JSON body; Ok for a 2xx answer.
    fn post(&self, body: &str) -> std::io::Result<()> {
        let addr = std::net::ToSocketAddrs::to_socket_addrs(&(self.host.as_str(), self.port))?
            .next()
            .ok_or_else(|| std::io::Error::other("collector host does not resolve"))?;
        let mut stream = TcpStream::connect_timeout(&addr, HTTP_TIMEOUT)?;
        stream.set_read_timeout(Some(HTTP_TIMEOUT))?;
        stream.set_write_timeout(Some(HTTP_TIMEOUT))?;
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.path,
            self.host,
            self.port,
            body.len()
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(body.as_bytes())?;
        let mut status = [0u8; 12];
        stream.read_exact(&mut status)?;
        let code = std::str::from_utf8(&status[9..12]).unwrap_or("000");
        if code.starts_with('2') {
            Ok(())
        } else {
            Err(std::io::Error::other(format!("collector answered {code}")))
        }
    }
}
