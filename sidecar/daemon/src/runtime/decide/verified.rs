//! The hold: an effectful action the cascade left `review{unverified}` at `P3.verification` is
//! not answered until what can verify it was waited for: the verdict of a verification request
//! still out for it (a harness that does not wait for its sub-agent, OpenClaw's
//! `sessions_spawn`), else — with a verifier configured — Blindfold asks one. The request is a
//! verify delegation to the verifier, recorded like any other (the engine issues the handle and
//! the instruction); the verifier's answer is observed on that delegation's channel; then the
//! action is decided again, and what the engine makes of the verdict decides it. The first
//! decision is neither held nor recorded; the one made after asking is (a refusal, or no
//! verdict, is held for review then, with the refusing text for the human).

use crate::runtime::app::App;
use crate::runtime::verifiers::{Outcome, Verifiers, request_text};
use blindfold_engine::{Input, Step};
use blindfold_schemas::event::ProposedAction;
use blindfold_schemas::{CheckId, Event, Intent, Reason, Verdict};
use std::collections::BTreeSet;
use std::future::Future;

/// What one held action needs asked.
struct Held {
    trajectory: String,
    proposal: String,
    proposer: String,
    fingerprint: String,
    tool: String,
    args: serde_json::Map<String, serde_json::Value>,
    action: blindfold_engine::DerivedAction,
}

/// The held action of `step` for `event`, when Blindfold should ask a verifier about it.
fn held(trajectory: &str, event: &Event, step: &Step) -> Option<Held> {
    let Event::ToolCall { tool, args, .. } = event else { return None };
    let d = step.decision.as_ref()?;
    let unverified =
        d.decision == Verdict::Review && d.reason == Reason::Unverified && d.check == CheckId::Verification;
    if !unverified || !step.enforced {
        return None;
    }
    let adopts = step.adopts.as_ref()?;
    Some(Held {
        trajectory: trajectory.to_owned(),
        proposal: adopts.proposal.clone(),
        proposer: adopts.proposer.clone(),
        fingerprint: step.fingerprint.clone()?,
        tool: tool.clone(),
        args: args.clone(),
        action: step.action.clone()?,
    })
}

impl App {
    /// `step` (the decision of `input`), or — when it holds an unverified action — the action
    /// decided again by `decide_again()` once what can verify it was waited for: the verdict of a
    /// verification request still out for it (up to `[preverify] verify_timeout_s`), else a
    /// verifier Blindfold asks itself when one is configured. Blocks the calling thread for the
    /// wait (handing a runtime worker over first).
    pub(crate) fn preverified(
        &self,
        trajectory: &str,
        input: Input<'_>,
        step: Step,
        decide_again: impl FnOnce() -> Step,
    ) -> Step {
        let Some(event) = input.event else { return step };
        let Some(h) = held(trajectory, event, &step) else { return step };
        if self.verifiers.is_none() && !self.awaits_verdict(&h) {
            return decide_again();
        }
        let note = block_on(self.verify_held(&h))
            .unwrap_or_else(|| Some("nothing was waited for: this path cannot wait".to_owned()));
        with_note(decide_again(), note.as_deref())
    }

    /// [`App::preverified`] for async callers.
    pub(crate) async fn preverified_traced(
        &self,
        trajectory: &str,
        input: Input<'_>,
        consume: bool,
        step: Step,
    ) -> Step {
        let Some(event) = input.event else { return step };
        let Some(h) = held(trajectory, event, &step) else { return step };
        let note = self.verify_held(&h).await;
        with_note(self.decide_input_traced_plain(trajectory, input, consume).await, note.as_deref())
    }

    /// True when `step` (a first decision of `event`) holds an unverified action: it is decided
    /// again after [`App::preverified`] waited for what can verify it, and only that decision is
    /// held, counted and recorded.
    pub(crate) fn decided_again(&self, event: &Event, step: &Step) -> bool {
        held("", event, step).is_some()
    }

    /// Waits for the verdict of a verification request still out for `h`'s proposal, then (none
    /// out, or none in time) asks a configured verifier: what to add to the decision's detail.
    async fn verify_held(&self, h: &Held) -> Option<String> {
        let timeout = self.config.verifiers.timeout;
        if self.awaits_verdict(h) {
            let deadline = tokio::time::Instant::now() + timeout;
            while self.awaits_verdict(h) && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
            if !self.awaits_verdict(h) {
                return Some("held until the verification request out for it was answered".to_owned());
            }
            if self.verifiers.is_none() {
                return Some(format!(
                    "the verification request out for it got no answer within {} s",
                    timeout.as_secs()
                ));
            }
        }
        let verifiers = self.verifiers.as_ref()?;
        Some(self.ask_verifier(verifiers, h).await.describe())
    }

    fn awaits_verdict(&self, h: &Held) -> bool {
        self.with_live_trajectory(&h.trajectory, |t| t.awaits_verdict(&h.proposal)) == Some(Ok(true))
    }

