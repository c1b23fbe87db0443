//! The workloads of a run, each returning its JSON, its bounds and its table rows.

use crate::Plan;
use crate::report::Row;
use blindfold_bench::arms::{Arm, HttpTopology, McpRound, mcp_round};
use blindfold_bench::control;
use blindfold_bench::gate::{Bound, limits};
use blindfold_bench::loadgen::{LoadResult, Payload};
use blindfold_bench::proc::{blindfold_config, free_port};
use blindfold_bench::stats::{Summary, median};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

/// What a workload measured.
pub struct Outcome {
    /// Its section of the JSON report.
    pub json: Value,
    /// The bounds it checks.
    pub bounds: Vec<Bound>,
    /// Its table rows.
    pub rows: Vec<Row>,
}

/// A JSON object with one entry per arm.
fn per_arm(f: impl Fn(Arm) -> Value) -> Value {
    Value::Object(Arm::ALL.iter().map(|a| (a.name().to_owned(), f(*a))).collect())
}

/// Per-arm rounds of one measurement.
struct Rounds<T>(HashMap<&'static str, Vec<T>>);

impl<T> Rounds<T> {
    fn new() -> Self {
        Self(HashMap::new())
    }

    fn push(&mut self, arm: Arm, v: T) {
        self.0.entry(arm.name()).or_default().push(v);
    }

    fn of(&self, arm: Arm) -> &[T] {
        self.0.get(arm.name()).map_or(&[], Vec::as_slice)
    }

    /// Median over rounds of `f` for `arm`.
    fn med(&self, arm: Arm, f: impl Fn(&T) -> f64) -> f64 {
        median(&self.of(arm).iter().map(f).collect::<Vec<_>>())
    }

    /// Median over rounds of `f(arm) - f(direct)`, paired round by round.
    fn added(&self, arm: Arm, f: impl Fn(&T) -> f64) -> f64 {
        let d = self.of(Arm::Direct);
        median(&self.of(arm).iter().zip(d).map(|(a, b)| f(a) - f(b)).collect::<Vec<_>>())
    }

    /// Median over rounds of `f(arm) - f(other)`, paired round by round: what `arm` adds on top
    /// of what `other` adds over direct.
    fn over(&self, arm: Arm, other: Arm, f: impl Fn(&T) -> f64) -> f64 {
        let o = self.of(other);
        median(&self.of(arm).iter().zip(o).map(|(a, b)| f(a) - f(b)).collect::<Vec<_>>())
    }

    /// Median over rounds of `f(arm) / f(other)`, paired round by round.
    fn ratio(&self, arm: Arm, other: Arm, f: impl Fn(&T) -> f64) -> f64 {
        let o = self.of(other);
        median(&self.of(arm).iter().zip(o).map(|(a, b)| f(a) / f(b)).collect::<Vec<_>>())
    }
}

/// MCP stdio `tools/call`: sequential p50/p99 and pipelined calls/s, three arms.
pub fn mcp(plan: &Plan, dir: &Path) -> Result<Outcome, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let config = blindfold_config(dir, free_port(), "");
    let mut rounds: Rounds<McpRound> = Rounds::new();
    for r in 0..plan.rounds {
        for arm in Arm::order(r) {
            let x = mcp_round(arm, &plan.blindfold, &config, plan.mcp_sequential, plan.mcp_pipelined)
                .map_err(|e| format!("{} round {r}: {e}", arm.name()))?;
            eprintln!(
                "  round {r} {:<9} p50 {:>7.1} µs  p99 {:>7.1} µs  pipelined {:>8.0}/s",
                arm.name(),
                x.sequential.p50,
                x.sequential.p99,
                x.pipelined_per_s
            );
            rounds.push(arm, x);
        }
    }
    let p50 = |x: &McpRound| x.sequential.p50;
    let p99 = |x: &McpRound| x.sequential.p99;
    let tput = |x: &McpRound| x.pipelined_per_s;
    let (bf50, fl50) = (rounds.added(Arm::Blindfold, p50), rounds.added(Arm::Floor, p50));
    let (bf99, fl99) = (rounds.added(Arm::Blindfold, p99), rounds.added(Arm::Floor, p99));
    let mut rows = Vec::new();
    for (metric, f, added) in
        [("seq p50 (µs)", p50 as fn(&McpRound) -> f64, true), ("seq p99 (µs)", p99, true)]
    {
        rows.push(Row::arms("MCP stdio tools/call", metric, Arm::ALL.map(|a| rounds.med(a, f)), added));
    }
    rows.push(Row::arms(
        "MCP stdio tools/call",
        "pipelined (calls/s)",
        Arm::ALL.map(|a| rounds.med(a, tput)),
        false,
    ));
    let json = json!({
        "rounds": per_arm(|a| json!(rounds.of(a).iter().map(|x| json!({
            "sequential": x.sequential.to_json(), "pipelined_per_s": x.pipelined_per_s})).collect::<Vec<_>>())),
        "median": per_arm(|a| json!({"p50_us": rounds.med(a, p50),
            "p99_us": rounds.med(a, p99), "pipelined_per_s": rounds.med(a, tput)})),
        "added_us": {"blindfold_p50": bf50, "blindfold_p99": bf99, "floor_p50": fl50, "floor_p99": fl99},
        "floor_multiple": {"p50": bf50 / fl50, "p99": bf99 / fl99},
        "pipelined_ratio": {"vs_direct": rounds.ratio(Arm::Blindfold, Arm::Direct, tput),
            "vs_floor": rounds.ratio(Arm::Blindfold, Arm::Floor, tput)},
    });
    let bounds = vec![
        Bound::at_most("MCP stdio added p50 over direct", bf50, limits::MCP_ADDED_P50_US, "µs"),
        Bound::at_most("MCP stdio added p99 over direct", bf99, limits::MCP_ADDED_P99_US, "µs"),
    ];
    Ok(Outcome { json, bounds, rows })
}

