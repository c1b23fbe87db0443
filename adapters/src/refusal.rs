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

    /// What the model reads: in neutral words what is missing and whether a person was told,
    /// never a command or the digests a grant needs (a model that could run a command must not
    /// learn how to grant itself). `id` names the refusal (`blindfold why <id>` on the human's
    /// side) or the review it waits in.
    pub fn model_text(&self, what: &str, id: Option<&str>) -> String {
        let d = &self.decision;
        let missing = match d.reason {
            Reason::Contradicted => "another agent's evidence contradicts it, so a person reviews it first",
            Reason::Unverified => "it needs an independent verification first",
            Reason::UnpairedSession => {
                "this harness session is not registered with Blindfold (its plugin is missing or could not \
                 reach Blindfold), so no tool runs"
            }
            Reason::ExpiredGrant => "the signed approval for it has expired",
            Reason::ArtifactChanged => "its content differs from what was approved",
            Reason::TargetDenied | Reason::OperationDenied | Reason::WrongTask => {
                "the approval on record is for a different action"
            }
            r if grant_can_unblock(r) => "it needs a person's signed approval for exactly this action",
            Reason::ReviewRejected => "a person rejected it",
            Reason::MalformedInput | Reason::LimitExceeded => "the request is malformed or over a limit",
            _ if d.decision == blindfold_schemas::Verdict::Review => "it is held for a person's review",
            _ => "a rule forbids it",
        };
        let mut text = format!("Blindfold refused {what} ({}, check {}): {missing}", d.reason, d.check);
        match &d.detail {
            Some(detail) if !detail.is_empty() => text.push_str(&format!(" ({detail}).")),
            _ => text.push('.'),
        }
        if let Some(id) = id {
            text.push_str(&format!(" It was reported to a person with reference {id}; it has not run."));
        } else {
            text.push_str(" It has not run.");
        }
        text.push_str(" Do not try to work around this; continue with other work or tell the user.");
        text
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

/// What a person needs to act on a refusal (the human's channel: the daemon's log, `blindfold
/// why`): the action as the registry names it, the grant command, and what differs.
#[derive(Debug, Clone, Default)]
pub struct HumanView {
    /// The refusal's id (`rf-…`).
    pub id: String,
    /// The trajectory (the grant's task).
    pub task: String,
    /// Who asked (`coordinator` or an agent's real name).
    pub actor: String,
    /// The tool as the harness named it.
    pub tool: String,
    /// The registry's operation, target, digests and the arguments other than the artifact.
    pub operation: String,
    /// See [`HumanView::operation`].
    pub target: String,
    /// Hex SHA-256 of the artifact bytes.
    pub artifact_sha256: String,
    /// Hex SHA-256 of the other arguments' JCS form.
    pub args_sha256: String,
    /// The other arguments (JSON), `{}` when none.
    pub args: String,
    /// The artifact as text, when it is UTF-8 and short enough to show.
    pub artifact_text: Option<String>,
    /// Its length in bytes.
    pub artifact_len: usize,
    /// The review it waits in, if held.
    pub review_id: Option<String>,
    /// The issuer key to sign with, when the daemon trusts exactly one whose private half it can
    /// name; `KEY.pem` otherwise.
    pub key_hint: String,
    /// The daemon's configuration file, when it runs on one: the commands printed name it
    /// (`--config`), so they reach this daemon and not one on the default address.
    pub config_file: Option<String>,
    /// A grant on record for the same task and operation: (jti, target, exp, approved artifact text
    /// when known).
    pub near_grant: Option<(String, String, u64, Option<String>)>,
}

impl HumanView {
    /// The file `blindfold why` writes the artifact to, named in the grant command.
    pub fn artifact_file(&self) -> String {
        format!("{}.artifact", self.id)
    }

    /// The exact command that grants this action (and hands the grant to the running daemon).
    pub fn grant_command(&self) -> String {
        let mut cmd = format!(
            "blindfold grant issue --key {} --task {} --op {} --target {} --artifact {} --ttl 3600",
            shell_word(&self.key_hint),
            shell_word(&self.task),
            shell_word(&self.operation),
            shell_word(&self.target),
            shell_word(&self.artifact_file()),
        );
        if self.args != "{}" && !self.args.is_empty() {
            cmd.push_str(&format!(" --args {}", shell_word(&self.args)));
        }
        cmd.push_str(" --submit");
        cmd.push_str(&self.config_arg());
        cmd
    }

    /// ` --config FILE` for the daemon's configuration file, or nothing.
    fn config_arg(&self) -> String {
        self.config_file.as_deref().map(|f| format!(" --config {}", shell_word(f))).unwrap_or_default()
    }
}

/// `word` quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c)) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl Refusal {
    /// The person's view: what was refused and why, what a grant must bind, the command that
    /// issues it, and — for a grant that did not fit — what differs.
    pub fn human_text(&self, v: &HumanView) -> String {
        let d = &self.decision;
        let mut out = format!(
            "{}: {} refused `{}` ({} {}) in task {}: {} (check {})",
            v.id, v.actor, v.tool, v.operation, v.target, v.task, d.reason, d.check
        );
        if let Some(detail) = &d.detail {
            out.push_str(&format!(": {detail}"));
        }
        out.push('\n');
        out.push_str(&format!(
            "  operation {}\n  target    {}\n  task      {}\n  artifact  {} bytes, sha256 {}\n  args      {} (sha256 {})\n",
            v.operation, v.target, v.task, v.artifact_len, v.artifact_sha256, v.args, v.args_sha256
        ));
        if let Some(review) = &v.review_id {
            out.push_str(&format!(
                "  held in review {review}: blindfold review show {review}{config}, then blindfold review approve {review} --key {}{config} (or reject)\n",
                v.key_hint,
                config = v.config_arg(),
            ));
        }
        if let Some((jti, target, exp, approved)) = &v.near_grant {
            match d.reason {
                Reason::ExpiredGrant => out.push_str(&format!(
                    "  grant {jti} for this action expired at {exp} (seconds since the epoch): issue a new one below\n"
                )),
                Reason::TargetDenied => out.push_str(&format!(
                    "  grant {jti} names target {target}; this call's target is {}: {}\n",
                    v.target,
                    differing_part(target, &v.target)
                )),
                Reason::ArtifactChanged => match (approved, &v.artifact_text) {
                    (Some(before), Some(now)) => {
                        out.push_str(&format!("  grant {jti} approved other bytes; approved → now:\n"));
                        for line in crate::line_diff::line_diff(before, now).lines() {
                            out.push_str(&format!("    {line}\n"));
                        }
                    }
                    _ => out.push_str(&format!("  grant {jti} approved other bytes (not on record to compare)\n")),
                },
                _ => {}
            }
        }
        if d.reason == Reason::ToolDefinitionChanged {
            // The operator's commands live here, on the person's channel, never in the decision's
            // detail (which the client program and the model may read).
            out.push_str(&format!(
                "  the server changed this tool's definition: blindfold mcp pins{config} shows both \
                 definitions and the server's id; blindfold mcp accept-tool --server SERVER --tool {}{config} \
                 accepts the new one\n",
                shell_word(&v.tool),
                config = v.config_arg(),
            ));
        }
        if grant_can_unblock(d.reason) || d.reason == Reason::Contradicted {
            out.push_str(&format!(
                "  to allow exactly this call ({} holds the bytes):\n    {}\n",
                v.artifact_file(),
                v.grant_command()
            ));
        }
        out
    }
}

