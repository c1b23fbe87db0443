//! `bench-runner`: every workload direct, through the floor and through Blindfold, arms
//! alternating round by round, in one process tree; prints the table with ratios, writes JSON to
//! `bench/results/<timestamp>.json`, and exits non-zero when a median misses its bound.
//!
//! `bench-runner [--rounds N] [--quick] [--only mcp,a2a,model,control,memory] [--decisions N]
//! [--out DIR] [--no-gate]`

mod memory;
mod report;
mod workloads;

use blindfold_bench::gate::Bound;
use serde_json::{Value, json};
use std::path::PathBuf;

/// How a run is sized.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Rounds per workload (medians are taken over them).
    pub rounds: usize,
    /// Seconds per HTTP load.
    pub secs: f64,
    /// Sequential MCP round trips per round.
    pub mcp_sequential: usize,
    /// Pipelined MCP calls per round.
    pub mcp_pipelined: usize,
    /// Decisions for the memory workload.
    pub decisions: u64,
    /// Workloads to run.
    pub only: Vec<String>,
    /// The Blindfold binary.
    pub blindfold: PathBuf,
}

impl Plan {
    fn wants(&self, w: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == w)
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: bench-runner [--rounds N] [--quick] [--only mcp,a2a,model,control,memory] [--decisions N] [--out DIR] [--no-gate]"
    );
    std::process::exit(64)
}

fn main() {
    let mut plan = Plan {
        rounds: 5,
        secs: 2.0,
        mcp_sequential: 5000,
        mcp_pipelined: 20000,
        decisions: 1_000_000,
        only: Vec::new(),
        blindfold: blindfold_bench::proc::sibling("blindfold"),
    };
    let mut out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut gate = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--rounds" => plan.rounds = val().parse().unwrap_or_else(|_| usage()),
            "--decisions" => plan.decisions = val().parse().unwrap_or_else(|_| usage()),
            "--only" => plan.only = val().split(',').map(str::to_owned).collect(),
            "--out" => out = PathBuf::from(val()),
            "--blindfold" => plan.blindfold = PathBuf::from(val()),
            "--no-gate" => gate = false,
            "--quick" => {
                plan.rounds = 3;
                plan.secs = 0.8;
                plan.mcp_sequential = 1000;
                plan.mcp_pipelined = 5000;
                plan.decisions = 100_000;
            }
            _ => usage(),
        }
    }
    if plan.rounds < 3 {
        eprintln!("bench-runner: at least 3 rounds (the gate takes medians)");
        std::process::exit(64);
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let load_before = report::loadavg();
    let started = std::time::SystemTime::now();
    let mut results = serde_json::Map::new();
    let mut bounds: Vec<Bound> = Vec::new();
    let mut rows: Vec<report::Row> = Vec::new();
    let mut failures: Vec<String> = Vec::new();

    let mut record = |name: &str, r: Result<workloads::Outcome, String>| match r {
        Ok(o) => {
            results.insert(name.to_owned(), o.json);
            bounds.extend(o.bounds);
            rows.extend(o.rows);
        }
        Err(e) => {
            eprintln!("bench-runner: {name}: {e}");
            failures.push(format!("{name}: {e}"));
            results.insert(name.to_owned(), json!({"error": e}));
        }
    };
    if plan.wants("mcp") {
        eprintln!("== MCP stdio ({} rounds)", plan.rounds);
        record("mcp_stdio", workloads::mcp(&plan, &dir.path().join("mcp")));
    }
    let needs_http = ["a2a", "model", "control"].iter().any(|w| plan.wants(w));
    if needs_http {
        match blindfold_bench::arms::start_http(&dir.path().join("http"), &plan.blindfold) {
            Ok(topo) => {
                if plan.wants("a2a") {
                    eprintln!("== A2A JSON-RPC and SSE");
                    record("a2a", workloads::a2a(&plan, &topo));
                }
                if plan.wants("model") {
                    eprintln!("== model-API proxy");
                    record("model_proxy", workloads::model(&plan, &topo));
                }
                if plan.wants("control") {
                    eprintln!("== control API");
                    record("control", workloads::control(&plan, &topo));
                }
            }
            Err(e) => record("http", Err(e)),
        }
    }
    if plan.wants("memory") {
        eprintln!("== memory ({} decisions)", plan.decisions);
        record("memory", memory::run(&plan, &dir.path().join("memory")));
    }

    let machine = report::machine(load_before, report::loadavg());
    let report = json!({
        "started_unix": started.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "machine": machine,
        "plan": {"rounds": plan.rounds, "secs": plan.secs, "mcp_sequential": plan.mcp_sequential,
                 "mcp_pipelined": plan.mcp_pipelined, "decisions": plan.decisions},
        "results": Value::Object(results),
        "bounds": bounds.iter().map(Bound::to_json).collect::<Vec<_>>(),
        "failures": failures,
    });
    report::print(&rows, &bounds, &machine);
    match report::write(&out, started, &report) {
        Ok(path) => println!("\nresults: {}", path.display()),
        Err(e) => eprintln!("bench-runner: cannot write results: {e}"),
    }
    let missed = bounds.iter().filter(|b| !b.met()).count();
    if !failures.is_empty() {
        eprintln!("bench-runner: {} workload(s) failed", failures.len());
        std::process::exit(2);
    }
    if gate && missed > 0 {
        eprintln!("bench-runner: {missed} bound(s) missed on the median of {} rounds", plan.rounds);
        std::process::exit(1);
    }
}
