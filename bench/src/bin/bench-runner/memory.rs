//! Memory: Blindfold's RSS idle, with 1,000 open control connections, along a run of decisions
//! spread over 10,000 trajectories (state must stay bounded by its windows), and under A2A
//! conversation churn (`churn`).

use crate::Plan;
use crate::report::Row;
use crate::workloads::Outcome;
use blindfold_bench::control;
use blindfold_bench::gate::{Bound, limits};
use blindfold_bench::proc::{Guard, blindfold_config, free_port, rss_kib, wait_port};
use serde_json::json;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Open connections of the connection checkpoint.
const CONNECTIONS: usize = 1000;
/// Trajectories the decisions are spread over.
const TRAJECTORIES: u64 = 10_000;

/// Blindfold's RSS in MiB, read once a moment of quiet has let it settle.
pub(crate) fn mib(pid: u32) -> Result<f64, String> {
    std::thread::sleep(Duration::from_millis(300));
    rss_kib(pid).map(|k| k as f64 / 1024.0).ok_or_else(|| "Blindfold exited".to_owned())
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// Runs the memory workload on a fresh `blindfold run`.
pub fn run(plan: &Plan, dir: &Path) -> Result<Outcome, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let port = free_port();
    // 1,000 sockets at once: above the default `[limits] max_connections` (512 per listener).
    let config = blindfold_config(dir, port, "[limits]\nmax_connections = 4096\n");
    let bf = Guard::spawn(
        Command::new(&plan.blindfold)
            .arg("run")
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )
    .map_err(|e| format!("blindfold run: {e}"))?;
    if !wait_port(port, Duration::from_secs(30)) {
        return Err("blindfold did not listen".into());
    }
    let pid = bf.pid();
    let idle = mib(pid)?;
    eprintln!("  idle {idle:.1} MiB");
    let token = control::adapter_token(&dir.join("state"))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let socks = rt.block_on(control::hold_open(port, &token, CONNECTIONS))?;
    let with_conns = mib(pid)?;
    eprintln!("  with {CONNECTIONS} open connections {with_conns:.1} MiB");
    drop(socks);
    let total = plan.decisions;
    let marks = [total / 10, total / 4, total / 2, total];
    let mut done = 0u64;
    let mut points = Vec::new();
    for mark in marks {
        let rate =
            rt.block_on(control::pipelined_checks(port, &token, 8, 32, done, mark - done, TRAJECTORIES))?;
        done = mark;
        let m = mib(pid)?;
        eprintln!("  after {done} decisions ({rate:.0}/s) {m:.1} MiB");
        points.push((done, m, rate));
    }
    let first = points.first().map_or(f64::NAN, |p| p.1);
    let last = points.last().map_or(f64::NAN, |p| p.1);
    let growth = last - first;
    let trace_bytes = dir_bytes(&dir.join("state").join("traces"));
    drop(bf);
    eprintln!("  A2A conversations, one after another, {} s per load", plan.secs.max(1.0));
    let (churn_rows, churn, churn_bound) = crate::churn::run(plan, &dir.join("churn"))?;
    let mut rows = vec![
        Row::single("memory (Blindfold RSS)", "idle (MiB)", idle),
        Row::single("memory (Blindfold RSS)", "1,000 open control sockets (MiB)", with_conns),
        Row::single(
            "memory (Blindfold RSS)",
            &format!("after {} decisions / 10k trajectories (MiB)", marks[0]),
            first,
        ),
        Row::single(
            "memory (Blindfold RSS)",
            &format!("after {total} decisions / 10k trajectories (MiB)"),
            last,
        )
        .note(format!("growth {growth:+.1} MiB; trace on disk {:.0} MiB", trace_bytes as f64 / 1048576.0)),
    ];
    rows.extend(churn_rows);
    let json = json!({
        "idle_mib": idle, "connections": CONNECTIONS, "with_connections_mib": with_conns,
        "trajectories": TRAJECTORIES,
        "decisions": points.iter().map(|(n, m, r)| json!({"decisions": n, "rss_mib": m, "rate_per_s": r})).collect::<Vec<_>>(),
        "growth_after_first_checkpoint_mib": growth, "trace_bytes": trace_bytes,
        "a2a_churn": churn,
    });
    let bounds = vec![
        Bound::at_most("RSS with 1,000 open connections", with_conns, limits::RSS_CONNECTIONS_MIB, "MiB"),
        Bound::at_most("RSS growth after the first 10% of decisions", growth, limits::RSS_GROWTH_MIB, "MiB"),
        churn_bound,
    ];
    Ok(Outcome { json, bounds, rows })
}
