//! What the decision path hands a transport: a value it may forward ([`Authorized`], which only
//! the decision path makes), or the refusal to answer with ([`Refused`]). A transport forwards
//! nothing it holds no `Authorized` for; every refusal it renders was decided and traced.

use crate::runtime::app::App;
use blindfold_adapters::refusal::Refusal;
use blindfold_engine::Step;
use blindfold_schemas::{CheckId, Decision, Event, Facts, Reason, Verdict};

/// A value the decision path let through: allowed, or refused only on paper (`observe`). Its
/// constructor is private to the runtime: holding one is the proof that the message it carries
/// was decided (linkerd's `Permitted<T>`).
#[must_use = "an authorized message is forwarded or dropped on purpose"]
#[derive(Debug)]
pub struct Authorized<T> {
    value: T,
    /// Boxed: most messages carry none, and the value travels in transports' enums.
    step: Option<Box<Step>>,
}

impl<T> Authorized<T> {
    /// Made by the decision path only.
    pub(super) fn new(value: T, step: Option<Step>) -> Self {
        Self { value, step: step.map(Box::new) }
    }

    /// The value to forward.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// The value to forward, by reference.
    pub fn get(&self) -> &T {
        &self.value
    }

    /// The engine's step, when the message was an event (its unenforced decision in `observe`).
    pub fn step(&self) -> Option<&Step> {
        self.step.as_deref()
    }
}

/// A message the decision path refused: its refusal (the decision, traced, and the grant that
/// would unblock it), and the review holding the action when one does.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// What the refusal says (boxed: a decision is large and refusals are the rare path): render
    /// it with [`Refusal::model_text`] and [`Refused::person_id`] where a model reads it, with
    /// [`Refusal::text`] for a person.
    pub refusal: Box<Refusal>,
    /// The review holding the action, when the decision is a held review.
    pub review_id: Option<String>,
    /// The refusal's id (`rf-…`, for `blindfold why`), when the blocked call was kept.
    pub refusal_id: Option<String>,
}

impl Refused {
    /// The refusal of a blocked `step` of `trajectory`, its grant request bound to the review
    /// holding the action (found by the action's fingerprint) when there is one. A blocked step
    /// always carries its decision; one that does not is refused as Blindfold's own failure.
    pub(super) fn of(app: &App, trajectory: &str, step: Step) -> Self {
        let decision = step.decision.unwrap_or_else(|| {
            Decision::deny(Reason::InternalError, CheckId::Internal).with_detail("no decision was made")
        });
        let review_id = match (&step.fingerprint, decision.decision) {
            (Some(fp), Verdict::Review) => app.reviews().find_pending(trajectory, fp),
            _ => None,
        };
        let refusal_id = step.fingerprint.as_deref().and_then(|fp| app.refusals.latest(trajectory, fp));
        let refusal = match (&review_id, &step.action) {
            (Some(id), Some(action)) => Refusal::in_review(decision, trajectory, action, id),
            _ => Refusal::new(decision, trajectory, step.action.as_ref()),
        };
        Self { refusal: Box::new(refusal), review_id, refusal_id }
    }

    /// A refusal made elsewhere (a daemon deciding for this relay).
    pub fn remote(refusal: Refusal) -> Self {
        Self { refusal: Box::new(refusal), review_id: None, refusal_id: None }
    }

    /// The decision.
    pub fn decision(&self) -> &Decision {
        &self.refusal.decision
    }
}

/// Where the decisions of a process that is not the daemon are made (a relay started with
/// `--daemon`): it is handed each event with its facts and answers for it, tracing it there.
pub trait RemoteDecider {
    /// Decides `event` of `trajectory` (taking a grant's use: the moment of forwarding); `Err`
    /// with the refusal when it must not go, a failure to ask included.
    fn decide(&mut self, trajectory: &str, event: &Event, facts: &Facts) -> Result<(), Refusal>;
}

/// The outcome of one message on the decision path.
pub type Decided<T> = Result<Authorized<T>, Refused>;