/// Where two targets part: the common start and the first differing path segment of each.
fn differing_part(granted: &str, called: &str) -> String {
    let common = granted.chars().zip(called.chars()).take_while(|(a, b)| a == b).count();
    let cut = granted.chars().take(common).collect::<String>().rfind('/').map_or(0, |i| i + 1);
    let seg =
        |s: &str| s.chars().skip(cut).collect::<String>().split('/').next().unwrap_or_default().to_owned();
    if cut == 0 {
        format!("they differ from the start (`{}` vs `{}`)", seg(granted), seg(called))
    } else {
        let prefix: String = granted.chars().take(cut).collect();
        format!("both start with `{prefix}`, then `{}` vs `{}`", seg(granted), seg(called))
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
    fn the_model_reads_what_is_missing_and_the_person_reads_how_to_grant_it() {
        let d = Decision::deny(Reason::NoGrant, CheckId::Grant);
        let r = Refusal::new(d, "task-1", Some(&action()));
        let model = r.model_text("the `write` call", Some("rf-01"));
        assert!(model.contains("signed approval") && model.contains("rf-01"), "{model}");
        for secret in ["blindfold grant", &sha256_hex(b"hello"), "--key"] {
            assert!(!model.contains(secret), "the model reads {secret:?}: {model}");
        }
        let v = HumanView {
            id: "rf-01".into(),
            task: "task-1".into(),
            actor: "coordinator".into(),
            tool: "write".into(),
            operation: "write_file".into(),
            target: "/w/a b.txt".into(),
            artifact_sha256: sha256_hex(b"hello"),
            args: "{}".into(),
            key_hint: "keys/ops.key.pem".into(),
            ..HumanView::default()
        };
        let human = r.human_text(&v);
        assert!(human.contains("blindfold grant issue --key keys/ops.key.pem --task task-1 --op write_file --target '/w/a b.txt' --artifact rf-01.artifact --ttl 3600 --submit"), "{human}");
        assert!(human.contains(&sha256_hex(b"hello")), "{human}");
        // A daemon on a configuration file of its own: the command reaches that daemon.
        let on_file = HumanView { config_file: Some("/p/my project/blindfold.toml".into()), ..v };
        assert!(
            on_file.grant_command().ends_with(" --submit --config '/p/my project/blindfold.toml'"),
            "{}",
            on_file.grant_command()
        );
    }

    #[test]
    fn a_grant_that_does_not_fit_says_what_differs() {
        let v = |reason| {
            let r = Refusal::new(Decision::deny(reason, CheckId::Grant), "t", Some(&action()));
            let view = HumanView {
                id: "rf-2".into(),
                target: "/w/src/a.txt".into(),
                artifact_text: Some("one\ntwo\n".into()),
                near_grant: Some(("j1".into(), "/w/docs/a.txt".into(), 99, Some("one\nthree\n".into()))),
                ..HumanView::default()
            };
            r.human_text(&view)
        };
        assert!(
            v(Reason::TargetDenied).contains("both start with `/w/`, then `docs` vs `src`"),
            "{}",
            v(Reason::TargetDenied)
        );
        assert!(
            v(Reason::ArtifactChanged).contains("- three") && v(Reason::ArtifactChanged).contains("+ two")
        );
        assert!(v(Reason::ExpiredGrant).contains("expired at 99"));
    }

    #[test]
    fn an_allowlist_refusal_needs_no_grant() {
        let d = Decision::deny(Reason::ToolNotAllowed, CheckId::Allowlist);
        let r = Refusal::new(d, "t", Some(&action()));
        assert!(r.needed_grant.is_none());
        assert!(r.text("`x`").contains("allowlist"));
    }

    #[test]
    fn a_changed_tool_definition_gives_the_person_the_commands_and_the_model_none() {
        let d = Decision::review(Reason::ToolDefinitionChanged, CheckId::ToolPin).with_detail(
            "the definition of `lookup` on server `stdio:srv` changed since it was pinned; an operator \
             must accept it",
        );
        let r = Refusal::new(d, "t", None);
        let text = r.model_text("the call to `lookup`", Some("rv-1"));
        assert!(!text.contains("blindfold"), "{text}");
        assert!(text.contains("an operator must accept it).") && text.contains("`lookup`"), "{text}");
        let v = HumanView {
            tool: "lookup".into(),
            config_file: Some("/p/b.toml".into()),
            ..HumanView::default()
        };
        let human = r.human_text(&v);
        assert!(human.contains("blindfold mcp pins --config /p/b.toml"), "{human}");
        assert!(
            human.contains("blindfold mcp accept-tool --server SERVER --tool lookup --config /p/b.toml"),
            "{human}"
        );
    }
}