/// Slices per round of the saturation load. A round's arms each run `slices` loads of
/// `secs / slices`, interleaved (the arms' order rotating slice by slice), and each arm's result
/// of the round is its slices merged. On a shared host whose speed drifts within seconds (a
/// fixed loop here took 99–154 ms from one tenth of a second to the next), one load per arm
/// after another compares different stretches of time; interleaved slices compare the same.
const SATURATION_SLICES: usize = 4;

/// `plan.rounds` rounds of `rate` over `conns` connections against every arm, each arm running
/// `slices` interleaved loads per round (1: one load of `plan.secs`).
fn load_rounds(
    plan: &Plan,
    topo: &HttpTopology,
    payload: Payload,
    rate: f64,
    conns: usize,
    label: &str,
    slices: usize,
) -> Result<Rounds<LoadResult>, String> {
    let mut rounds = Rounds::new();
    let secs = plan.secs / slices as f64;
    for r in 0..plan.rounds {
        let mut parts: HashMap<&'static str, Vec<LoadResult>> = HashMap::new();
        for s in 0..slices {
            for arm in Arm::order(r + s) {
                let x = topo.load(arm, payload, rate, conns, secs)?;
                parts.entry(arm.name()).or_default().push(x);
            }
        }
        for arm in Arm::order(r) {
            let mut own = parts.remove(arm.name()).unwrap_or_default();
            // One slice is the round's load itself, as measured.
            let x = if own.len() == 1 { own.remove(0) } else { LoadResult::merge(&own) };
            let sliced = if slices > 1 { format!(" ({slices} slices)") } else { String::new() };
            eprintln!(
                "  {label} round {r} {:<9} p50 {:>7.1} µs  p99 {:>8.1} µs  p99.9 {:>8.1} µs  {:>8.0}/s  errors {}{sliced}",
                arm.name(),
                x.latency.p50,
                x.latency.p99,
                x.latency.p999,
                x.achieved_rps,
                x.errors
            );
            if let Some(e) = &x.first_error {
                eprintln!("    first error: {e}");
            }
            rounds.push(arm, x);
        }
    }
    Ok(rounds)
}

