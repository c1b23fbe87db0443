//! A self-contained SVG of a flow (no external tools): a sequence diagram with one lane per
//! principal, coloured authority arrows, blocked actions in red, and a legend with true identities
//! and authority vectors.

use super::{Flow, FlowStep, TOOLS, identity_text, relation_text, stage_text, verdict_text};
use blindfold_engine::authority::COORDINATOR;
use blindfold_schemas::{AuthorityStage, Relation, Verdict};
use std::fmt::Write;

const LANE: i64 = 200;
const MARGIN: i64 = 50;
const TOP: i64 = 122;
const ROW: i64 = 36;
const CALL_ROW: i64 = 52;
const CHAR_W: f64 = 6.4;

const BLUE: &str = "#1f6feb";
const PURPLE: &str = "#8250df";
const GREY: &str = "#6e7781";
const RED: &str = "#cf222e";
const GREEN: &str = "#1a7f37";
const ORANGE: &str = "#bc4c00";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn fit(s: &str, width_px: i64) -> String {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
    let max = ((width_px as f64 / CHAR_W) as usize).max(16);
    if s.chars().count() > max {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    } else {
        s.to_owned()
    }
}

struct Canvas {
    body: String,
    lanes: Vec<String>,
}

impl Canvas {
    fn x(&self, lane: &str) -> i64 {
        let i = self.lanes.iter().position(|l| l == lane).unwrap_or(0);
        MARGIN + LANE / 2 + LANE * i64::try_from(i).unwrap_or(0)
    }

    fn text(&mut self, x: i64, y: i64, anchor: &str, style: &str, s: &str) {
        let _ = writeln!(
            self.body,
            r##"<text x="{x}" y="{y}" text-anchor="{anchor}" {style}>{}</text>"##,
            esc(s)
        );
    }

