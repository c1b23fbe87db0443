//! `blindfold replay PATH…`: run scenario files through the engine once per mode and score them.

use crate::replay::{
    MODES, ModeRun, SignedGrants, json_report, load_paths, run_scenario, score_mode, steps_table, table,
    write_trace,
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
    /// Replay through a real Blindfold over A2A/MCP on loopback (not available yet).
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
    if args.via_proxy {
        return super::usage_error("--via-proxy is not implemented yet; replay runs in-process");
    }
    let scenarios = match load_paths(&args.paths) {
        Ok(s) => s,
        Err(e) => return super::usage_error(format!("malformed scenario: {e}")),
    };
    // One ephemeral trusted issuer for the whole run: it exists only in this process.
    let key = IssuerKey::generate();
    let mut runs: Vec<Vec<ModeRun>> = Vec::with_capacity(scenarios.len());
    for (file, scenario) in &scenarios {
        let grants = match SignedGrants::issue(scenario, &key) {
            Ok(g) => g,
            Err(e) => return super::usage_error(format!("malformed scenario: {}: {e}", file.display())),
        };
        let mut per_mode = Vec::with_capacity(modes.len());
        for (_, set) in &modes {
            match run_scenario(scenario, &key, &grants, *set, args.trace_out.is_some()) {
                Ok(run) => per_mode.push(run),
                Err(e) => return super::usage_error(format!("malformed scenario: {}: {e}", file.display())),
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
    if args.json {
        println!("{}", json_report(&scores, &scenarios, &runs));
    } else {
        if args.steps {
            let names: Vec<String> = modes.iter().map(|(n, _)| n.clone()).collect();
            print!("{}", steps_table(&names, &scenarios, &runs));
            println!();
        }
        print!("{}", table(&scores));
    }
    ExitCode::SUCCESS
}
