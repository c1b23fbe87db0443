//! Mermaid `sequenceDiagram` of a flow (renders in GitHub Markdown).

use super::{Flow, FlowStep, TOOLS, identity_text, relation_text, stage_text, verdict_text};
use blindfold_schemas::{Relation, Verdict};
use std::fmt::Write;

fn id(lane: &str) -> String {
    lane.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

fn text(s: &str) -> String {
    // Mermaid message text: no `;`, `#` or line breaks; keep it short.
    let cleaned: String =
        s.chars().map(|c| if matches!(c, ';' | '#' | '\n' | '\r') { ' ' } else { c }).collect();
    if cleaned.chars().count() > 70 {
        format!("{}…", cleaned.chars().take(69).collect::<String>())
    } else {
        cleaned
    }
}

/// The flow as a Mermaid sequence diagram.
pub fn to_mermaid(flow: &Flow) -> String {
    let mut out = String::from("sequenceDiagram\n");
    let _ = writeln!(out, "    title {} ({})", text(&flow.trajectory), flow.mode);
    for lane in &flow.lanes {
        let label = match flow.legend.iter().find(|(a, _)| a == lane) {
            Some((_, identity)) => format!("{lane}<br/>[{}]", text(&identity_text(identity.as_ref()))),
            None => lane.clone(),
        };
        let _ = writeln!(out, "    participant {} as {}", id(lane), label);
    }
    let c = id(blindfold_engine::authority::COORDINATOR);
    for step in &flow.steps {
        match step {
            FlowStep::Task => {
                let _ = writeln!(out, "    Note over {c}: task input (C1)");
            }
            FlowStep::Delegate { to, stage } => {
                let _ = writeln!(out, "    {c}->>{}: {}", id(to), stage_text(*stage));
            }
            FlowStep::Propose { from, proposals } => {
                let _ = writeln!(out, "    {}-->>{c}: proposes {}", id(from), text(&proposals.join(", ")));
            }
            FlowStep::Answer { from } => {
                let _ = writeln!(out, "    {}-->>{c}: answer", id(from));
            }
            FlowStep::Relate { from, proposal, owner, relation } => {
                let target = owner.as_deref().map_or_else(|| c.clone(), id);
                let arrow = if *relation == Relation::Refutes { "--x" } else { "-->>" };
                let _ =
                    writeln!(out, "    {}{arrow}{target}: {} {proposal}", id(from), relation_text(*relation));
            }
            FlowStep::Call { actor, action, adopted, stage, verdict, enforced, why } => {
                let blocked = *verdict != Verdict::Allow;
                if blocked {
                    out.push_str("    rect rgb(255, 220, 220)\n");
                }
                let mut label = String::new();
                if let Some((p, owner)) = adopted {
                    let _ = write!(label, "adopts {p} of {owner}: ");
                }
                label.push_str(action);
                let arrow = if blocked && *enforced { "-x" } else { "->>" };
                let _ = writeln!(out, "    {}{arrow}{}: {}", id(actor), id(TOOLS), text(&label));
                let outcome = match (blocked, enforced, stage) {
                    (false, _, Some(s)) => format!("allow · {} granted", stage_text(*s)),
                    (false, _, None) => "allow".to_owned(),
                    (true, true, _) => format!("BLOCKED {} · {}", verdict_text(*verdict), why),
                    (true, false, _) => format!("observe: would {} · {} (ran)", verdict_text(*verdict), why),
                };
                let _ = writeln!(out, "    Note over {},{}: {}", id(actor), id(TOOLS), text(&outcome));
                if blocked {
                    out.push_str("    end\n");
                }
            }
            FlowStep::Result { tool } => {
                let _ = writeln!(out, "    {}-->>{c}: result of {}", id(TOOLS), text(tool));
            }
        }
    }
    let _ = writeln!(out, "    Note over {c}: {}", text(&flow.headline()));
    out
}
