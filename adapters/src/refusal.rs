//! What a refusal says: the reason code, the check that made it, and what would unblock it —
//! the one text of every transport and harness (an MCP tool result, an A2A status message, the
//! assistant text replacing a model's call, a Pi block reason, an OpenCode rejection, the control
//! API's `refusal.text`). Each names the action as the coordinator saw it; nothing else renders
//! a refusal.

use blindfold_engine::DerivedAction;
use blindfold_engine::canonical::{args_sha256, sha256_hex};
use blindfold_schemas::{Decision, Reason, Verdict};
use serde_json::{Value, json};

/// A refusal: the decision, and the grant that would unblock it when one could.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The engine's decision.
    pub decision: Decision,
    /// The grant request that would unblock it (`None` when no grant helps).
    pub needed_grant: Option<Value>,
}

/// Reasons a signed grant for the exact action would cure.
fn grant_can_unblock(reason: Reason) -> bool {
    use Reason::*;
    matches!(
        reason,
        NoGrant
            | BadSignature
            | UntrustedIssuer
            | WrongTask
            | ExpiredGrant
            | NotYetValid
            | OperationDenied
            | TargetDenied
            | ArtifactChanged
            | ReplayedGrant
            | RevokedGrant
            | GrantTooLong
            | Unverified
    )
}

/// The grant request for `action` in trajectory `task`: what a grant must bind.
fn grant_request(task: &str, a: &DerivedAction) -> Value {
    json!({
        "task_id": task,
        "operation": a.operation,
        "target": a.target,
        "artifact_sha256": sha256_hex(&a.artifact),
        "args_sha256": args_sha256(&a.args),
    })
}

impl Refusal {
    /// A refusal of `action` in trajectory `task`.
    pub fn new(decision: Decision, task: &str, action: Option<&DerivedAction>) -> Self {
        let needed_grant = match action {
            Some(a) if grant_can_unblock(decision.reason) => Some(grant_request(task, a)),
            _ => None,
        };
        Self { decision, needed_grant }
    }

    /// A refusal of `action` in trajectory `task` that waits in review `review_id`: the grant
    /// that unblocks it is one the operator issues through that review, bound to exactly this
    /// action, so the grant request names the review.
    pub fn in_review(decision: Decision, task: &str, action: &DerivedAction, review_id: &str) -> Self {
        let mut grant = grant_request(task, action);
        grant["review_id"] = json!(review_id);
        Self { decision, needed_grant: Some(grant) }
    }

    /// A refusal that no grant unblocks (no action to bind one to).
    pub fn plain(decision: Decision) -> Self {
        Self { decision, needed_grant: None }
    }

    /// One human- and model-readable paragraph: what was blocked (`what`, the action as the
    /// coordinator saw it: "the call to `write_file`", "this bash request"), why, and what would
    /// unblock it.
    pub fn text(&self, what: &str) -> String {
        let d = &self.decision;
        let layer = serde_json::to_value(d.layer).ok().and_then(|v| v.as_str().map(str::to_owned));
        let lead = match d.decision {
            Verdict::Review => format!("Blindfold held {what} for review"),
            Verdict::Allow | Verdict::Deny => format!("Blindfold blocked {what}"),
        };
        let mut text =
            format!("{lead}: {} (check {}, layer {}).", d.reason, d.check, layer.unwrap_or_default());
        if let Some(detail) = &d.detail {
            text.push_str(&format!(" {detail}."));
        }
        text.push(' ');
        text.push_str(&self.unblock_hint());
        text
    }

    /// What would unblock the action.
    pub fn unblock_hint(&self) -> String {
        let reason = self.decision.reason;
        match &self.needed_grant {
            Some(g) => {
                let s = |k: &str| g[k].as_str().unwrap_or_default().to_owned();
                let lead = if reason == Reason::ArtifactChanged {
                    "The grant presented covers other bytes than the ones sent. To unblock:"
                } else {
                    "To unblock:"
                };
                format!(
                    "{lead} a human issues a signed grant on the trusted path for task `{}`, operation `{}`, target `{}`, artifact sha256 {} (args sha256 {}); the model cannot grant itself.",
                    s("task_id"),
                    s("operation"),
                    s("target"),
                    s("artifact_sha256"),
                    s("args_sha256"),
                )
            }
            None => match reason {
                Reason::ToolNotAllowed | Reason::UnknownTool => {
                    "To unblock: the operator adds the tool to this stage's allowlist.".to_owned()
                }
                Reason::MalformedInput | Reason::LimitExceeded => {
                    "To unblock: resend a well-formed request within the configured limits.".to_owned()
                }
                Reason::Contradicted => {
                    "To unblock: resolve the contradicting evidence, or a human reviews the action."
                        .to_owned()
                }
                _ => "To unblock: a human reviews the action.".to_owned(),
            },
        }
    }

    /// The structured form for `_meta`/`data`/`metadata` fields.
    pub fn to_json(&self) -> Value {
        let mut v = json!({"decision": self.decision});
        if let Some(g) = &self.needed_grant {
            v["needed_grant"] = g.clone();
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_schemas::{CheckId, Effect};
    use serde_json::Map;

    fn action() -> DerivedAction {
        DerivedAction {
            effect: Effect::Mutate,
            operation: "write_file".into(),
            target: "/w/a.txt".into(),
            artifact: b"hello".to_vec(),
            args: Map::new(),
            unknown: false,
        }
    }

    #[test]
    fn a_grant_refusal_names_the_exact_grant() {
        let d = Decision::deny(Reason::NoGrant, CheckId::Grant);
        let r = Refusal::new(d, "task-1", Some(&action()));
        let text = r.text("`write_file`");
        assert!(text.contains("no_grant"), "{text}");
        assert!(text.contains("task `task-1`") && text.contains("target `/w/a.txt`"), "{text}");
        assert!(text.contains(&sha256_hex(b"hello")), "{text}");
        assert_eq!(r.to_json()["needed_grant"]["operation"], "write_file");
    }

    #[test]
    fn a_refusal_in_review_asks_for_a_grant_bound_to_the_review() {
        let d = Decision::review(Reason::Undecided, CheckId::ArgumentRules);
        let r = Refusal::in_review(d, "task-1", &action(), "rv-0011223344556677");
        let grant = r.needed_grant.expect("a grant unblocks it");
        assert_eq!(grant["review_id"], "rv-0011223344556677");
        assert_eq!((grant["task_id"].as_str(), grant["target"].as_str()), (Some("task-1"), Some("/w/a.txt")));
        assert_eq!(grant["artifact_sha256"], sha256_hex(b"hello"));
    }

    #[test]
    fn an_allowlist_refusal_needs_no_grant() {
        let d = Decision::deny(Reason::ToolNotAllowed, CheckId::Allowlist);
        let r = Refusal::new(d, "t", Some(&action()));
        assert!(r.needed_grant.is_none());
        assert!(r.text("`x`").contains("allowlist"));
    }
}
