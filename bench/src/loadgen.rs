//! An open-loop HTTP/1.1 load generator: `conns` keep-alive connections share a fixed offered
//! rate (request `i` is due at `i / rate`, released by a pacing thread at that instant and sent
//! by the first idle connection), or send back to back when the rate is 0 (saturation). Every
//! answer is checked (status 200 and an expected substring); latency is send → last body byte,
//! TTFB send → first body byte.
//!
//! The pacing is a thread sleeping to each due instant rather than the runtime's timer: tokio's
//! timer fires on whole milliseconds, so at 5k/s it would release five requests at once every
//! millisecond and measure the system's queueing of those bursts instead of the offered rate.

use crate::http::connect;
use crate::stats::Summary;
use crate::wire;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;

/// What each request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// A2A `SendMessage` (JSON answer).
    A2aSend,
    /// A2A `SendStreamingMessage` (SSE answer).
    A2aStream,
    /// A streamed chat completion.
    Chat,
}

impl Payload {
    /// By name: `a2a`, `a2a-stream`, `chat`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "a2a" => Some(Self::A2aSend),
            "a2a-stream" => Some(Self::A2aStream),
            "chat" => Some(Self::Chat),
            _ => None,
        }
    }

    fn body(self, id: u64) -> String {
        match self {
            Self::A2aSend => wire::a2a_send(id, false),
            Self::A2aStream => wire::a2a_send(id, true),
            Self::Chat => wire::chat_request(),
        }
    }

    fn expect(self) -> &'static str {
        match self {
            Self::A2aSend | Self::A2aStream => wire::A2A_ANSWER,
            Self::Chat => "[DONE]",
        }
    }
}

/// One load run.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// Loopback port.
    pub port: u16,
    /// Request path.
    pub path: String,
    /// Request payload.
    pub payload: Payload,
    /// Offered requests per second; 0 = back to back (saturation).
    pub rate: f64,
    /// Keep-alive connections.
    pub conns: usize,
    /// Measured time.
    pub duration: Duration,
    /// Unmeasured time before it.
    pub warmup: Duration,
}

/// What a load run measured.
#[derive(Debug, Clone, Default)]
pub struct LoadResult {
    /// Requests sent.
    pub sent: u64,
    /// Answers that were correct.
    pub ok: u64,
    /// Failed or wrong answers.
    pub errors: u64,
    /// The first failure, for the report.
    pub first_error: Option<String>,
    /// Correct answers completed inside the measured window, per second.
    pub achieved_rps: f64,
    /// Send → last byte, measured window.
    pub latency: Summary,
    /// Send → first body byte, measured window.
    pub ttfb: Summary,
}

impl LoadResult {
    /// As JSON.
    pub fn to_json(&self) -> Value {
        json!({"sent": self.sent, "ok": self.ok, "errors": self.errors, "first_error": self.first_error,
               "achieved_rps": self.achieved_rps, "latency": self.latency.to_json(), "ttfb": self.ttfb.to_json()})
    }

    /// Reads the JSON of [`LoadResult::to_json`].
    pub fn from_json(v: &Value) -> Self {
        let u = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        Self {
            sent: u("sent"),
            ok: u("ok"),
            errors: u("errors"),
            first_error: v.get("first_error").and_then(Value::as_str).map(str::to_owned),
            achieved_rps: v.get("achieved_rps").and_then(Value::as_f64).unwrap_or(0.0),
            latency: Summary::from_json(&v["latency"]),
            ttfb: Summary::from_json(&v["ttfb"]),
        }
    }

