//! The registry shows every known series before any traffic, and a decision moves exactly the
//! series it should.

use super::labels::Transport;
use super::{Levels, Metrics};
use blindfold_engine::Step;
use blindfold_schemas::{CheckId, Decision, ModeSet, Reason};

fn value(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn every_series_is_there_at_zero_before_any_traffic() {
    let text = Metrics::new().encode(false).expect("encoded");
    for series in [
        r#"blindfold_decisions_total{transport="a2a",mode="all",verdict="deny"}"#,
        r#"blindfold_decisions_total{transport="control",mode="off",verdict="allow"}"#,
        r#"blindfold_decision_checks_total{check="P3.contradiction",verdict="review"}"#,
        r#"blindfold_decision_checks_total{check="P5.acl",verdict="deny"}"#,
        r#"blindfold_decision_reasons_total{reason="no_grant",verdict="deny"}"#,
        r#"blindfold_grants_refused_total{reason="replayed_grant"}"#,
        r#"blindfold_reviews_total{outcome="approved"}"#,
        r#"blindfold_upstream_errors_total{transport="mcp_http"}"#,
        r#"blindfold_decision_latency_seconds_count{transport="ws_relay"}"#,
        "blindfold_grants_consumed_total",
        "blindfold_reviews_pending",
        "blindfold_trace_write_failures_total",
        "blindfold_identity_rewrites_total",
    ] {
        assert_eq!(value(&text, series), Some(0.0), "{series} missing or not zero in\n{text}");
    }
    assert!(!text.contains("grants_refused_total{reason=\"contradicted\"}"), "not a grant reason");
    assert!(text.lines().all(|l| l.is_empty() || l.starts_with('#') || l.starts_with("blindfold_")));
}

#[test]
fn a_decision_counts_once_per_view_and_a_consumed_grant_once() {
    let m = Metrics::new();
    let deny = Step {
        decision: Some(Decision::deny(Reason::ReplayedGrant, CheckId::ExecutedMatches)),
        enforced: true,
        ..Step::default()
    };
    m.decided(Transport::A2a, ModeSet::ALL, true, &deny, 40);
    let custom = ModeSet { attest: true, ..ModeSet::OFF };
    let allow = Step { decision: Some(Decision::allow(CheckId::Daemon)), ..Step::default() };
    m.decided(Transport::Control, custom, false, &allow, 10);
    m.decided(Transport::Control, custom, false, &Step::default(), 10);
    m.refresh(&Levels { reviews_pending: 3, oldest_review_age_s: 12.5, ..Levels::default() });
    let text = m.encode(false).expect("encoded");
    let v = |s: &str| value(&text, s).unwrap_or_else(|| panic!("{s} missing in\n{text}"));
    assert_eq!(v(r#"blindfold_decisions_total{transport="a2a",mode="all",verdict="deny"}"#), 1.0);
    assert_eq!(
        v(r#"blindfold_decisions_total{transport="control",mode="attest+observe",verdict="allow"}"#),
        1.0
    );
    assert_eq!(v(r#"blindfold_decision_checks_total{check="P3.executed_matches",verdict="deny"}"#), 1.0);
    assert_eq!(v(r#"blindfold_decision_checks_total{check="P0.daemon",verdict="allow"}"#), 1.0);
    assert_eq!(v(r#"blindfold_decision_reasons_total{reason="replayed_grant",verdict="deny"}"#), 1.0);
    assert_eq!(v(r#"blindfold_grants_refused_total{reason="replayed_grant"}"#), 1.0);
    assert_eq!(
        v("blindfold_grants_consumed_total"),
        0.0,
        "an allow without an effectful action consumes nothing"
    );
    assert_eq!(v(r#"blindfold_decision_latency_seconds_count{transport="a2a"}"#), 1.0);
    assert_eq!(v("blindfold_reviews_pending"), 3.0);
    assert_eq!(v("blindfold_review_oldest_pending_age_seconds"), 12.5);
    let open = m.encode(true).expect("openmetrics");
    assert!(open.ends_with("# EOF\n"), "{open}");
}

#[test]
fn the_grafana_dashboard_queries_only_registered_series() {
    let dashboard: serde_json::Value =
        serde_json::from_str(include_str!("../../../../../examples/grafana/blindfold.json"))
            .expect("dashboard json");
    let metrics = Metrics::new();
    metrics.listener("main", Box::new(|| 0));
    let text = metrics.encode(false).expect("encoded");
    let name = regex::Regex::new(r"blindfold_[a-z_]+").expect("regex");
    let mut queried = 0;
    for panel in dashboard["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().expect("targets") {
            let expr = target["expr"].as_str().expect("expr");
            for m in name.find_iter(expr) {
                queried += 1;
                let series = m.as_str();
                let declared = format!("# TYPE {series}");
                assert!(
                    text.lines().any(|l| l.starts_with(series) || l.starts_with(&declared)),
                    "{} queries {series}, which the daemon does not register",
                    panel["title"]
                );
            }
        }
    }
    assert!(queried >= 15, "{queried} series queried");
}
