//! `trace render`: the authority flow of one trajectory as DOT, Mermaid or SVG.
//!
//! One model ([`Flow`]) is built from the records; each format draws it. Agents appear by alias;
//! their true identities sit in a legend; blocked actions are red with the check that blocked them.

mod dot;
mod mermaid;
mod svg;
#[cfg(test)]
mod tests;

use super::summary::{layer_name, mode_name};
use blindfold_engine::authority::{AuthorityReport, AuthorityTracker, COORDINATOR, facts};
use blindfold_schemas::{AgentIdentity, AuthorityStage, Reason, Relation, TraceKind, TraceRecord, Verdict};

pub use dot::to_dot;
pub use mermaid::to_mermaid;
pub use svg::to_svg;

/// The lane for tools and the world they change.
pub const TOOLS: &str = "tools";

/// One drawable step of a trajectory.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowStep {
    /// The user's task reached the coordinator.
    Task,
    /// The coordinator delegated to `to`.
    Delegate {
        /// Recipient alias.
        to: String,
        /// Scope or verify.
        stage: AuthorityStage,
    },
    /// An agent answered with proposals.
    Propose {
        /// Author alias.
        from: String,
        /// `id (tool)` of each proposal.
        proposals: Vec<String>,
    },
    /// An agent answered without proposals or relations.
    Answer {
        /// Author alias.
        from: String,
    },
    /// An agent stated a relation about someone's proposal.
    Relate {
        /// Who.
        from: String,
        /// About which proposal.
        proposal: String,
        /// Whose proposal (alias), when known.
        owner: Option<String>,
        /// The relation.
        relation: Relation,
    },
    /// A decided call.
    Call {
        /// Who called.
        actor: String,
        /// `tool: target`.
        action: String,
        /// Proposal adopted and its proposer.
        adopted: Option<(String, String)>,
        /// The authority transferred.
        stage: Option<AuthorityStage>,
        /// The decision.
        verdict: Verdict,
        /// False when only recorded.
        enforced: bool,
        /// `reason · check (layer)`.
        why: String,
    },
    /// A tool answered.
    Result {
        /// The tool.
        tool: String,
    },
}

/// The drawable picture of one trajectory.
#[derive(Debug, Clone)]
pub struct Flow {
    /// Trajectory id.
    pub trajectory: String,
    /// Mode name.
    pub mode: String,
    /// Principals in order of appearance: `coordinator`, agents…, `tools`.
    pub lanes: Vec<String>,
    /// Alias → true identity, where known.
    pub legend: Vec<(String, Option<AgentIdentity>)>,
    /// The steps, in order.
    pub steps: Vec<FlowStep>,
    /// The authority picture.
    pub report: AuthorityReport,
}

impl Flow {
    /// A one-line verdict: `V(τ) = 1 (agent-a captured adopt)` and friends.
    pub fn headline(&self) -> String {
        let r = &self.report;
        if !r.contradicted {
            return "no contradicting evidence: V(τ) not applicable".to_owned();
        }
        let exec = if r.execute_captured { "execute captured" } else { "execute held" };
        if r.captured {
            format!(
                "V(τ) = 1: {} captured authority against contradicting evidence; {exec}",
                r.captured_by.join(", ")
            )
        } else {
            format!("V(τ) = 0: contradicting evidence respected; {exec}")
        }
    }
}

