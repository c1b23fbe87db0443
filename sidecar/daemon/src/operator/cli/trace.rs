//! `blindfold trace verify|summarize|render`: check, measure and draw authority traces.

use crate::runtime::trace::{read_records, render, summary, verify};
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// `blindfold trace …`.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Check the hash chain of trace files (in chain order; a directory means its files).
    ///
    /// Exit 0 when every record parses and the chain is unbroken (and reaches a directory's stored
    /// head), 1 naming the first bad record or the truncation.
    Verify(VerifyArgs),
    /// Per mode and overall: trajectories, decisions, CAR and execute-CAR, attack success and
    /// legitimate rejection (where labelled), first blocker by layer, review rate, latency.
    Summarize(SummarizeArgs),
    /// Draw the authority flow of one trajectory (DOT, Mermaid, or a standalone SVG).
    Render(RenderArgs),
}

/// Arguments of `trace verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Trace files or directories, oldest first.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `trace summarize`.
#[derive(Debug, Args)]
pub struct SummarizeArgs {
    /// Trace files or directories.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// One JSON object (`trajectories`, `effectful`, `allowed`, `denied`, `reviewed`, `car`,
    /// `execute_car`, …, `by_mode`).
    #[arg(long)]
    pub json: bool,
}

/// Picture formats.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// Graphviz DOT.
    Dot,
    /// Mermaid sequence diagram.
    Mermaid,
    /// Standalone SVG (no external tools).
    Svg,
}

/// Arguments of `trace render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Trace file or directory.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Trajectory id (without it, the trajectories in the file are listed).
    #[arg(long, value_name = "ID")]
    pub trajectory: Option<String>,
    /// Mode the trajectory ran under, when the file holds several (`all`, `off`, …).
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "svg")]
    pub format: Format,
    /// Write to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// Runs a `trace` subcommand.
pub fn run(cmd: TraceCommand) -> ExitCode {
    match cmd {
        TraceCommand::Verify(a) => run_verify(&a),
        TraceCommand::Summarize(a) => run_summarize(&a),
        TraceCommand::Render(a) => run_render(a),
    }
}

fn run_verify(a: &VerifyArgs) -> ExitCode {
    match verify(&a.files) {
        Ok(report) => {
            for warning in &report.warnings {
                eprintln!("blindfold: warning: {warning}");
            }
            if a.json {
                println!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else {
                let range = match (report.first_seq, report.last_seq) {
                    (Some(f), Some(l)) => format!("seq {f}..={l}"),
                    _ => "no records".to_owned(),
                };
                let start = if report.from_genesis { "from the start" } else { "continuing an earlier file" };
                println!(
                    "ok: {} records in {} files, {range}, chain unbroken ({start})",
                    report.records, report.files
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("blindfold: trace verify failed: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_summarize(a: &SummarizeArgs) -> ExitCode {
    let records = match read_records(&a.files) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let s = summary::summarize(&records);
    if a.json {
        match serde_json::to_string_pretty(&s) {
            Ok(text) => println!("{text}"),
            Err(e) => return super::usage_error(e),
        }
    } else {
        print!("{}", summary::to_text(&s));
    }
    ExitCode::SUCCESS
}

fn run_render(a: RenderArgs) -> ExitCode {
    let records = match read_records(std::slice::from_ref(&a.file)) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let Some(trajectory) = a.trajectory else {
        for (t, mode) in render::trajectories(&records) {
            println!("{t}\t{mode}");
        }
        return ExitCode::SUCCESS;
    };
    let Some(flow) = render::flow(&records, &trajectory, a.mode.as_deref()) else {
        return super::usage_error(format!("no trajectory {trajectory:?} in {}", a.file.display()));
    };
    let text = match a.format {
        Format::Dot => render::to_dot(&flow),
        Format::Mermaid => render::to_mermaid(&flow),
        Format::Svg => render::to_svg(&flow),
    };
    match a.output {
        Some(path) => match std::fs::write(&path, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => super::usage_error(format!("{}: {e}", path.display())),
        },
        None => {
            print!("{text}");
            ExitCode::SUCCESS
        }
    }
}