    /// One result for loads of equal length run one after another against the same arm (the
    /// slices of a round): counts added, the achieved rate their mean (so equal to the rate of
    /// the slices taken together), latencies merged by [`Summary::merge`].
    pub fn merge(slices: &[LoadResult]) -> Self {
        let rates: Vec<f64> = slices.iter().map(|s| s.achieved_rps).collect();
        Self {
            sent: slices.iter().map(|s| s.sent).sum(),
            ok: slices.iter().map(|s| s.ok).sum(),
            errors: slices.iter().map(|s| s.errors).sum(),
            first_error: slices.iter().find_map(|s| s.first_error.clone()),
            achieved_rps: if rates.is_empty() { 0.0 } else { rates.iter().sum::<f64>() / rates.len() as f64 },
            latency: Summary::merge(&slices.iter().map(|s| s.latency).collect::<Vec<_>>()),
            ttfb: Summary::merge(&slices.iter().map(|s| s.ttfb).collect::<Vec<_>>()),
        }
    }
}

#[derive(Default)]
struct WorkerOut {
    sent: u64,
    ok: u64,
    errors: u64,
    first_error: Option<String>,
    in_window: u64,
    latency: Vec<Duration>,
    ttfb: Vec<Duration>,
}

impl WorkerOut {
    fn fail(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }
}

/// One exchange: the answer's first-byte and last-byte times, or why it was wrong.
async fn exchange(
    conn: &mut hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    spec: &LoadSpec,
    id: u64,
    started: Instant,
) -> Result<(Instant, Instant), String> {
    let req = Request::post(&spec.path)
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("a2a-version", wire::A2A_VERSION)
        .body(Full::from(spec.payload.body(id)))
        .map_err(|e| e.to_string())?;
    let resp = conn.send_request(req).await.map_err(|e| format!("send: {e}"))?;
    let status = resp.status();
    let mut body = resp.into_body();
    let mut first = None;
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("body: {e}"))?;
        if let Ok(data) = frame.into_data()
            && !data.is_empty()
        {
            first.get_or_insert_with(Instant::now);
            bytes.extend_from_slice(&data);
        }
    }
    let last = Instant::now();
    let expect = spec.payload.expect().as_bytes();
    if status != 200 || !bytes.windows(expect.len()).any(|w| w == expect) {
        return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&bytes[..bytes.len().min(300)])));
    }
    Ok((first.unwrap_or(started), last))
}

/// Where a worker's next request comes from: released slots (fixed rate) or its own count
/// (back to back).
enum Slots {
    Paced(Arc<Mutex<UnboundedReceiver<u64>>>),
    BackToBack { next: u64, step: u64 },
}

impl Slots {
    /// The next request's slot number, or `None` when the run is over.
    async fn next(&mut self, end: Instant) -> Option<u64> {
        match self {
            Self::Paced(released) => {
                let slot = released.lock().await.recv().await?;
                // A backlog left when the window closes is not sent (it could not be counted).
                (Instant::now() < end).then_some(slot)
            }
            Self::BackToBack { next, step } => {
                let slot = *next;
                *next += *step;
                (Instant::now() < end).then_some(slot)
            }
        }
    }
}

/// Releases slot `i` at `t0 + i / rate` (to the microsecond, from a sleeping thread) until the
/// slot falls at or after `end` or nobody receives any more; returns how many slots it released.
fn pace(rate: f64, t0: std::time::Instant, end: std::time::Instant, release: UnboundedSender<u64>) -> u64 {
    for slot in 0u64.. {
        let due = t0 + Duration::from_secs_f64(slot as f64 / rate);
        if due >= end {
            return slot;
        }
        let now = std::time::Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        if release.send(slot).is_err() {
            return slot;
        }
    }
    u64::MAX
}

