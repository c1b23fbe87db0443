//! What the tool-call checks ask of grants: the call as a grant check sees it, the dry runs the
//! earlier checks make (an exact grant for this action, a scope covering or naming it, a human's
//! decision), and the grant decision itself.

use super::tool::CallCtx;
use crate::grants::{ActionBytes, ActionFacts, GrantAction, GrantCheck};
use blindfold_schemas::{GrantClaims, Proposal};

impl CallCtx<'_> {
    fn grant_check(&self, dry_run: bool) -> GrantCheck<'_> {
        GrantCheck {
            keys: &self.engine.keys,
            policy: self.engine.config.grant_policy,
            store: self.engine.store.as_ref(),
            now: self.now_ms / 1000,
            dry_run,
        }
    }

    fn grant_proposal(&self) -> Proposal {
        Proposal {
            task_id: self.task_id.to_owned(),
            operation: self.action.operation.clone(),
            target: self.action.target.clone(),
        }
    }

    fn bytes(&self) -> ActionBytes<'_> {
        ActionBytes { artifact: &self.action.artifact, args: &self.action.args }
    }

    /// Runs `f` with this call as the grant checks see it.
    fn with_call<R>(&self, f: impl FnOnce(&GrantAction<'_>) -> R) -> R {
        let proposal = self.grant_proposal();
        let call = GrantAction {
            proposal: &proposal,
            bytes: self.bytes(),
            facts: self.facts,
            reconciliation: self.engine.config.reconciliation.iter().any(|op| op == self.tool),
        };
        f(&call)
    }

    /// The usable exact grant that fits this action exactly (dry run), if any.
    pub fn matching_grant(&self) -> Option<GrantClaims> {
        self.with_call(|call| self.engine.grants.matching(&self.grant_check(true), call, |_| true))
    }

    /// True when a usable scoped grant of this task covers this action (dry run).
    pub fn scope_covers(&self) -> bool {
        self.with_call(|call| self.engine.grants.scope_covers(&self.grant_check(true), call))
    }

    /// True when a scoped grant of this task names this action's targets (evidence of intent).
    pub(super) fn scope_names(&self) -> bool {
        self.with_call(|call| self.engine.grants.scope_names(&self.grant_check(true), call))
    }

    /// True when a grant issued through the review queue fits this action exactly: a human
    /// saw the evidence and decided (counts as verification and resolves disputes).
    pub fn review_grant(&self) -> bool {
        self.with_call(|call| {
            self.engine.grants.matching(&self.grant_check(true), call, |c| c.review_id.is_some()).is_some()
        })
    }

    /// True when a human decided this critical action ahead: a review grant for exactly it, or a
    /// scoped grant whose entry names its operation and its exact target (`why` says what makes
    /// it critical; no wildcard covers it).
    pub(super) fn human_decided(&self, why: &str) -> bool {
        if self.review_grant() {
            return true;
        }
        let facts = ActionFacts { critical: Some(why.to_owned()), ..self.facts.clone() };
        let proposal = self.grant_proposal();
        let call =
            GrantAction { proposal: &proposal, bytes: self.bytes(), facts: &facts, reconciliation: false };
        self.engine.grants.scope_covers(&self.grant_check(true), &call)
    }

    /// The grant decision for this call, consuming a use unless `dry_run`.
    pub(super) fn grant_decision(&self, dry_run: bool) -> blindfold_schemas::Decision {
        self.with_call(|call| self.engine.grants.check(&self.grant_check(dry_run), call))
    }
}
