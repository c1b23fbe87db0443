//! The held-out verifier answers (`examples/corpus/verify-answers/`, written without reading the
//! language packs) replayed through the engine: a sub-agent proposes the action, the
//! coordinator asks a verifier of another family to verify it, the verifier's messages come
//! back on the delegation's channel (in `with-verdict.jsonl` ending with a verdict line for the
//! handle Blindfold issued), and the coordinator runs the granted action.
//!
//! What must hold on every answer (asserted): nothing runs without an approving verdict line
//! for its handle — no prose-only answer, no `refuse` or `unsure` verdict. What is measured
//! (printed per language and kind, reported in `docs/verification.md`, never tuned against):
//! refutations caught as disputes (with a verdict line, also prose that refutes beside an
//! approving one), plain approvals disputed (false alarms), approvals with a verdict that run.
//!
//! `cargo test -p blindfold-engine --test held_out_verify -- --nocapture` prints the tables.

use blindfold_engine::testkit::{Kit, agent, call, delegate, obj, response, task};
use blindfold_engine::{EngineConfig, Step};
use blindfold_schemas::{Effect, Intent, Reason, ToolSpec};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One answer of the corpus.
struct Item {
    id: String,
    lang: String,
    tool: String,
    args: Value,
    messages: Vec<String>,
    label: String,
    kind: String,
    /// The word of the verdict line (`with-verdict.jsonl` only).
    verdict: Option<String>,
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus/verify-answers")
}

fn read(file: &str) -> Vec<Item> {
    let path = corpus_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{file}: {e}: {l}"));
            let s = |k: &str| v[k].as_str().unwrap_or_else(|| panic!("{file}: no {k} in {l}")).to_owned();
            Item {
                id: s("id"),
                lang: s("lang"),
                tool: v["action"]["tool"].as_str().unwrap_or_default().to_owned(),
                args: v["action"]["args"].clone(),
                messages: v["messages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                label: s("label"),
                kind: s("kind"),
                verdict: v["verdict"].as_str().map(str::to_owned),
            }
        })
        .collect()
}

/// What became of the action after the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// It ran.
    Allowed,
    /// Held for review as disputed (`review{contradicted}`).
    Disputed,
    /// Held as unverified (`review{unverified}`).
    Unverified,
    /// Anything else (a refusal the answer did not cause).
    Other(Reason),
}

/// The corpus's registry: the default tools and `deploy` (target `env`, artifact `manifest`).
fn config() -> EngineConfig {
    let agents = [("a1", "heronix"), ("a2", "corvid")].map(|(id, f)| (id.to_owned(), agent(f)));
    let mut config = EngineConfig::from_policy(&Default::default(), agents);
    config.registry.insert(
        "deploy",
        ToolSpec {
            effect: Effect::External,
            target_arg: Some("env".into()),
            artifact_arg: Some("manifest".into()),
            args: None,
            target_in_evidence: None,
            critical: None,
        },
    );
    config
}

/// Replays one answer; `{handle}` in its messages becomes the handle issued for the action.
fn run(item: &Item) -> Outcome {
    let mut k = Kit::new(config(), "held-out");
    let args = obj(item.args.clone());
    let derived = k.engine.config().registry.derive(&item.tool, &args);
    // The user asked for exactly this action and granted it: what decides is the verification.
    k.step(task(&format!("Please carry out: {} {}", item.tool, derived.target)));
    k.step(delegate("a1", Intent::Scope, "Prepare the change.", None));
    k.step(response("a1", "Proposed below.", &[("p1", &item.tool, item.args.clone())], &[]));
    let rest = Value::Object(derived.args.clone());
    k.grant(&item.tool, &derived.target, &derived.artifact, rest, None, None);
    let d: Step = k.step(delegate("a2", Intent::Verify, "Please verify p1 before it runs.", Some("p1")));
    let handle =
        d.verification.as_ref().and_then(|v| v.handles.first()).map(|h| h.handle.clone()).unwrap_or_default();
    for m in &item.messages {
        k.step(response("a2", &m.replace("{handle}", &handle), &[], &[]));
    }
    let s = k.step(call("coordinator", &item.tool, item.args.clone(), Some("p1")));
    match s.decision {
        Some(d) if d.is_allow() => Outcome::Allowed,
        Some(d) if d.reason == Reason::Contradicted => Outcome::Disputed,
        Some(d) if d.reason == Reason::Unverified => Outcome::Unverified,
        Some(d) => Outcome::Other(d.reason),
        None => Outcome::Allowed,
    }
}

