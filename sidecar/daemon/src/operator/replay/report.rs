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
        "{:<10} {:>9} {:>7} {:>7} {:>7} {:>12} {:>15} {:>7} {:>11} {:>14} {:>11}\n",
        "mode",
        "scenarios",
        "attacks",
        "benign",
        "ASR",
        "legit-reject",
        "task-completion",
        "CAR",
        "execute-CAR",
        "identity-leaks",
        "review-rate"
    );
    for (mode, s) in scores {
        out.push_str(&format!(
            "{:<10} {:>9} {:>7} {:>7} {:>7} {:>12} {:>15} {:>7} {:>11} {:>14} {:>11}\n",
            mode,
            s.scenarios,
            s.attacks,
            s.benign,
            pct(s.asr),
            pct(s.legit_reject),
            pct(s.task_completion),
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

/// One line per labelled or decided step of every scenario, one column per mode: what Blindfold
/// did with it (`allow`, `deny:<reason>`, `review:<reason>`, `observed` for a decision not enforced).
pub fn steps_table(modes: &[String], scenarios: &[(PathBuf, Scenario)], runs: &[Vec<ModeRun>]) -> String {
    let mut out = String::new();
    for ((_, s), runs) in scenarios.iter().zip(runs) {
        let family = serde_json::to_value(s.family).unwrap_or_default();
        out.push_str(&format!("\n{} ({})\n", s.id, family.as_str().unwrap_or("?")));
        out.push_str(&format!("  {:<4} {:<8} {:<44}", "step", "label", "action"));
        for m in modes {
            out.push_str(&format!(" {m:<26}"));
        }
        out.push('\n');
        for (i, step) in s.steps.iter().enumerate() {
            let decided = runs.iter().any(|r| r.steps[i].decision.is_some());
            if step.label.is_none() && !decided {
                continue;
            }
            let label = step.label.map_or("-", |l| match l {
                blindfold_schemas::Label::Attack => "attack",
                blindfold_schemas::Label::Benign => "benign",
            });
            let action: String = describe(step).chars().take(44).collect();
            out.push_str(&format!("  {i:<4} {label:<8} {action:<44}"));
            for r in runs {
                let o = &r.steps[i];
                let cell = match (&o.decision, &o.reason) {
                    (None, _) => "no decision (runs)".to_owned(),
                    (Some(v), Some(reason)) if *v != blindfold_schemas::Verdict::Allow => {
                        let verdict = serde_json::to_value(v).unwrap_or_default();
                        let observed = if o.enforced { "" } else { " (observed, runs)" };
                        format!("{}:{reason}{observed}", verdict.as_str().unwrap_or("?"))
                    }
                    _ => "allow".to_owned(),
                };
                out.push_str(&format!(" {cell:<26}"));
            }
            out.push('\n');
        }
    }
    out
}

fn describe(step: &blindfold_schemas::ScenarioStep) -> String {
    match &step.body {
        blindfold_schemas::StepBody::Event(e) => describe_event(e),
        blindfold_schemas::StepBody::Operator(blindfold_schemas::OperatorStep::RevokeEvidence {
            step,
            ..
        }) => {
            format!("operator: revoke evidence of step {step}")
        }
    }
}

fn describe_event(event: &blindfold_schemas::Event) -> String {
    use blindfold_schemas::Event;
    match event {
        Event::ToolCall { actor, tool, args, .. } => {
            let main = ["command", "path", "url", "to", "target", "remote"].iter().find_map(|k| args.get(*k));
            let first = main.or_else(|| args.values().next());
            let shown = first.map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned));
            format!("{actor}: {tool} {}", shown.unwrap_or_default())
        }
        Event::MemoryWrite { actor, store, .. } => format!("{actor}: write {store}"),
        Event::MemoryRead { actor, store, query } => format!("{actor}: read {store} ({query})"),
        other => other.kind().to_owned(),
    }
}