    /// Asks a verifier about `h` (or finds what an earlier request got): the verify delegation,
    /// the request, the answer observed on its channel.
    async fn ask_verifier(&self, verifiers: &Verifiers, h: &Held) -> Outcome {
        let slot = verifiers.slot(&h.trajectory, &h.fingerprint);
        let mut cached = slot.lock().await;
        if let Some(o) = cached.as_ref().filter(|o| !approved(o)) {
            self.metrics.verifier("not_asked");
            return Outcome::NotAsked(format!("{} before, for this exact action", o.describe()));
        }
        let outcome = self.ask_once(verifiers, h).await;
        self.metrics.verifier(outcome.label());
        if !matches!(outcome, Outcome::NotAsked(_)) {
            *cached = Some(outcome.clone());
        }
        outcome
    }

    async fn ask_once(&self, verifiers: &Verifiers, h: &Held) -> Outcome {
        // An agent's own call is its own proposal: recorded as one, so the verdict has a
        // proposal to attach to.
        let known = self.with_live_trajectory(&h.trajectory, |t| t.has_proposal(&h.proposal));
        if known != Some(Ok(true)) {
            let own = Event::Response {
                from: h.proposer.clone(),
                text: String::new(),
                metadata: None,
                proposals: vec![ProposedAction {
                    id: h.proposal.clone(),
                    tool: h.tool.clone(),
                    args: h.args.clone(),
                }],
                relations: Vec::new(),
                call_id: None,
            };
            self.decide_input_traced_plain(&h.trajectory, Input::event(&own), false).await;
        }
        let Some(Ok(Some((lineage, sources)))) = self.with_live_trajectory(&h.trajectory, |t| {
            t.lineage(&h.proposal).map(|l| (l, observed_sources(t)))
        }) else {
            return Outcome::NotAsked("the proposal is not recorded".into());
        };
        let mut families = BTreeSet::new();
        for (agent, recorded) in &lineage.agents {
            families.insert(recorded.to_ascii_lowercase());
            families.insert(self.engine.config().family(agent).to_ascii_lowercase());
        }
        families.remove("");
        let agents: BTreeSet<String> = lineage.agents.keys().cloned().collect();
        let Some(v) = verifiers.pick(&families, &agents) else {
            return Outcome::NotAsked(format!(
                "no configured verifier is of another family than the {} agent(s) the action rests on",
                agents.len()
            ));
        };
        if !verifiers.admit(crate::unix_now_ms()) {
            return Outcome::NotAsked("[preverify] verifier_calls_per_minute is spent".into());
        }
        let text = request_text(&h.tool, &h.action, &sources, &self.engine.config().patterns);
        let call_id = verifiers.call_id();
        let delegate = Event::Delegate {
            to: v.id.clone(),
            intent: Intent::Verify,
            text: text.clone(),
            proposal: Some(h.proposal.clone()),
            call_id: Some(call_id.clone()),
        };
        let asked = self.decide_input_traced_plain(&h.trajectory, Input::event(&delegate), false).await;
        let Some(request) = asked.verification else {
            return Outcome::NotAsked(
                "the engine issued no handle for the action (already run or gone)".into(),
            );
        };
        let handle = request.handles.first().map(|x| x.handle.clone()).unwrap_or_default();
        let user = format!("{text}\n{}", request.instruction);
        let answer = match verifiers.ask(v, &user).await {
            Ok(answer) => answer,
            Err(e) => return Outcome::Silent { verifier: v.id.clone(), why: e.to_string() },
        };
        let verdict = blindfold_engine::verify::verdict_lines(&answer)
            .into_iter()
            .find(|l| l.handle == handle)
            .map(|l| l.verdict);
        let response = Event::Response {
            from: v.id.clone(),
            text: answer,
            metadata: None,
            proposals: Vec::new(),
            relations: Vec::new(),
            call_id: Some(call_id),
        };
        self.decide_input_traced_plain(&h.trajectory, Input::event(&response), false).await;
        Outcome::Answered { verifier: v.id.clone(), verdict }
    }
}

fn approved(o: &Outcome) -> bool {
    matches!(o, Outcome::Answered { verdict: Some(blindfold_schemas::VerdictWord::Approve), .. })
}

/// Where the trajectory's observed content came from (tool results, pages, stores): never an
/// agent's name.
fn observed_sources(t: &blindfold_engine::Trajectory) -> Vec<String> {
    let mut out: Vec<String> = t
        .evidence()
        .artifacts()
        .filter(|a| a.producer_family.is_none() && a.producer != "coordinator" && a.producer != "user")
        .map(|a| a.provenance.source_ref.clone())
        .filter(|s| !s.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out.truncate(20);
    out
}

/// `step` with `note` (if any) added to its decision's detail.
fn with_note(mut step: Step, note: Option<&str>) -> Step {
    let Some(note) = note else { return step };
    if let Some(d) = step.decision.as_mut() {
        let detail = d.detail.take().unwrap_or_default();
        d.detail = Some(if detail.is_empty() { note.to_owned() } else { format!("{detail}; {note}") });
    }
    step
}

/// Runs `fut` to completion from synchronous code: on a multi-threaded runtime's thread (a
/// worker is handed over first), or on a runtime made for it when there is none; `None` on a
/// current-thread runtime, which cannot be blocked.
fn block_on<F: Future>(fut: F) -> Option<F::Output> {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => {
            Some(tokio::task::block_in_place(|| h.block_on(fut)))
        }
        Ok(_) => None,
        Err(_) => {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            Some(rt.block_on(fut))
        }
    }
}
