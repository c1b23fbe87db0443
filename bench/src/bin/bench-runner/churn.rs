//! Memory under conversation churn: A2A conversations of 100 messages each, one after another at
//! saturation, through a Blindfold whose live trajectories are capped; its RSS once the cap is
//! first reached and after several times as many conversations must stay level.

use crate::Plan;
use crate::memory::mib;
use crate::report::Row;
use blindfold_bench::arms::{Arm, start_http_with};
use blindfold_bench::gate::{Bound, limits};
use blindfold_bench::loadgen::Payload;
use blindfold_bench::wire::A2A_TURNS;
use serde_json::{Value, json};
use std::path::Path;

/// The cap on live trajectories of this run (`[limits] max_trajectories`).
const MAX_TRAJECTORIES: usize = 512;
/// Loads at saturation after the cap is full (512 conversations are 51,200 messages: one load of
/// a few seconds on a fast host, two or three on a slow one); each replaces the live
/// conversations several times over.
const LOADS_PAST_CAP: usize = 4;
/// Loads allowed for filling the cap before the run is called failed.
const MAX_FILL_LOADS: usize = 20;

/// Runs the churn; its rows, JSON section and bound.
pub fn run(plan: &Plan, dir: &Path) -> Result<(Vec<Row>, Value, Bound), String> {
    let limits = format!("[limits]\nmax_trajectories = {MAX_TRAJECTORIES}\n");
    let topo = start_http_with(dir, &plan.blindfold, &limits)?;
    let pid = topo.blindfold_pid();
    let secs = plan.secs.max(1.0);
    let mut sent = 0u64;
    let mut points = Vec::new();
    // The baseline is the first point past the cap: growth before it is the cap filling up.
    let mut baseline = None;
    let mut fill_loads = 0;
    loop {
        match baseline {
            Some(b) if points.len() > b + LOADS_PAST_CAP => break,
            Some(_) => {}
            None if fill_loads == MAX_FILL_LOADS => {
                return Err(format!(
                    "A2A churn: {sent} messages after {fill_loads} loads did not fill the cap"
                ));
            }
            None => {}
        }
        let r = topo.load(Arm::Blindfold, Payload::A2aSend, 0.0, 32, secs)?;
        if r.errors > 0 {
            return Err(format!("A2A churn: {} errors, first {:?}", r.errors, r.first_error));
        }
        sent += r.ok;
        let m = mib(pid)?;
        eprintln!("  A2A churn: after {sent} messages ({} conversations) {m:.1} MiB", sent / A2A_TURNS);
        points.push((sent, m));
        if baseline.is_none() {
            fill_loads += 1;
            if sent >= MAX_TRAJECTORIES as u64 * A2A_TURNS {
                baseline = Some(points.len() - 1);
            }
        }
    }
    let (first_n, first) = points[baseline.expect("the loop ends only past the baseline")];
    let (last_n, last) = points[points.len() - 1];
    let growth = last - first;
    let rows = vec![
        Row::single(
            "memory (Blindfold RSS)",
            &format!("A2A churn, cap {MAX_TRAJECTORIES}: after {first_n} messages (MiB)"),
            first,
        ),
        Row::single("memory (Blindfold RSS)", &format!("A2A churn: after {last_n} messages (MiB)"), last)
            .note(format!(
                "growth {growth:+.1} MiB over {} more conversations",
                (last_n - first_n) / A2A_TURNS
            )),
    ];
    let json = json!({
        "max_trajectories": MAX_TRAJECTORIES, "messages_per_conversation": A2A_TURNS,
        "points": points.iter().map(|(n, m)| json!({"messages": n, "rss_mib": m})).collect::<Vec<_>>(),
        "baseline_point": baseline, "growth_after_cap_filled_mib": growth,
    });
    let bound = Bound::at_most(
        "RSS growth under A2A churn past the trajectory cap",
        growth,
        limits::A2A_CHURN_GROWTH_MIB,
        "MiB",
    );
    Ok((rows, json, bound))
}
