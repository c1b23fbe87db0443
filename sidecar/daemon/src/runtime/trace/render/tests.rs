//! The picture names who refuted a proposal: the agent whose answer the contradicting evidence
//! is, by the alias the coordinator saw (its true model only in the legend's alias line), and
//! Blindfold's evidence checks only where the records name no agent.

use super::{flow, to_dot, to_svg};
use blindfold_schemas::{
    AgentIdentity, Effect, Intent, Layer, ModeSet, Reason, TraceKind, TraceRecord, Verdict,
};

fn identity(model: &str) -> AgentIdentity {
    AgentIdentity {
        model: model.into(),
        family: String::new(),
        tier: String::new(),
        ..AgentIdentity::default()
    }
}

/// Scout (agent-a) is asked, critic (agent-b) answers with a refusal in prose (no stated
/// relation), and the coordinator runs the refuted command itself: held by the contradiction,
/// naming `refuted_by` on the call record.
fn records(refuted_by: &[&str]) -> Vec<TraceRecord> {
    let t = "t-render";
    let mut out = Vec::new();
    let mut push = |kind: TraceKind, f: &dyn Fn(&mut TraceRecord)| {
        let mut r = TraceRecord::new(t, kind, 1, ModeSet::ALL);
        r.seq = out.len() as u64;
        f(&mut r);
        out.push(r);
    };
    push(TraceKind::Delegate, &|r| {
        r.actor_alias = Some("agent-a".into());
        r.actor_true = Some(identity("gpt-5-mini"));
        r.intent = Some(Intent::Scope);
    });
    push(TraceKind::Response, &|r| {
        r.actor_alias = Some("agent-b".into());
        r.actor_true = Some(identity("claude-opus-4"));
    });
    push(TraceKind::ToolCall, &|r| {
        r.actor_alias = Some("coordinator".into());
        r.tool = Some("bash".into());
        r.target = Some("rm -rf data".into());
        r.effect = Some(Effect::Mutate);
        r.action_fingerprint = Some("f00d".repeat(16));
        r.decision = Some(Verdict::Review);
        r.reason = Some(Reason::Contradicted);
        r.check = Some("P3.contradiction".into());
        r.layer = Some(Layer::ContentDependent);
        r.enforced = Some(true);
        r.refuted_by = refuted_by.iter().map(|s| (*s).to_owned()).collect();
    });
    out
}

/// The text of every `<text>` element of `svg`.
fn texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>')?.1.split_once("</text>"))
        .map(|(t, _)| t)
        .collect()
}

#[test]
fn a_refutation_from_an_agent_answer_names_that_agent_by_its_alias() {
    let f = flow(&records(&["agent-b"]), "t-render", None).expect("flow");
    assert_eq!(f.report.proposals.len(), 1, "{:?}", f.report.proposals);
    assert_eq!(f.report.proposals[0].refuted_by, ["agent-b"]);
    let svg = to_svg(&f);
    let lines = texts(&svg);
    let fate = lines.iter().find(|l| l.starts_with("proposal ")).expect("the proposal's fate");
    assert!(fate.contains("refuted by agent-b"), "{fate}");
    assert!(
        !svg.contains("Blindfold&#39;s evidence checks") && !svg.contains("Blindfold's evidence checks"),
        "{svg}"
    );
    let row = lines.iter().find(|l| l.contains("BLOCKED")).expect("the blocked row");
    assert!(row.contains("refuted by agent-b"), "{row}");
    // The true models appear in the legend's alias lines only, never in a row.
    for l in lines.iter().filter(|l| l.contains("claude-opus-4") || l.contains("gpt-5-mini")) {
        assert!(
            l.starts_with("agent-a → ") || l.starts_with("agent-b → "),
            "a true model outside the legend: {l}"
        );
    }
    assert!(lines.iter().any(|l| l.starts_with("agent-b → claude-opus-4")), "{lines:?}");
    assert!(to_dot(&f).contains("refuted by agent-b"));
}

#[test]
fn only_a_call_naming_no_agent_is_refuted_by_blindfolds_evidence_checks() {
    let f = flow(&records(&[]), "t-render", None).expect("flow");
    assert_eq!(f.report.proposals[0].refuted_by, ["engine"]);
    let svg = to_svg(&f);
    let lines = texts(&svg);
    let fate = lines.iter().find(|l| l.starts_with("proposal ")).expect("the proposal's fate");
    assert!(fate.contains("refuted by Blindfold"), "{fate}");
    assert!(!svg.contains("refuted by agent-b"), "no agent is named without a record naming it");
}
