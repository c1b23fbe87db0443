//! `blindfold replay PATH…`: run scenario files through the engine once per mode and score them.

use crate::operator::replay::{
    MODES, ModeRun, SignedGrants, evidence_by_scenario, evidence_table, json_report, load_paths,
    run_scenario, run_via_proxy, score_mode, steps_table, table, write_trace,
};
use blindfold_engine::grants::IssuerKey;
use blindfold_schemas::ModeSet;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Scenario files, or folders searched recursively for `*.json`.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Modes to run, comma-separated: off, anonymize, attest, preverify, all.
    #[arg(long, value_delimiter = ',', default_value = "off,anonymize,attest,preverify,all")]
    pub modes: Vec<String>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also print every labelled or decided step with what each mode did to it.
    #[arg(long)]
    pub steps: bool,
    /// Also print the evidence metrics of every scenario where one applies, per mode
    /// (definitions: docs/metrics-evidence.md).
    #[arg(long)]
    pub evidence: bool,
    /// Replay through a real Blindfold on loopback (its A2A and MCP proxies in front of scripted
    /// peers).
    ///
    /// Cards, `scope` delegations and tool calls go over the wire and are scored from what comes
    /// back (JSON-RPC error, rejected task, `isError` result; identity leaks counted in the
    /// received bytes). What the wire cannot carry today runs in-process against the same daemon
    /// state, marked `"via": "in_process"`: the task input, `verify`/`execute` delegations and
    /// delegations naming a proposal (the A2A proxy records every delegation as `scope`), memory
    /// writes and reads, and the engine facts of cards, responses and tool results. The daemon
    /// reads its own clock: step times (`at`) are not replayed. `revoke_evidence` steps go
    /// through the daemon's own control method. The evidence metrics are measured from an
    /// in-process run's records and are `null` here. Not with --trace-out.
    #[arg(long)]
    pub via_proxy: bool,
    /// Write the authority trace of the run to FILE.
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
}

/// Runs `replay`: exit 0 after scoring, 2 when a scenario is malformed or an option is bad.
pub fn run(args: ReplayArgs) -> ExitCode {
    let mut modes = Vec::new();
    for name in &args.modes {
        match ModeSet::named(name) {
            Some(set) => modes.push((name.clone(), set)),
            None => {
                return super::usage_error(format!("unknown mode {name:?} (known: {})", MODES.join(", ")));
            }
        }
    }
    if args.via_proxy && args.trace_out.is_some() {
        return super::usage_error("--trace-out is not available with --via-proxy");
    }
    let scenarios = match load_paths(&args.paths) {
        Ok(s) => s,
        Err(e) => return super::usage_error(format!("malformed scenario: {e}")),
    };
    // One ephemeral trusted issuer for the whole run: it exists only in this process.
    let key = IssuerKey::generate();
    let runtime = match args.via_proxy.then(tokio::runtime::Runtime::new).transpose() {
        Ok(rt) => rt,
        Err(e) => return super::usage_error(format!("cannot start runtime: {e}")),
    };
    let mut runs: Vec<Vec<ModeRun>> = Vec::with_capacity(scenarios.len());
    for (file, scenario) in &scenarios {
        let grants = match SignedGrants::issue(scenario, &key) {
            Ok(g) => g,
            Err(e) => return super::usage_error(format!("malformed scenario: {}: {e}", file.display())),
        };
        let mut per_mode = Vec::with_capacity(modes.len());
        for (_, set) in &modes {
            let run = match &runtime {
                Some(rt) => rt.block_on(run_via_proxy(scenario, &key, *set)).map_err(|e| {
                    eprintln!("blindfold: {}: via proxy: {e}", file.display());
                    ExitCode::from(1)
                }),
                None => run_scenario(scenario, &key, &grants, *set, args.trace_out.is_some())
                    .map_err(|e| super::usage_error(format!("malformed scenario: {}: {e}", file.display()))),
            };
            match run {
                Ok(run) => per_mode.push(run),
                Err(code) => return code,
            }
        }
        runs.push(per_mode);
    }
    let scores: Vec<_> = modes
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.clone(), score_mode(runs.iter().map(|r| &r[i]))))
        .collect();
    if let Some(out) = &args.trace_out {
        let mut records: Vec<_> =
            runs.iter_mut().flat_map(|r| r.iter_mut().flat_map(|m| m.records.drain(..))).collect();
        if let Err(e) = write_trace(out, &mut records) {
            eprintln!("blindfold: cannot write the trace to {}: {e}", out.display());
            return ExitCode::from(1);
        }
    }
    let wire = args.via_proxy.then(|| wire_counts(&runs));
    if args.json {
        let mut report = json_report(&scores, &scenarios, &runs);
        if let Some((wire, in_process)) = wire {
            report["via_proxy"] = serde_json::json!({"wire_steps": wire, "in_process_steps": in_process});
        }
        println!("{report}");
    } else {
        if args.steps {
            let names: Vec<String> = modes.iter().map(|(n, _)| n.clone()).collect();
            print!("{}", steps_table(&names, &scenarios, &runs));
            println!();
        }
        print!("{}", table(&scores));
        println!();
        print!("{}", evidence_table(&scores));
        if args.evidence {
            let names: Vec<String> = modes.iter().map(|(n, _)| n.clone()).collect();
            print!("{}", evidence_by_scenario(&names, &scenarios, &runs));
        }
        if let Some((wire, in_process)) = wire {
            println!(
                "via proxy: {wire} steps went over A2A/MCP on loopback, {in_process} ran in-process \
                 (not expressible over the wire today; see --help)"
            );
        }
    }
    ExitCode::SUCCESS
}

/// Steps that went over the wire and steps that ran in-process, over every run.
fn wire_counts(runs: &[Vec<ModeRun>]) -> (usize, usize) {
    let all = runs.iter().flatten().flat_map(|r| &r.steps);
    let (wire, local): (Vec<_>, Vec<_>) = all.partition(|s| s.via.is_some_and(|v| v != "in_process"));
    (wire.len(), local.len())
}
