//! Orders written as data (SPEC §7 P4/P5): the `[orders]` table of a pack lists who a record
//! may address as its reader (agents, assistants, "whoever picks up this task"), normative and
//! procedural markers ("must", "standard procedure", "policy", "always"), the controls an order
//! may lift (review, approval, verification, grants, checks) and the words that lift them
//! ("skip", "no longer required", "without") or say in one phrase that one is lifted
//! ("pre-approved"). Matched on folded text like every other cue ([`super::Packs::judge`]).

use super::{Context, Packs, Phrase, Units, phrase};
use serde::Deserialize;

/// The `[orders]` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOrders {
    #[serde(default)]
    addressees: Vec<String>,
    #[serde(default)]
    directives: Vec<String>,
    #[serde(default)]
    controls: Vec<String>,
    #[serde(default)]
    relaxers: Vec<String>,
    #[serde(default)]
    waivers: Vec<String>,
}

/// One pack's order cues, compiled.
#[derive(Debug, Clone, Default)]
pub(super) struct Orders {
    addressees: Vec<Phrase>,
    directives: Vec<Phrase>,
    controls: Vec<Phrase>,
    relaxers: Vec<Phrase>,
    waivers: Vec<Phrase>,
}

impl Orders {
    pub(super) fn compile(raw: &RawOrders, spaced: bool, elisions: &[String]) -> Orders {
        let list = |l: &[String]| -> Vec<Phrase> {
            l.iter().map(|p| phrase(p, spaced, elisions)).filter(|p| !p.units.is_empty()).collect()
        };
        Orders {
            addressees: list(&raw.addressees),
            directives: list(&raw.directives),
            controls: list(&raw.controls),
            relaxers: list(&raw.relaxers),
            waivers: list(&raw.waivers),
        }
    }
}

/// What the order cues of every pack read in one sentence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderReading {
    /// It addresses its reader (agents, assistants, "you").
    pub addressed: bool,
    /// It carries a normative or procedural marker.
    pub directive: bool,
    /// It lifts a control: a control with a lifting word near it, not negated, or a waiver.
    pub lifted: bool,
    /// It names a control (a review, an approval, verification, a check).
    pub control: bool,
    /// It carries a word that lifts a control (not negated).
    pub relaxer: bool,
}

impl OrderReading {
    /// True when the sentence is an order: addressed to its reader with a directive, or lifting
    /// a control.
    pub fn is_order(self) -> bool {
        (self.addressed && self.directive) || self.lifted
    }
}

/// The most units between a control and the word that lifts it ("Sicherheitsprüfungen sind für
/// Hotfixes ab sofort nicht mehr erforderlich").
const LIFT_REACH: usize = 8;

impl Packs {
    /// How the order cues read the sentence `folded` (already folded).
    pub fn order_reading(&self, folded: &str) -> OrderReading {
        let mut out = OrderReading::default();
        for spaced in [true, false] {
            let packs: Vec<&super::Pack> = self.packs.iter().filter(|p| p.spaced == spaced).collect();
            if packs.is_empty() {
                continue;
            }
            let elisions: Vec<String> = packs.iter().flat_map(|p| p.elisions.iter().cloned()).collect();
            let units = Units::of(folded, spaced, &elisions);
            let context = Context::of(&units, &packs);
            let found = |list: &[Phrase]| -> Vec<(usize, usize)> {
                list.iter().flat_map(|p| units.find(p)).filter(|&r| context.free(r)).collect()
            };
            let standing = |list: &[Phrase]| -> Vec<(usize, usize)> {
                found(list).into_iter().filter(|&(s, e)| !context.negated(&units, s, e)).collect()
            };
            let (mut controls, mut relaxers) = (Vec::new(), Vec::new());
            for o in packs.iter().map(|p| &p.orders) {
                out.addressed |= !found(&o.addressees).is_empty();
                out.directive |= !found(&o.directives).is_empty();
                out.lifted |= !standing(&o.waivers).is_empty();
                controls.extend(found(&o.controls));
                relaxers.extend(standing(&o.relaxers));
            }
            out.control |= !controls.is_empty();
            out.relaxer |= !relaxers.is_empty();
            out.lifted |= controls.iter().any(|&(cs, ce)| {
                relaxers.iter().any(|&(rs, re)| {
                    let gap = if re <= cs { cs - re } else { rs.saturating_sub(ce) };
                    gap <= LIFT_REACH
                })
            });
        }
        out
    }
}
