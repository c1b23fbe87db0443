//! What a blocked call leaves behind for the people acting on it: its refusal id and the person's
//! text (`blindfold why`, the daemon's log), and the neutral words the model reads instead.

use crate::runtime::app::App;
use crate::runtime::permit::Refused;
use blindfold_engine::Step;

impl App {
    /// The words the model reads for `step` of `trajectory` when it blocks (`what` names the call):
    /// what is missing, and the review or refusal id a person acts on — never how to grant it.
    pub fn model_refusal(&self, trajectory: &str, step: &Step, what: &str) -> Option<String> {
        let decision = step.decision.clone().filter(|_| step.blocks())?;
        let id = step.fingerprint.as_deref().and_then(|fp| self.refusal_id(trajectory, fp));
        let refusal = blindfold_adapters::refusal::Refusal::new(decision, trajectory, step.action.as_ref());
        Some(refusal.model_text(what, id.as_deref()))
    }

    /// The id a person knows the blocked call with `fingerprint` of `trajectory` by: the review
    /// holding it, else its latest refusal.
    pub(crate) fn refusal_id(&self, trajectory: &str, fingerprint: &str) -> Option<String> {
        self.reviews()
            .find_pending(trajectory, fingerprint)
            .or_else(|| self.refusals.latest(trajectory, fingerprint))
    }

    /// Keeps a blocked call for `blindfold why` and logs what a person needs to act on it.
    pub(super) fn note_refusal(&self, trajectory: &str, actor: &str, tool: &str, step: &Step, now_ms: u64) {
        let (Some(action), Some(decision)) = (&step.action, &step.decision) else { return };
        let fp = step.fingerprint.as_deref();
        let review_id = fp.and_then(|fp| self.reviews().find_pending(trajectory, fp));
        let refused = crate::runtime::refusals::Refused {
            id: String::new(),
            ts: now_ms,
            trajectory: trajectory.to_owned(),
            actor: actor.to_owned(),
            tool: tool.to_owned(),
            action: action.clone(),
            artifact_len: 0,
            artifact_sha256: String::new(),
            decision: decision.clone(),
            review_id,
        };
        let id = self.refusals.note(refused, fp);
        if let Some(r) = self.refusals.get(&id) {
            let hint = crate::runtime::refusals::key_hint(&self.config.raw.grants.trusted_keys);
            tracing::warn!(refusal = %id, trajectory, "refused:\n{}", self.refusals.human_text(&r, &hint));
        }
    }
}

impl Refused {
    /// The id a person knows this refusal by, for the words a model reads: the review holding
    /// the action, else the refusal's own (`blindfold why <id>`).
    pub fn person_id(&self) -> Option<&str> {
        self.review_id.as_deref().or(self.refusal_id.as_deref())
    }
}