async fn worker(mut slots: Slots, spec: LoadSpec, t0: Instant) -> WorkerOut {
    let mut out = WorkerOut::default();
    let measure_from = t0 + spec.warmup;
    let end = measure_from + spec.duration;
    let hard_end = end + Duration::from_secs(2);
    let mut conn = None;
    loop {
        if Instant::now() >= hard_end {
            break;
        }
        let Some(slot) = slots.next(end).await else { break };
        if conn.is_none() {
            match connect(spec.port).await {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    out.fail(format!("connect: {e}"));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let c = conn.as_mut().expect("connected");
        if c.ready().await.is_err() {
            conn = None;
            continue;
        }
        let started = Instant::now();
        out.sent += 1;
        match exchange(c, &spec, slot, started).await {
            Ok((first, last)) => {
                out.ok += 1;
                if started >= measure_from && last <= end {
                    out.in_window += 1;
                    out.latency.push(last - started);
                    out.ttfb.push(first - started);
                }
            }
            Err(e) => {
                out.fail(e);
                conn = None;
            }
        }
    }
    out
}

/// Runs one load on the current runtime.
pub async fn run(spec: LoadSpec) -> LoadResult {
    let t0 = Instant::now() + Duration::from_millis(20);
    let conns = spec.conns.max(1);
    let mut pacer = None;
    let released = (spec.rate > 0.0).then(|| {
        let (release, released) = unbounded_channel();
        let (start, end) = (t0.into_std(), (t0 + spec.warmup + spec.duration).into_std());
        let rate = spec.rate;
        pacer = Some(std::thread::spawn(move || {
            pace(rate, start, end, release);
        }));
        Arc::new(Mutex::new(released))
    });
    let workers: Vec<_> = (0..conns)
        .map(|k| {
            let slots = match &released {
                Some(r) => Slots::Paced(r.clone()),
                None => Slots::BackToBack { next: k as u64, step: conns as u64 },
            };
            tokio::spawn(worker(slots, spec.clone(), t0))
        })
        .collect();
    let mut res = LoadResult::default();
    let (mut lat, mut ttfb, mut in_window) = (Vec::new(), Vec::new(), 0);
    for w in workers {
        let Ok(o) = w.await else {
            res.errors += 1;
            continue;
        };
        res.sent += o.sent;
        res.ok += o.ok;
        res.errors += o.errors;
        if res.first_error.is_none() {
            res.first_error = o.first_error;
        }
        in_window += o.in_window;
        lat.extend(o.latency);
        ttfb.extend(o.ttfb);
    }
    drop(released);
    if let Some(p) = pacer {
        let _ = p.join();
    }
    res.achieved_rps = in_window as f64 / spec.duration.as_secs_f64();
    res.latency = Summary::of(&lat);
    res.ttfb = Summary::of(&ttfb);
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pacer_releases_every_slot_of_the_window_in_order_and_no_more() {
        let (release, mut released) = unbounded_channel();
        let t0 = std::time::Instant::now();
        assert_eq!(pace(2000.0, t0, t0 + Duration::from_millis(10), release), 20);
        let mut slots = Vec::new();
        while let Ok(slot) = released.try_recv() {
            slots.push(slot);
        }
        assert_eq!(slots, (0..20).collect::<Vec<u64>>());
        assert!(t0.elapsed() >= Duration::from_micros(9500), "slot 19 is not released before 9.5 ms");
    }

    #[test]
    fn the_pacer_stops_when_nobody_receives() {
        let (release, released) = unbounded_channel();
        drop(released);
        let t0 = std::time::Instant::now();
        // Slot 0 is due at once and its send fails: the pacer stops there, releasing nothing,
        // instead of sleeping through the hour's 36,000 slots.
        assert_eq!(pace(10.0, t0, t0 + Duration::from_secs(3600), release), 0);
    }

    #[test]
    fn merged_slices_add_counts_and_average_their_rates() {
        let slice = |ok: u64, rps: f64, err: Option<&str>| LoadResult {
            sent: ok + 1,
            ok,
            errors: 1,
            first_error: err.map(str::to_owned),
            achieved_rps: rps,
            latency: Summary::of_us(vec![rps]),
            ttfb: Summary::of_us(vec![rps / 2.0]),
        };
        let m = LoadResult::merge(&[
            slice(10, 100.0, None),
            slice(30, 300.0, Some("late")),
            slice(20, 200.0, Some("x")),
        ]);
        assert_eq!((m.sent, m.ok, m.errors), (63, 60, 3));
        assert_eq!(m.first_error.as_deref(), Some("late"));
        assert_eq!(m.achieved_rps, 200.0);
        assert_eq!((m.latency.n, m.latency.p50, m.ttfb.max), (3, 200.0, 150.0));
    }
}
