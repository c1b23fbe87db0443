//! The evidence metrics in the replay's text output: one row per mode, then one line per
//! scenario and mode where a metric applies (`null` shown as `n/a`).

use super::evidence_metrics::EvidenceRates;
use super::runner::ModeRun;
use super::score::ModeScore;
use blindfold_schemas::Scenario;
use std::path::PathBuf;

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

/// The columns: header and value, in the order the issue lists the metrics.
fn cells(e: &EvidenceRates) -> [(&'static str, String); 10] {
    let t = &e.trace;
    let delay = t.revocation_propagation_delay.as_ref().map_or_else(
        || "n/a".to_owned(),
        |d| match (d.steps, d.seconds) {
            (Some(steps), Some(s)) if d.unrevalidated == 0 => format!("{steps}st/{s:.0}s"),
            (Some(steps), Some(s)) => format!("{steps}st/{s:.0}s+{}", d.unrevalidated),
            _ => format!("never({})", d.unrevalidated),
        },
    );
    [
        ("provenance", pct(e.provenance_completeness)),
        ("conflict-det", pct(e.conflict_detection_rate)),
        ("indep-corrob", pct(t.independent_corroboration_rate)),
        ("false-consensus", pct(t.false_consensus_rate)),
        ("error-prop", pct(t.error_propagation_rate)),
        ("injection-prop", pct(t.injection_propagation_rate)),
        ("revoke-delay", delay),
        ("stale-use", pct(t.stale_evidence_use_rate)),
        ("unauth-retrieval", pct(t.unauthorized_retrieval_rate)),
        ("support-acc", pct(e.support_accuracy)),
    ]
}

fn row(out: &mut String, name: &str, e: &EvidenceRates) {
    out.push_str(&format!("{name:<10}"));
    for (head, value) in cells(e) {
        out.push_str(&format!(" {value:>width$}", width = head.len()));
    }
    out.push('\n');
}

fn header(out: &mut String, first: &str) {
    out.push_str(&format!("{first:<10}"));
    for (head, _) in cells(&EvidenceRates::default()) {
        out.push_str(&format!(" {head}"));
    }
    out.push('\n');
}

/// The per-mode evidence table (`revoke-delay`: longest steps / seconds from a revocation to a
/// dependent claim re-evaluated, `+n` claims never re-evaluated).
pub fn evidence_table(scores: &[(String, ModeScore)]) -> String {
    let mut out = String::from("evidence metrics (docs/metrics-evidence.md)\n");
    header(&mut out, "mode");
    for (mode, s) in scores {
        row(&mut out, mode, &s.evidence);
    }
    out
}

/// True when any metric of the run has something to count.
fn applies(e: &EvidenceRates) -> bool {
    let c = &e.counts;
    c.graph.provenance_claims + c.graph.conflicts + c.graph.support_judged > 0
        || c.trace.consensus
            + c.trace.error_affectable
            + c.trace.injection_affectable
            + c.trace.stale_uses
            + c.trace.unauthorized_attempts
            + c.trace.revocations
            > 0
}

/// One block per scenario where a metric applies, one row per mode.
pub fn evidence_by_scenario(
    modes: &[String],
    scenarios: &[(PathBuf, Scenario)],
    runs: &[Vec<ModeRun>],
) -> String {
    let mut out = String::new();
    for ((_, s), runs) in scenarios.iter().zip(runs) {
        if !runs.iter().any(|r| applies(&r.evidence)) {
            continue;
        }
        out.push_str(&format!("\n{}\n", s.id));
        header(&mut out, "  mode");
        for (mode, run) in modes.iter().zip(runs) {
            row(&mut out, &format!("  {mode}"), &run.evidence);
        }
    }
    out
}
