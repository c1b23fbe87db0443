//! The coordinator's proposed tool calls, decided through the daemon's one decision path
//! (`App::decide`) at the moment they would be forwarded to the harness.

use crate::runtime::app::App;
use blindfold_adapters::model_api::{
    CallGate, CallOutcome, ProposedCall, Scrubber, UnreadableItem, call_events, refusal_text,
};
use blindfold_schemas::{Decision, Layer, Reason};
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
}

impl CallGate for CallDecider {
    fn gate(&mut self, call: &ProposedCall) -> CallOutcome {
        let (events, mapped) = match call_events(call, self.scrubber.as_ref()) {
            Ok(parsed) => parsed,
            Err(e) => {
                let decision = Decision::deny(Reason::MalformedInput, "P0.model_api", Layer::ContentFree)
                    .with_detail(e.to_string());
                return self.malformed(&call.name, &decision, &call.arguments);
            }
        };
        for event in &events {
            // The codecs are synchronous (a call is gated the moment its last byte is assembled),
            // so `decide` is called, not awaited: a durable record's wait hands the worker over.
            let step = self.app.decide(&self.trajectory, event, self.consume);
            if let Some(decision) = &step.decision {
                tracing::info!(
                    trajectory = %self.trajectory, tool = %call.name, decision = ?decision.decision,
                    reason = %decision.reason, check = %decision.check, enforced = step.enforced,
                    "coordinator tool call decided"
                );
            }
            if step.blocks() {
                let decision = step.decision.unwrap_or_else(|| {
                    Decision::deny(Reason::InternalError, "P0.internal", Layer::ContentFree)
                });
                return CallOutcome::Refuse { text: refusal_text(&call.name, &decision) };
            }
        }
        CallOutcome::Forward { arguments: mapped.unwrap_or_else(|| call.arguments.clone()) }
    }

    fn unreadable(&mut self, item: &UnreadableItem) -> CallOutcome {
        self.malformed(&item.kind, &item.denial(), "")
    }
}

impl CallDecider {
    /// A denial for input that cannot be read as a call: refused where refusals are enforced,
    /// else forwarded as it came (`arguments`).
    fn malformed(&self, tool: &str, decision: &Decision, arguments: &str) -> CallOutcome {
        tracing::warn!(trajectory = %self.trajectory, tool = %tool, reason = %decision.reason, detail = ?decision.detail, "model tool call malformed");
        if self.app.modes_for(&self.trajectory).enforce {
            return CallOutcome::Refuse { text: refusal_text(tool, decision) };
        }
        CallOutcome::Forward { arguments: arguments.to_owned() }
    }
}
