//! `bench-runner`: every workload direct, through the floor and through Blindfold, arms
//! alternating round by round, in one process tree; prints the table with ratios, writes JSON to
//! `bench/results/<timestamp>.json`, and exits non-zero when a median misses its bound.
//! (`bench-runner --help` for the options.)

mod churn;
mod memory;
mod report;
mod scaleout;
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
    /// Revocations timed by the scale-out workload.
    pub revocations: usize,
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

/// Blindfold's cost measured side by side with no Blindfold.
///
/// Builds nothing itself (`make bench` builds the release binaries first): runs every workload
/// direct (client straight to the peer), through the floor (a minimal relay, one extra hop and
/// nothing else) and through Blindfold (default modes, enforce, trace on), the arms alternating
/// round by round in one process tree. Prints a table with ratios, writes everything as JSON to
/// `bench/results/<timestamp>.json`, and checks the acceptance bounds (README, Performance) on
/// the median of the rounds, so one noisy round cannot fail it.
///
/// Exit status: 0 every bound met; 1 a median missed its bound (and --no-gate not given); 2 a
/// workload failed (an answer was wrong or a process would not start); 64 bad arguments.
#[derive(Debug, clap::Parser)]
#[command(name = "bench-runner", version, verbatim_doc_comment)]
struct Args {
    /// Rounds per workload; medians are taken over them (at least 3) [default: 5, 3 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(3..))]
    rounds: Option<u32>,
    /// A short run: 3 rounds, 0.8 s per HTTP load, 1,000 sequential and 5,000 pipelined MCP
    /// calls, 100,000 decisions (explicit options given with it still win).
    #[arg(long)]
    quick: bool,
    /// Workloads to run, comma-separated (default: all).
    #[arg(long, value_name = "WORKLOADS", value_delimiter = ',', value_parser = ["mcp", "a2a", "model", "control", "memory", "scaleout"])]
    only: Vec<String>,
    /// Seconds of offered load per HTTP measurement (A2A, model API, control API; each of the
    /// five loads of the memory workload's A2A churn, at least 1).
    #[arg(long, value_name = "SECONDS")]
    secs: Option<f64>,
    /// Sequential MCP `tools/call` round trips per arm and round.
    #[arg(long, value_name = "N")]
    mcp_calls: Option<usize>,
    /// Pipelined MCP calls per arm and round.
    #[arg(long, value_name = "N")]
    mcp_pipelined: Option<usize>,
    /// Decisions for the memory workload (spread over 10,000 trajectories; its A2A conversation
    /// churn follows, through a Blindfold capped at 512 live trajectories).
    #[arg(long, value_name = "N")]
    decisions: Option<u64>,
    /// Revocations the scale-out workload times, each issued on one of three Blindfolds sharing a
    /// Redis server until the other two refuse its grant [default: 100, 30 with --quick].
    #[arg(long, value_name = "N")]
    revocations: Option<usize>,
    /// Directory the JSON results are written to.
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/results"))]
    out: PathBuf,
    /// The Blindfold binary measured (default: `blindfold` beside this binary).
    #[arg(long, value_name = "PATH")]
    blindfold: Option<PathBuf>,
    /// Report the bounds but exit 0 when a median misses one.
    #[arg(long)]
    no_gate: bool,
}

impl Args {
    /// The run's sizing: `--quick`'s sizes or the defaults, then any explicit option.
    fn plan(&self) -> Plan {
        let (rounds, secs, mcp_sequential, mcp_pipelined, decisions, revocations) = if self.quick {
            (3, 0.8, 1000, 5000, 100_000, 30)
        } else {
            (5, 2.0, 5000, 20000, 1_000_000, 100)
        };
        Plan {
            rounds: self.rounds.map_or(rounds, |r| r as usize),
            secs: self.secs.unwrap_or(secs),
            mcp_sequential: self.mcp_calls.unwrap_or(mcp_sequential),
            mcp_pipelined: self.mcp_pipelined.unwrap_or(mcp_pipelined),
            decisions: self.decisions.unwrap_or(decisions),
            revocations: self.revocations.unwrap_or(revocations),
            only: self.only.clone(),
            blindfold: self.blindfold.clone().unwrap_or_else(|| blindfold_bench::proc::sibling("blindfold")),
        }
    }
}

fn main() {
    let args = match <Args as clap::Parser>::try_parse() {
        Ok(args) => args,
        Err(e) if e.use_stderr() => {
            let _ = e.print();
            std::process::exit(64)
        }
        Err(e) => e.exit(),
    };
    if args.secs.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
        eprintln!("bench-runner: --secs must be a positive number of seconds");
        std::process::exit(64);
    }
    let plan = args.plan();
    let out = args.out.clone();
    let gate = !args.no_gate;
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
    if plan.wants("scaleout") {
        eprintln!(
            "== scale-out: embedded store and Redis ({} rounds, {} revocations)",
            plan.rounds, plan.revocations
        );
        record("scaleout", scaleout::run(&plan, &dir.path().join("scaleout")));
    }

    let machine = report::machine(load_before, report::loadavg());
    let report = json!({
        "started_unix": started.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "machine": machine,
        "plan": {"rounds": plan.rounds, "secs": plan.secs, "mcp_sequential": plan.mcp_sequential,
                 "mcp_pipelined": plan.mcp_pipelined, "decisions": plan.decisions,
                 "revocations": plan.revocations},
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn plan(args: &[&str]) -> Plan {
        Args::try_parse_from(std::iter::once("bench-runner").chain(args.iter().copied()))
            .expect("arguments parse")
            .plan()
    }

    #[test]
    fn quick_sizes_a_short_run_and_explicit_options_win() {
        let p = plan(&["--quick"]);
        assert_eq!((p.rounds, p.secs, p.mcp_sequential, p.decisions), (3, 0.8, 1000, 100_000));
        let p = plan(&["--quick", "--rounds", "7", "--mcp-calls", "20000", "--secs", "5"]);
        assert_eq!((p.rounds, p.secs, p.mcp_sequential, p.mcp_pipelined), (7, 5.0, 20000, 5000));
        let p = plan(&["--only", "mcp,a2a"]);
        assert_eq!(
            (p.rounds, p.mcp_sequential, p.only.clone()),
            (5, 5000, vec!["mcp".to_owned(), "a2a".to_owned()])
        );
    }

    #[test]
    fn fewer_than_three_rounds_or_an_unknown_workload_is_refused() {
        let parse =
            |a: &[&str]| Args::try_parse_from(std::iter::once("bench-runner").chain(a.iter().copied()));
        assert!(parse(&["--rounds", "2"]).is_err());
        assert!(parse(&["--only", "mcp,disk"]).is_err());
        assert!(parse(&["--rounds", "3"]).is_ok());
    }
}
