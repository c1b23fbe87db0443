//! Replay output: a side-by-side table per mode, or one JSON object.

use super::runner::ModeRun;
use super::score::ModeScore;
use blindfold_schemas::Scenario;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

fn pct(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

fn opt_pct(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), pct)
}

/// The per-mode table: one row per mode, columns as in the JSON report.
pub fn table(scores: &[(String, ModeScore)]) -> String {
    let mut out = format!(
        "{:<10} {:>9} {:>7} {:>7} {:>7} {:>12} {:>7} {:>11} {:>14} {:>11}\n",
        "mode",
        "scenarios",
        "attacks",
        "benign",
        "ASR",
        "legit-reject",
        "CAR",
        "execute-CAR",
        "identity-leaks",
        "review-rate"
    );
    for (mode, s) in scores {
        out.push_str(&format!(
            "{:<10} {:>9} {:>7} {:>7} {:>7} {:>12} {:>7} {:>11} {:>14} {:>11}\n",
            mode,
            s.scenarios,
            s.attacks,
            s.benign,
            pct(s.asr),
            pct(s.legit_reject),
            opt_pct(s.car),
            opt_pct(s.execute_car),
            s.identity_leaks,
            pct(s.review_rate)
        ));
    }
    out
}

/// The JSON report: `{"modes": {mode: score}, "scenarios": [{id, file, family, task_id, modes:
/// {mode: run}}]}`.
pub fn json_report(
    scores: &[(String, ModeScore)],
    scenarios: &[(PathBuf, Scenario)],
    runs: &[Vec<ModeRun>],
) -> Value {
    let mut modes = Map::new();
    for (mode, s) in scores {
        modes.insert(mode.clone(), serde_json::to_value(s).unwrap_or_default());
    }
    let per_scenario: Vec<Value> = scenarios
        .iter()
        .zip(runs)
        .map(|((file, s), runs)| {
            let by_mode: Map<String, Value> = scores
                .iter()
                .zip(runs)
                .map(|((mode, _), run)| (mode.clone(), serde_json::to_value(run).unwrap_or_default()))
                .collect();
            json!({
                "id": s.id,
                "file": file.display().to_string(),
                "family": s.family,
                "task_id": s.task_id(),
                "modes": by_mode,
            })
        })
        .collect();
    json!({ "modes": modes, "scenarios": per_scenario })
}