fn load_json(r: &Rounds<LoadResult>) -> Value {
    let lat = |f: fn(&Summary) -> f64| move |x: &LoadResult| f(&x.latency);
    json!({
        "rounds": per_arm(|a| json!(r.of(a).iter().map(LoadResult::to_json).collect::<Vec<_>>())),
        "median": per_arm(|a| json!({
            "p50_us": r.med(a, lat(|s| s.p50)), "p99_us": r.med(a, lat(|s| s.p99)),
            "p999_us": r.med(a, lat(|s| s.p999)), "achieved_rps": r.med(a, |x| x.achieved_rps),
            "ttfb_p50_us": r.med(a, |x| x.ttfb.p50),
            "errors": r.of(a).iter().map(|x| x.errors).sum::<u64>()})),
        "added_us": {"blindfold_p50": r.added(Arm::Blindfold, lat(|s| s.p50)),
            "blindfold_p99": r.added(Arm::Blindfold, lat(|s| s.p99)),
            "blindfold_p999": r.added(Arm::Blindfold, lat(|s| s.p999)),
            "floor_p50": r.added(Arm::Floor, lat(|s| s.p50)), "floor_p99": r.added(Arm::Floor, lat(|s| s.p99))},
    })
}

fn latency_rows(rows: &mut Vec<Row>, r: &Rounds<LoadResult>, workload: &str) {
    let pick = |f: fn(&Summary) -> f64| Arm::ALL.map(|a| r.med(a, |x| f(&x.latency)));
    rows.push(Row::arms(workload, "p50 (µs)", pick(|s| s.p50), true));
    rows.push(Row::arms(workload, "p99 (µs)", pick(|s| s.p99), true));
    rows.push(Row::arms(workload, "p99.9 (µs)", pick(|s| s.p999), true));
    rows.push(Row::arms(workload, "achieved (req/s)", Arm::ALL.map(|a| r.med(a, |x| x.achieved_rps)), false));
}

/// A2A JSON-RPC at fixed offered loads, at saturation, and SSE streaming.
pub fn a2a(plan: &Plan, topo: &HttpTopology) -> Result<Outcome, String> {
    let mut json = serde_json::Map::new();
    let mut rows = Vec::new();
    let mut bounds = Vec::new();
    for (rate, conns) in [(1000.0, 16), (5000.0, 32), (20000.0, 64)] {
        let label = format!("A2A JSON-RPC @{}k/s", rate / 1000.0);
        let r = load_rounds(plan, topo, Payload::A2aSend, rate, conns, &label, 1)?;
        latency_rows(&mut rows, &r, &label);
        if rate == 5000.0 {
            let p = |x: &LoadResult| x.latency.p50;
            let q = |x: &LoadResult| x.latency.p99;
            bounds.push(Bound::at_most(
                "A2A @5k/s added p50 over the floor's added p50",
                r.over(Arm::Blindfold, Arm::Floor, p),
                limits::A2A_OVER_FLOOR_P50_US,
                "µs",
            ));
            bounds.push(Bound::at_most(
                "A2A @5k/s added p99 over the floor's added p99",
                r.over(Arm::Blindfold, Arm::Floor, q),
                limits::A2A_OVER_FLOOR_P99_US,
                "µs",
            ));
        }
        json.insert(format!("jsonrpc_{}rps", rate as u64), load_json(&r));
    }
    let sat = load_rounds(plan, topo, Payload::A2aSend, 0.0, 32, "A2A saturation", SATURATION_SLICES)?;
    let tput = |x: &LoadResult| x.achieved_rps;
    let vs_floor = sat.ratio(Arm::Blindfold, Arm::Floor, tput);
    let vs_direct = sat.ratio(Arm::Blindfold, Arm::Direct, tput);
    rows.push(
        Row::arms(
            "A2A saturation (32 conns)",
            "throughput (req/s)",
            Arm::ALL.map(|a| sat.med(a, tput)),
            false,
        )
        .note(format!("blindfold/floor {vs_floor:.2}, blindfold/direct {vs_direct:.2}")),
    );
    bounds.push(Bound::at_least(
        "A2A saturation throughput vs floor",
        vs_floor,
        limits::SATURATION_VS_FLOOR,
        "ratio",
    ));
    let mut sat_json = load_json(&sat);
    sat_json["ratio"] = json!({"vs_floor": vs_floor, "vs_direct": vs_direct});
    json.insert("saturation".into(), sat_json);
    let sse = load_rounds(plan, topo, Payload::A2aStream, 1000.0, 16, "A2A SSE @1k/s", 1)?;
    latency_rows(&mut rows, &sse, "A2A SSE stream (4 events) @1k/s");
    json.insert("sse_1000rps".into(), load_json(&sse));
    Ok(Outcome { json: Value::Object(json), bounds, rows })
}

