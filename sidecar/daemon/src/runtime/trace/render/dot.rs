//! Graphviz DOT of a flow: principals as nodes, numbered authority arrows, actions as boxes.

use super::{Flow, FlowStep, TOOLS, identity_text, relation_text, stage_text, verdict_text};
use blindfold_engine::authority::COORDINATOR;
use blindfold_schemas::{Relation, Verdict};
use std::fmt::Write;

fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The flow as a DOT digraph (render with `dot -Tsvg`, or use `--format svg` for no tools).
pub fn to_dot(flow: &Flow) -> String {
    let mut out = String::from(
        "digraph authority {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=11];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    let _ = writeln!(
        out,
        "  label={}; labelloc=t;",
        q(&format!("{} ({}) — {}", flow.trajectory, flow.mode, flow.headline()))
    );
    for lane in &flow.lanes {
        if lane == TOOLS {
            continue;
        }
        let shape = if lane == COORDINATOR { "doubleoctagon" } else { "ellipse" };
        let _ = writeln!(out, "  {} [shape={shape}];", q(lane));
    }
    for (n, step) in flow.steps.iter().enumerate() {
        let n = n + 1;
        match step {
            FlowStep::Task | FlowStep::Answer { .. } | FlowStep::Result { .. } => {}
            FlowStep::Delegate { to, stage } => {
                let _ = writeln!(
                    out,
                    "  {} -> {} [label={}, color=blue];",
                    q(COORDINATOR),
                    q(to),
                    q(&format!("{n}. {}", stage_text(*stage)))
                );
            }
            FlowStep::Propose { from, proposals } => {
                let _ = writeln!(
                    out,
                    "  {} -> {} [label={}, style=dashed];",
                    q(from),
                    q(COORDINATOR),
                    q(&format!("{n}. proposes {}", proposals.join(", ")))
                );
            }
            FlowStep::Relate { from, proposal, owner, relation } => {
                let color = if *relation == Relation::Refutes { "red" } else { "darkgreen" };
                let to = owner.as_deref().unwrap_or(COORDINATOR);
                let _ = writeln!(
                    out,
                    "  {} -> {} [label={}, color={color}, fontcolor={color}, style=dashed];",
                    q(from),
                    q(to),
                    q(&format!("{n}. {} {proposal}", relation_text(*relation)))
                );
            }
            FlowStep::Call { actor, action, adopted, stage, verdict, enforced, why } => {
                let node = format!("action{n}");
                let blocked = *verdict != Verdict::Allow;
                let (fill, text) = match (blocked, enforced) {
                    (false, _) => ("palegreen", format!("{action}\\nallow")),
                    (true, true) => {
                        ("lightpink", format!("{action}\\nBLOCKED {} · {why}", verdict_text(*verdict)))
                    }
                    (true, false) => (
                        "lightyellow",
                        format!("{action}\\nobserve: would {} · {why}", verdict_text(*verdict)),
                    ),
                };
                let text = text.replace('"', "'");
                let _ =
                    writeln!(out, "  {node} [shape=box, style=filled, fillcolor={fill}, label=\"{text}\"];");
                let label = stage.map_or(String::new(), |s| format!("{n}. {}", stage_text(s)));
                let _ = writeln!(out, "  {} -> {node} [label={}];", q(actor), q(&label));
                if let Some((p, owner)) = adopted {
                    let _ = writeln!(
                        out,
                        "  {} -> {node} [label={}, style=dotted];",
                        q(owner),
                        q(&format!("{p} adopted"))
                    );
                }
            }
        }
    }
    out.push_str("  legend [shape=note, label=\"");
    for (alias, identity) in &flow.legend {
        let v = flow.report.vectors.get(alias).map(ToString::to_string).unwrap_or_default();
        let _ = write!(out, "{alias} = {}  a={v}\\l", identity_text(identity.as_ref()).replace('"', "'"));
    }
    out.push_str("\"];\n}\n");
    out
}