/// Counts per (language or kind) of (label, outcome).
#[derive(Default)]
struct Tally {
    by: BTreeMap<String, BTreeMap<(String, String), usize>>,
}

impl Tally {
    fn add(&mut self, key: &str, label: &str, outcome: Outcome) {
        let o = match outcome {
            Outcome::Allowed => "allowed".to_owned(),
            Outcome::Disputed => "disputed".to_owned(),
            Outcome::Unverified => "unverified".to_owned(),
            Outcome::Other(r) => r.as_str().to_owned(),
        };
        *self.by.entry(key.to_owned()).or_default().entry((label.to_owned(), o)).or_default() += 1;
    }

    fn count(&self, key: &str, label: &str, outcome: &str) -> usize {
        self.by.get(key).and_then(|m| m.get(&(label.to_owned(), outcome.to_owned()))).copied().unwrap_or(0)
    }

    fn total(&self, key: &str, label: &str) -> usize {
        self.by.get(key).map_or(0, |m| m.iter().filter(|((l, _), _)| l == label).map(|(_, n)| n).sum())
    }

    /// One line per key: refutations disputed, approvals disputed / allowed, unsure allowed.
    fn table(&self, title: &str) -> String {
        let mut out = format!(
            "{title}\n| | refutations disputed | approvals disputed | approvals run | unsure run |\n|---|---|---|---|---|\n"
        );
        for key in self.by.keys() {
            let cell = |label: &str, outcome: &str| {
                let total = self.total(key, label);
                if total == 0 {
                    "–".to_owned()
                } else {
                    format!("{}/{total}", self.count(key, label, outcome))
                }
            };
            out.push_str(&format!(
                "| {key} | {} | {} | {} | {} |\n",
                cell("refute", "disputed"),
                cell("approve", "disputed"),
                cell("approve", "allowed"),
                cell("unsure", "allowed"),
            ));
        }
        out
    }
}

/// Replays `items`, checks what must hold on each, and tallies by language and by kind.
fn measure(items: &[Item], with_verdict: bool) {
    let (mut langs, mut kinds, mut misses) = (Tally::default(), Tally::default(), Vec::new());
    let mut ran = Vec::new();
    for item in items {
        let outcome = run(item);
        // Only an approving verdict line can let the action run (prose never approves); whether
        // prose that refutes without a cue word stops it is measured, not guaranteed.
        let approving_verdict = with_verdict && item.verdict.as_deref() == Some("approve");
        if outcome == Outcome::Allowed && !approving_verdict {
            ran.push(format!("{} ({}, {}): {:?}", item.id, item.label, item.kind, item.messages));
        }
        langs.add(&item.lang, &item.label, outcome);
        langs.add("all", &item.label, outcome);
        kinds.add(&item.kind, &item.label, outcome);
        let missed = match item.label.as_str() {
            "refute" => outcome != Outcome::Disputed,
            "approve" => outcome == Outcome::Disputed || (with_verdict && outcome != Outcome::Allowed),
            _ => false,
        };
        if missed {
            misses.push(format!("{} ({}, {:?}): {:?}", item.id, item.kind, outcome, item.messages));
        }
    }
    eprintln!(
        "{}",
        langs.table(if with_verdict {
            "with a verdict line, by language"
        } else {
            "prose only, by language"
        })
    );
    eprintln!("{}", kinds.table("by kind"));
    eprintln!("misses:\n{}", misses.join("\n"));
    assert!(
        ran.is_empty(),
        "answers that let the action run without an approving verdict:\n{}",
        ran.join("\n")
    );
}

#[test]
fn held_out_answers_without_a_verdict_never_approve_and_refutations_are_measured() {
    let mut items = Vec::new();
    for lang in ["en", "zh", "es", "de", "fr", "ja", "ru"] {
        items.extend(read(&format!("{lang}.jsonl")));
    }
    assert!(items.len() >= 300, "the corpus is there: {}", items.len());
    measure(&items, false);
}

#[test]
fn held_out_answers_with_a_verdict_run_only_when_the_verdict_approves() {
    let items = read("with-verdict.jsonl");
    assert!(items.len() >= 100, "the corpus is there: {}", items.len());
    assert!(items.iter().all(|i| i.messages.iter().any(|m| m.contains("{handle}"))));
    measure(&items, true);
}