/// Model-API proxy: TTFB and per-chunk cost of a streamed chat completion.
pub fn model(plan: &Plan, topo: &HttpTopology) -> Result<Outcome, String> {
    let r = load_rounds(plan, topo, Payload::Chat, 200.0, 8, "chat stream @200/s", 1)?;
    let ttfb = |x: &LoadResult| x.ttfb.p50;
    let total = |x: &LoadResult| x.latency.p50;
    let added_ttfb = r.added(Arm::Blindfold, ttfb);
    let added_total = r.added(Arm::Blindfold, total);
    // 17 chunks: 16 content chunks and the finish chunk (then [DONE]).
    let per_chunk = (added_total - added_ttfb) / 16.0;
    let rows = vec![
        Row::arms(
            "model API chat stream (17 chunks)",
            "TTFB p50 (µs)",
            Arm::ALL.map(|a| r.med(a, ttfb)),
            true,
        ),
        Row::arms(
            "model API chat stream (17 chunks)",
            "whole stream p50 (µs)",
            Arm::ALL.map(|a| r.med(a, total)),
            true,
        )
        .note(format!("added per chunk after the first ≈ {per_chunk:.1} µs")),
    ];
    let mut json = load_json(&r);
    json["added_ttfb_p50_us"] = json!(added_ttfb);
    json["added_per_chunk_us"] = json!(per_chunk);
    let bounds = vec![Bound::at_most(
        "model API added latency per streamed chunk",
        per_chunk,
        limits::MODEL_ADDED_PER_CHUNK_US,
        "µs",
    )];
    Ok(Outcome { json, bounds, rows })
}

/// WebSocket control API `check_action` calls per second (sequential and pipelined).
pub fn control(plan: &Plan, topo: &HttpTopology) -> Result<Outcome, String> {
    let token = control::adapter_token(&topo.state_dir)?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let port = topo.blindfold_port;
    let (mut seq, mut lat, mut pipe) = (Vec::new(), Vec::new(), Vec::new());
    let n = (plan.secs * 10_000.0) as u64;
    for r in 0..plan.rounds {
        let (rate, summary) = rt.block_on(control::sequential_checks(port, &token, 4, plan.secs))?;
        let piped = rt.block_on(control::pipelined_checks(port, &token, 4, 32, r as u64 * n, n, 100))?;
        eprintln!(
            "  round {r} sequential {rate:>8.0}/s p50 {:>6.1} µs  pipelined {piped:>8.0}/s",
            summary.p50
        );
        seq.push(rate);
        lat.push(summary);
        pipe.push(piped);
    }
    let rows = vec![
        Row::single("control API check_action", "4 sockets, one call at a time (calls/s)", median(&seq)),
        Row::single("control API check_action", "4 sockets, 32 in flight each (calls/s)", median(&pipe)),
        Row::single(
            "control API check_action",
            "one-at-a-time p50 (µs)",
            median(&lat.iter().map(|s| s.p50).collect::<Vec<_>>()),
        ),
    ];
    let json = json!({"sequential_per_s": seq, "pipelined_per_s": pipe,
        "sequential_latency": lat.iter().map(Summary::to_json).collect::<Vec<_>>(),
        "median": {"sequential_per_s": median(&seq), "pipelined_per_s": median(&pipe)}});
    Ok(Outcome { json, bounds: Vec::new(), rows })
}
