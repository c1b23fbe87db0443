//! The coordinator's proposed tool calls, decided through the daemon's one decision path
//! (`App::permit`) at the moment they would be forwarded to the harness: the call's events with
//! the facts of its bytes (arguments that cannot be read, numbers no double holds), so every
//! refusal is the cascade's and is traced.
//!
//! In a registered harness session ([`Route::Session`]) the harness's plugin gates every call
//! again when it runs and records it, so the proxy is the backstop: it decides as the session's
//! actor, never takes a grant's use, leaves delegations to the plugin's report and records only
//! what it refuses (one record per event). A request without a registered session where one is
//! required ([`Route::Unpaired`]) has every call refused.

use super::session::Route;
use crate::runtime::app::App;
use crate::runtime::permit::Decided;
use blindfold_adapters::model_api::{
    CallGate, CallOutcome, DecidableCall, ProposedCall, Scrubber, UnreadableItem, decidable_call,
    refusal_text,
};
use blindfold_adapters::refusal::Refusal;
use blindfold_engine::Input;
use blindfold_schemas::{CheckId, Decision, Event, Reason};
use std::sync::Arc;

/// Decides calls of one trajectory; a refusal replaces the call only when it is enforced.
pub struct CallDecider {
    app: App,
    trajectory: String,
    scrubber: Arc<dyn Scrubber + Send + Sync>,
    consume: bool,
    route: Route,
}

impl CallDecider {
    /// A gate for the trajectory of `route`, mapping aliases back through `scrubber`; an allowed
    /// call takes its grant's use when `consume` and the request is no harness session's (else the
    /// grant is only checked: the plugin takes it at execution).
    pub fn new(app: App, route: Route, scrubber: Arc<dyn Scrubber + Send + Sync>, consume: bool) -> Self {
        let session = matches!(route, Route::Session { .. });
        Self { app, trajectory: route.trajectory().to_owned(), scrubber, consume: consume && !session, route }
    }

    /// The refusal of every call (`shown`: the tool as the model named it) of a request without a
    /// registered harness session: traced, enforced in every mode.
    fn unpaired(&self, shown: &str, call_id: &str) -> CallOutcome {
        let decision = Decision::deny(Reason::UnpairedSession, CheckId::Session).with_detail(
            "the request carries no session of a harness whose Blindfold plugin registered with this daemon",
        );
        let event = Event::ToolCall {
            actor: "coordinator".into(),
            tool: shown.to_owned(),
            args: serde_json::Map::new(),
            proposal: None,
            call_id: (!call_id.is_empty()).then(|| call_id.to_owned()),
        };
        self.app.record_refusal(&self.trajectory, &event, &decision);
        tracing::warn!(trajectory = %self.trajectory, tool = %shown, "tool call refused: no registered harness session");
        let refusal = Refusal::new(decision, &self.trajectory, None);
        CallOutcome::Refuse { text: refusal_text(shown, &refusal, None) }
    }

    /// One event of a call on the decision path: as the session's actor, a backstop's dry run, in
    /// a harness session; else decided and (when `consume`) taking a grant's use.
    fn permit(&self, event: &Event, call: &DecidableCall) -> Decided<()> {
        let input = Input::with_facts(event, &call.facts);
        if matches!(self.route, Route::Session { .. }) {
            self.app.permit_backstop(&self.trajectory, input, ())
        } else {
            self.app.permit(&self.trajectory, input, self.consume, ())
        }
    }

    /// Decides each event of `call` in order; the first refusal replaces the call (`shown`: the
    /// tool as the model named it), else the call goes with `arguments`.
    fn decide(&self, shown: &str, call: DecidableCall, arguments: String) -> CallOutcome {
        let session = matches!(self.route, Route::Session { .. });
        let mut authorized = None;
        for event in &call.events {
            let mut event = event.clone();
            match &mut event {
                // The plugin reports the delegation it runs.
                Event::Delegate { .. } if session => continue,
                Event::ToolCall { actor, .. } => self.route.actor().clone_into(actor),
                _ => {}
            }
            // The codecs are synchronous (a call is gated the moment its last byte is assembled),
            // so the decision is made, not awaited: a durable record's wait hands the worker over.
            match self.permit(&event, &call) {
                Ok(passed) => authorized = Some(passed),
                Err(refused) => {
                    tracing::info!(
                        trajectory = %self.trajectory, tool = %shown, reason = %refused.decision().reason,
                        check = %refused.decision().check, "coordinator tool call refused"
                    );
                    let text = refusal_text(shown, &refused.refusal, refused.person_id());
                    return CallOutcome::Refuse { text };
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
        if matches!(self.route, Route::Unpaired(_)) {
            return self.unpaired(&call.name, &call.id);
        }
        let decidable = decidable_call(call, self.scrubber.as_ref());
        let arguments = decidable.forward.clone().unwrap_or_else(|| call.arguments.clone());
        self.decide(&call.name, decidable, arguments)
    }

    fn unreadable(&mut self, item: &UnreadableItem) -> CallOutcome {
        tracing::warn!(trajectory = %self.trajectory, item = %item, "model answer part unreadable as a call");
        if matches!(self.route, Route::Unpaired(_)) {
            return self.unpaired(&item.kind, "");
        }
        self.decide(&item.kind, item.decidable(), String::new())
    }
}