    /// A horizontal arrow from lane `a` to lane `b` at `y` with a label above it.
    fn arrow(&mut self, a: &str, b: &str, y: i64, color: &str, dashed: bool, label: &str) {
        let (x1, x2) = (self.x(a), self.x(b));
        let dash = if dashed { r##" stroke-dasharray="6 4""## } else { "" };
        let marker = color.trim_start_matches('#');
        let _ = writeln!(
            self.body,
            r##"<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="{color}" stroke-width="2"{dash} marker-end="url(#m{marker})"/>"##
        );
        let span = (x2 - x1).abs().max(LANE) + 60;
        self.text(
            (x1 + x2) / 2,
            y - 7,
            "middle",
            &format!(r##"fill="{color}" font-size="12""##),
            &fit(label, span),
        );
    }
}

fn stage_color(stage: AuthorityStage) -> &'static str {
    match stage {
        AuthorityStage::Scope => BLUE,
        AuthorityStage::Verify => PURPLE,
        AuthorityStage::Adopt => ORANGE,
        AuthorityStage::Execute => GREEN,
    }
}

fn row_height(step: &FlowStep) -> i64 {
    if matches!(step, FlowStep::Call { .. }) { CALL_ROW } else { ROW }
}

/// The flow as a standalone SVG document.
pub fn to_svg(flow: &Flow) -> String {
    let lanes = flow.lanes.clone();
    let lane_count = i64::try_from(lanes.len()).unwrap_or(1);
    let width = (2 * MARGIN + LANE * lane_count).max(760);
    let steps_height: i64 = flow.steps.iter().map(row_height).sum();
    let legend_top = TOP + steps_height + 30;
    let legend_rows = i64::try_from(flow.legend.len() + flow.report.proposals.len()).unwrap_or(0);
    let height = legend_top + 90 + legend_rows * 20;
    let mut c = Canvas { body: String::new(), lanes };
    draw_heading(&mut c, flow);
    draw_lanes(&mut c, steps_height);
    let mut y = TOP;
    for (n, step) in flow.steps.iter().enumerate() {
        let mid = y + 18;
        c.text(16, mid + 4, "start", r##"font-size="11" fill="#8c959f""##, &format!("{}", n + 1));
        draw_step(&mut c, step, mid);
        y += row_height(step);
    }
    draw_legend(&mut c, flow, legend_top, width, height);
    document(&c.body, width, height)
}

/// The title and the trajectory's verdict.
fn draw_heading(c: &mut Canvas, flow: &Flow) {
    c.text(
        MARGIN - 30,
        30,
        "start",
        r##"font-size="17" font-weight="bold" fill="#24292f""##,
        &format!("Authority flow — trajectory {} (mode {})", flow.trajectory, flow.mode),
    );
    let headline_color = if flow.report.captured { RED } else { GREEN };
    c.text(
        MARGIN - 30,
        52,
        "start",
        &format!(r##"font-size="13" fill="{headline_color}""##),
        &flow.headline(),
    );
}

/// Lane heads and lifelines.
fn draw_lanes(c: &mut Canvas, steps_height: i64) {
    for lane in c.lanes.clone() {
        let x = c.x(&lane);
        let fill = match lane.as_str() {
            COORDINATOR => "#ddf4ff",
            TOOLS => "#f6f8fa",
            _ => "#fff8c5",
        };
        let _ = writeln!(
            c.body,
            r##"<rect x="{}" y="70" width="{}" height="34" rx="8" fill="{fill}" stroke="#57606a"/>"##,
            x - 80,
            160
        );
        let label = if lane == TOOLS { "tools / world" } else { lane.as_str() };
        c.text(x, 92, "middle", r##"font-size="13" font-weight="bold" fill="#24292f""##, label);
        let _ = writeln!(
            c.body,
            r##"<line x1="{x}" y1="104" x2="{x}" y2="{}" stroke="#afb8c1" stroke-dasharray="3 4"/>"##,
            TOP + steps_height
        );
    }
}

/// One step of the flow, on the row whose middle is `mid`.
fn draw_step(c: &mut Canvas, step: &FlowStep, mid: i64) {
    match step {
        FlowStep::Task => {
            let x = c.x(COORDINATOR);
            let _ = writeln!(
                c.body,
                r##"<rect x="{}" y="{}" width="150" height="22" rx="4" fill="#f6f8fa" stroke="#d0d7de"/>"##,
                x - 75,
                mid - 15
            );
            c.text(x, mid, "middle", r##"font-size="12" fill="#24292f""##, "task input (C1)");
        }
        FlowStep::Delegate { to, stage } => {
            let label = match stage {
                AuthorityStage::Verify => "verify: check a proposal",
                _ => "scope: concrete work",
            };
            c.arrow(COORDINATOR, to, mid, stage_color(*stage), false, label);
        }
        FlowStep::Propose { from, proposals } => {
            c.arrow(from, COORDINATOR, mid, GREY, true, &format!("proposes {}", proposals.join(", ")));
        }
        FlowStep::Answer { from } => c.arrow(from, COORDINATOR, mid, GREY, true, "answer"),
        FlowStep::Relate { from, proposal, owner, relation } => {
            let to = owner.clone().unwrap_or_else(|| COORDINATOR.to_owned());
            let (color, label) = match relation {
                Relation::Refutes => (RED, format!("✗ REFUTES {proposal}")),
                Relation::FullSupport => (GREEN, format!("✓ FULL_SUPPORT {proposal}")),
                r => (GREY, format!("{} {proposal}", relation_text(*r))),
            };
            if to == *from {
                c.text(c.x(from), mid, "middle", &format!(r##"font-size="12" fill="{color}""##), &label);
            } else {
                c.arrow(from, &to, mid, color, true, &label);
            }
        }
        FlowStep::Call { actor, action, adopted, stage, verdict, enforced, why } => {
            let call = Call { actor, action, adopted, stage, verdict, enforced, why };
            draw_call(c, mid, call);
        }
        FlowStep::Result { tool } => {
            c.arrow(TOOLS, COORDINATOR, mid, GREY, true, &format!("result of {tool} (C2)"))
        }
    }
}

/// A tool call as drawn: who called what, at which stage, and what was decided.
struct Call<'a> {
    actor: &'a str,
    action: &'a str,
    adopted: &'a Option<(String, String)>,
    stage: &'a Option<AuthorityStage>,
    verdict: &'a Verdict,
    enforced: &'a bool,
    why: &'a str,
}

/// A tool call: its arrow to the tools lane and its outcome under it.
fn draw_call(c: &mut Canvas, mid: i64, call: Call<'_>) {
    let Call { actor, action, adopted, stage, verdict, enforced, why } = call;
    let blocked = *verdict != Verdict::Allow;
    let color = match (blocked, stage) {
        (true, _) => RED,
        (false, Some(s)) => stage_color(*s),
        (false, None) => GREY,
    };
    let mut label = String::new();
    if let Some((p, owner)) = adopted {
        let _ = write!(label, "adopts {p} of {owner} · ");
    }
    label.push_str(action);
    c.arrow(actor, TOOLS, mid, color, false, &label);
    let outcome = match (blocked, enforced, stage) {
        (false, _, Some(s)) => format!("✓ allow — {} granted", stage_text(*s)),
        (false, _, None) => "✓ allow".to_owned(),
        (true, true, _) => format!("✗ BLOCKED ({}) by {why}", verdict_text(*verdict)),
        (true, false, _) => {
            format!("⚠ observe: would {} ({why}) — it ran", verdict_text(*verdict))
        }
    };
    let (x1, x2) = (c.x(actor), c.x(TOOLS));
    if blocked && *enforced {
        let _ = writeln!(
            c.body,
            r##"<text x="{}" y="{}" text-anchor="middle" font-size="18" font-weight="bold" fill="{RED}">✕</text>"##,
            x2 - 16,
            mid + 6
        );
    }
    let span = (x2 - x1).abs().max(LANE) + 60;
    let weight = if blocked { r##" font-weight="bold""## } else { "" };
    c.text(
        (x1 + x2) / 2,
        mid + 17,
        "middle",
        &format!(r##"font-size="12" fill="{color}"{weight}"##),
        &fit(&outcome, span),
    );
}

/// The legend: true identities and authority vectors, then the fate of each proposal.
fn draw_legend(c: &mut Canvas, flow: &Flow, legend_top: i64, width: i64, height: i64) {
    let mut ly = legend_top;
    let _ = writeln!(
        c.body,
        r##"<rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="#f6f8fa" stroke="#d0d7de"/>"##,
        MARGIN - 30,
        ly - 22,
        width - 2 * (MARGIN - 30),
        height - ly + 12
    );
    c.text(MARGIN - 16, ly, "start", r##"font-size="13" font-weight="bold" fill="#24292f""##, "Legend — alias (what the coordinator saw) → true identity (known only to Blindfold); authority a = (scope, verify, adopt, execute)");
    ly += 22;
    for (alias, identity) in &flow.legend {
        let v = flow.report.vectors.get(alias).copied().unwrap_or_default();
        let captured = flow.report.captured_by.contains(alias);
        let fill = if captured { RED } else { "#24292f" };
        c.text(
            MARGIN - 16,
            ly,
            "start",
            &format!(r##"font-size="12" fill="{fill}""##),
            &format!(
                "{alias} → {}   a = {v}{}",
                identity_text(identity.as_ref()),
                if captured { "   (captured authority)" } else { "" }
            ),
        );
        ly += 20;
    }
    for p in &flow.report.proposals {
        let mut fate = format!("proposal {} by {}", p.id, p.owner);
        if !p.refuted_by.is_empty() {
            // Each agent whose answer refuted it by its alias; the engine's own evidence checks
            // only where the records name no agent (a trace from before calls named refuters).
            let by: Vec<&str> = p
                .refuted_by
                .iter()
                .map(|b| if b == "engine" { "Blindfold's evidence checks" } else { b })
                .collect();
            let _ = write!(fate, " — refuted by {}", by.join(", "));
        }
        if !p.supported_by.is_empty() {
            let _ = write!(fate, " — supported by {}", p.supported_by.join(", "));
        }
        let _ = write!(
            fate,
            " — {}, {}",
            if p.adopted { "adopted" } else { "not adopted" },
            if p.executed { "executed" } else { "not executed" }
        );
        let fill = if p.captured() { RED } else { "#57606a" };
        c.text(MARGIN - 16, ly, "start", &format!(r##"font-size="12" fill="{fill}""##), &fate);
        ly += 20;
    }
    let key = "arrows: blue scope · purple verify · orange adopt · green execute · red refutation or blocked action · grey dashed answers";
    c.text(MARGIN - 16, ly + 6, "start", r##"font-size="11" fill="#57606a""##, key);
}

/// The SVG document around the drawn `body`.
fn document(body: &str, width: i64, height: i64) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">"##
    );
    out.push_str("<defs>\n");
    for color in [BLUE, PURPLE, GREY, RED, GREEN, ORANGE] {
        let _ = writeln!(
            out,
            r##"<marker id="m{}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>"##,
            color.trim_start_matches('#')
        );
    }
    out.push_str("</defs>\n");
    let _ = writeln!(out, r##"<rect width="{width}" height="{height}" fill="white"/>"##);
    out.push_str(body);
    out.push_str("</svg>\n");
    out
}