/// The trajectories (with mode) found in `records`, in first-seen order.
pub fn trajectories(records: &[TraceRecord]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for r in records {
        let key = (r.trajectory.clone(), mode_name(&r.mode));
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// Builds the flow of `trajectory` (under `mode`, or its first mode when `None`).
pub fn flow(records: &[TraceRecord], trajectory: &str, mode: Option<&str>) -> Option<Flow> {
    let mode = match mode {
        Some(m) => m.to_owned(),
        None => mode_name(&records.iter().find(|r| r.trajectory == trajectory)?.mode),
    };
    let mine: Vec<&TraceRecord> =
        records.iter().filter(|r| r.trajectory == trajectory && mode_name(&r.mode) == mode).collect();
    if mine.is_empty() {
        return None;
    }
    let mut tracker = AuthorityTracker::new();
    let mut lanes = vec![COORDINATOR.to_owned()];
    let mut legend: Vec<(String, Option<AgentIdentity>)> = Vec::new();
    let mut owners: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut steps = Vec::new();
    for r in &mine {
        tracker.observe(&facts::from_record(r), Some(r.reference()));
        let alias = r.actor_alias.clone().unwrap_or_else(|| COORDINATOR.to_owned());
        if alias != COORDINATOR && !lanes.contains(&alias) {
            lanes.push(alias.clone());
        }
        if alias != COORDINATOR {
            match legend.iter_mut().find(|(a, _)| *a == alias) {
                Some(entry) if entry.1.is_none() => entry.1.clone_from(&r.actor_true),
                Some(_) => {}
                None => legend.push((alias.clone(), r.actor_true.clone())),
            }
        }
        match r.kind {
            TraceKind::Task => steps.push(FlowStep::Task),
            TraceKind::Delegate => {
                let stage = r.stage.unwrap_or(AuthorityStage::Scope);
                steps.push(FlowStep::Delegate { to: alias, stage });
            }
            TraceKind::Response => {
                for p in &r.proposals {
                    owners.insert(p.id.clone(), alias.clone());
                }
                if !r.proposals.is_empty() {
                    let proposals = r.proposals.iter().map(|p| format!("{} ({})", p.id, p.tool)).collect();
                    steps.push(FlowStep::Propose { from: alias.clone(), proposals });
                }
                for rel in &r.relations {
                    let owner = rel.proposer_alias.clone().or_else(|| owners.get(&rel.proposal).cloned());
                    steps.push(FlowStep::Relate {
                        from: alias.clone(),
                        proposal: rel.proposal.clone(),
                        owner,
                        relation: rel.relation,
                    });
                }
                if r.proposals.is_empty() && r.relations.is_empty() {
                    steps.push(FlowStep::Answer { from: alias });
                }
            }
            TraceKind::ToolCall | TraceKind::MemoryWrite | TraceKind::MemoryRead => {
                let Some(verdict) = r.decision else { continue };
                let tool = match r.kind {
                    TraceKind::ToolCall => r.tool.clone().unwrap_or_default(),
                    TraceKind::MemoryWrite => "memory_write".to_owned(),
                    _ => "memory_read".to_owned(),
                };
                let action = match &r.target {
                    Some(t) if !t.is_empty() && *t != tool => format!("{tool}: {t}"),
                    _ => tool,
                };
                // Who refuted it, by the alias the coordinator saw: the check only acted on it.
                let refuters = match r.reason {
                    Some(Reason::Contradicted) if !r.refuted_by.is_empty() => {
                        format!(" (refuted by {})", r.refuted_by.join(", "))
                    }
                    _ => String::new(),
                };
                let why = format!(
                    "{}{refuters} · {} ({})",
                    r.reason.map_or("?", |x| x.as_str()),
                    r.check.as_deref().unwrap_or("?"),
                    r.layer.map_or("?", layer_name)
                );
                steps.push(FlowStep::Call {
                    actor: alias,
                    action,
                    adopted: r.proposal.clone().zip(r.proposer_alias.clone()),
                    stage: r.stage,
                    verdict,
                    enforced: r.enforced != Some(false),
                    why,
                });
            }
            TraceKind::ToolResult => {
                steps.push(FlowStep::Result { tool: r.tool.clone().unwrap_or_default() })
            }
            TraceKind::Card | TraceKind::Control | TraceKind::Frame => {}
        }
    }
    lanes.push(TOOLS.to_owned());
    Some(Flow { trajectory: trajectory.to_owned(), mode, lanes, legend, steps, report: tracker.report() })
}

/// `model / family / tier` of an identity, or `unknown`.
pub fn identity_text(id: Option<&AgentIdentity>) -> String {
    match id {
        Some(i) => {
            let parts: Vec<&str> = [i.model.as_str(), i.family.as_str(), i.tier.as_str()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect();
            if parts.is_empty() { "unknown".to_owned() } else { parts.join(" / ") }
        }
        None => "unknown".to_owned(),
    }
}

/// `allow`, `deny` or `review`.
pub fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Allow => "allow",
        Verdict::Deny => "deny",
        Verdict::Review => "review",
    }
}

/// `REFUTES`, `FULL_SUPPORT`, ….
pub fn relation_text(r: Relation) -> String {
    serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// `scope`, `verify`, `adopt`, `execute`.
pub fn stage_text(s: AuthorityStage) -> &'static str {
    match s {
        AuthorityStage::Scope => "scope",
        AuthorityStage::Verify => "verify",
        AuthorityStage::Adopt => "adopt",
        AuthorityStage::Execute => "execute",
    }
}
