//! `P2.target_in_evidence`: an effectful call's targets must appear in what the trajectory
//! trusts or has verified — the task input, its grants, tool results, verified proposals (an
//! external target: independently corroborated). An action a dispute stands against is left to
//! `P3.contradiction`, which holds it for a human with the refuting text instead of denying it
//! for missing evidence (issue 27: a refuted action is never allowed, never silently denied).

use super::Stop;
use super::tool::{CallCtx, contradiction};
use crate::evidence::independent;
use crate::text::Target;
use blindfold_schemas::{Effect, Reason};
use serde_json::{Map, Value};

/// The check (see the module's documentation).
pub(super) fn target_in_evidence(c: &CallCtx<'_>) -> Option<Stop> {
    // A refuted action is decided by the refutation: `P3.contradiction` holds it for review
    // (only checks that deny run in between, so it can never pass for this deferral), and says
    // what [`missing_evidence`] would have said.
    if contradiction(c).is_some() {
        return None;
    }
    missing_evidence(c)
}

/// The evidence check itself: the denial `P2.target_in_evidence` gives an effectful call whose
/// targets nothing the trajectory trusts or verified names, `None` when they are evidenced.
pub(super) fn missing_evidence(c: &CallCtx<'_>) -> Option<Stop> {
    if !c.action.effect.is_effectful()
        || c.engine.config.registry.get(c.tool).and_then(|s| s.target_in_evidence) == Some(false)
    {
        return None;
    }
    // Without any task input the trajectory holds no trusted statement of intent (a bare MCP
    // connection): the grant — itself trusted evidence of its target — decides alone.
    if !c.st.has_task {
        return None;
    }
    // A scoped grant naming the action's targets is the human's own statement of them.
    if c.modes.grants && c.scope_names() {
        return None;
    }
    let grants = c.engine.grants.targets_for(c.task_id);
    let in_grant = |t: &Target| {
        grants.iter().any(|(op, gt)| op == c.tool && (gt == t.value() || gt == &c.action.target))
    };
    let external = c.action.effect == Effect::External;
    // The resources that must be evidenced: the registry target, or for a command every
    // resource it names (a command naming none must itself appear).
    let resources: Vec<&Target> =
        c.targets.iter().filter(|t| !matches!(t, Target::Tool(_) | Target::Command(_))).collect();
    let whole: Option<Target> = c.targets.iter().find(|t| matches!(t, Target::Command(_))).cloned();
    let evidenced = |t: &Target| -> bool {
        if c.st.trusted.contains(t) || in_grant(t) {
            return true;
        }
        if external { corroborated(c, t) } else { c.st.evidenced(t) }
    };
    if let Some(cmd) = &whole
        && (evidenced(cmd) || in_grant(cmd))
    {
        return None;
    }
    let target_resources: Vec<&Target> = if whole.is_some() {
        resources
    } else {
        // Non-command tools: the registry target must be evidenced; resources inside the
        // artifact (a report's links) are not targets of this check.
        let spec_target = c.engine.config.registry.get(c.tool).and_then(|s| s.target_arg.clone());
        match spec_target.and_then(|name| c.args.get(&name)) {
            Some(_) => c
                .targets
                .iter()
                .filter(|t| {
                    !matches!(t, Target::Tool(_))
                        && (t.value() == c.action.target
                            || crate::action::targets(&c.engine.config.registry, c.tool, &target_only(c))
                                .contains(t))
                })
                .collect(),
            None => Vec::new(),
        }
    };
    if target_resources.is_empty() {
        return whole.map(|cmd| {
            Stop::deny(
                Reason::TargetNotInEvidence,
                format!(
                    "the command is not in the task, its grants, a tool result or verified evidence{}",
                    seen_in(c, &cmd, false)
                ),
            )
        });
    }
    // Hosts are derived from URLs; the URL itself (or its host, without a query) decides.
    let missing = target_resources.iter().find(|t| {
        let is_derived_host = matches!(t, Target::Host(h) if target_resources.iter().any(|o| matches!(o, Target::Url(u) if crate::text::target::host_of(u).as_deref() == Some(h.as_str()))));
        !is_derived_host && !evidenced(t)
    })?;
    Some(Stop::deny(
        Reason::TargetNotInEvidence,
        format!(
            "target `{}` is not in the task input, its grants{}{}",
            missing.value(),
            if external {
                " or independently corroborated evidence"
            } else {
                ", a tool result or verified evidence"
            },
            seen_in(c, missing, external)
        ),
    ))
}

/// Where Blindfold saw `t` although nothing it trusts evidences it, as a clause for the
/// refusal: the proposals naming it (else an agent's answer naming it), a tool result (which counts only for a
/// target that is not external). Empty when it was seen nowhere. Proposal ids are the
/// coordinator's own vocabulary; agents are not named (their ids may be true identities).
fn seen_in(c: &CallCtx<'_>, t: &Target, external: bool) -> String {
    // In the order first proposed, each id once (a re-proposal keeps its id).
    let mut ids: Vec<&str> = Vec::new();
    for p in c.st.proposals.iter().filter(|p| p.targets.contains(t)) {
        if !ids.contains(&p.id.as_str()) {
            ids.push(&p.id);
        }
    }
    let mut places: Vec<String> = match ids.as_slice() {
        [] => Vec::new(),
        [one] => vec![format!("proposal `{one}`")],
        many => vec![format!(
            "proposals {}",
            many.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
        )],
    };
    // An answer that carried a proposal naming it is that proposal's place.
    let answered = ids.is_empty() && c.st.response_roots.get(&t.key()).is_some_and(|r| !r.is_empty());
    if answered {
        places.push("an agent's answer".to_owned());
    }
    if external && c.st.observed.contains(t) {
        places.push("a tool result".to_owned());
    }
    match places.as_slice() {
        [] => String::new(),
        [one] if ids.len() < 2 => format!("; Blindfold saw it only in {one}, which is not verified"),
        _ => format!("; Blindfold saw it only in {}, none of them verified", places.join(" and ")),
    }
}

fn target_only(c: &CallCtx<'_>) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(name) = c.engine.config.registry.get(c.tool).and_then(|s| s.target_arg.clone())
        && let Some(v) = c.args.get(&name)
    {
        m.insert(name, v.clone());
    }
    m
}

/// An external target seen only in C2–C5 counts when an agent independent of the proposer
/// named it without resting on the tool result it came from.
fn corroborated(c: &CallCtx<'_>, t: &Target) -> bool {
    let Some(mentions) = c.st.mentions.get(&t.key()) else { return false };
    let roots = c.st.c2_roots.get(&t.key());
    let proposer = c.proposer.map(|p| crate::evidence::Independence {
        family: c.engine.config.family(p).to_owned(),
        sources: c.st.agent_sources.get(p).cloned().unwrap_or_default(),
    });
    mentions.iter().any(|m| {
        let own = c.proposer == Some(m.by.as_str());
        let independent_of_proposer = proposer.as_ref().is_none_or(|p| independent(&m.independence, p));
        let derived = roots.is_some_and(|r| {
            r.iter().any(|root| m.independence.sources.contains(root))
                || c.st.agent_sources.get(&m.by).is_some_and(|s| r.iter().any(|root| s.contains(root)))
        });
        !own && independent_of_proposer && !derived && !m.independence.family.is_empty()
    })
}
