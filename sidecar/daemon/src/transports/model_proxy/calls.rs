//! The coordinator's proposed tool calls, decided through the daemon's one decision path
//! (`App::permit`) at the moment they would be forwarded to the harness: the call's events with
//! the facts of its bytes (arguments that cannot be read, numbers no double holds), so every
//! refusal is the cascade's and is traced.

use crate::runtime::app::App;
use blindfold_adapters::model_api::{
    CallGate, CallOutcome, DecidableCall, ProposedCall, Scrubber, UnreadableItem, decidable_call,
    refusal_text,
};
use blindfold_engine::Input;
use std::sync::Arc;

/// Decides calls of one trajectory; a refusal replaces the call only when it is enforced.
pub struct CallDecider {
    app: App,
    trajectory: String,
    scrubber: Arc<dyn Scrubber + Send + Sync>,
    consume: bool,
}

impl CallDecider {
    /// A gate for `trajectory`, mapping aliases back through `scrubber`; an allowed call takes its
    /// grant's use when `consume` (else the grant is only checked: a plugin takes it at execution).
    pub fn new(
        app: App,
        trajectory: String,
        scrubber: Arc<dyn Scrubber + Send + Sync>,
        consume: bool,
    ) -> Self {
        Self { app, trajectory, scrubber, consume }
    }

    /// Decides each event of `call` in order; the first refusal replaces the call (`shown`: the
    /// tool as the model named it), else the call goes with `arguments`.
    fn decide(&self, shown: &str, call: DecidableCall, arguments: String) -> CallOutcome {
        let mut authorized = None;
        for event in &call.events {
            // The codecs are synchronous (a call is gated the moment its last byte is assembled),
            // so the decision is made, not awaited: a durable record's wait hands the worker over.
            let input = Input::with_facts(event, &call.facts);
            match self.app.permit(&self.trajectory, input, self.consume, ()) {
                Ok(passed) => authorized = Some(passed),
                Err(refused) => {
                    tracing::info!(
                        trajectory = %self.trajectory, tool = %shown, reason = %refused.decision().reason,
                        check = %refused.decision().check, "coordinator tool call refused"
                    );
                    return CallOutcome::Refuse { text: refusal_text(shown, &refused.refusal) };
                }
            }
        }
        if let Some(step) = authorized.as_ref().and_then(|a| a.step())
            && let Some(d) = &step.decision
        {
            tracing::info!(
                trajectory = %self.trajectory, tool = %shown, decision = ?d.decision, reason = %d.reason,
                check = %d.check, enforced = step.enforced, "coordinator tool call decided"
            );
        }
        CallOutcome::Forward { arguments }
    }
}

impl CallGate for CallDecider {
    fn gate(&mut self, call: &ProposedCall) -> CallOutcome {
        let decidable = decidable_call(call, self.scrubber.as_ref());
        let arguments = decidable.forward.clone().unwrap_or_else(|| call.arguments.clone());
        self.decide(&call.name, decidable, arguments)
    }

    fn unreadable(&mut self, item: &UnreadableItem) -> CallOutcome {
        tracing::warn!(trajectory = %self.trajectory, item = %item, "model answer part unreadable as a call");
        self.decide(&item.kind, item.decidable(), String::new())
    }
}
