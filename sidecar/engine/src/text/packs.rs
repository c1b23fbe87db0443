//! Language packs: refusal and warning language as data, one table per language
//! (`packs/<lang>.toml`), built once into matchers and read by one generic matcher
//! ([`Packs::judge`]). A language is a table, not code: a user's pack goes through the same
//! [`Packs::add_toml`] as the built-in ones.
//!
//! A table lists prohibitions (refusals as written: "do not run"), refusal words and warning
//! words (refusals unless negated: "no reason to refuse", "nothing dangerous"), approval words
//! (a negated one refuses: "not safe"; alone they approve nothing — prose never approves),
//! negators before and after what they negate with their reach, restrictors that bound a
//! warning word to a scope ("only exposed to the publish step"), exceptions (phrases that hold a
//! cue but say something else: "don't worry"), contrast markers, conditionals (an approval under
//! one is a reservation), clause ends, and the words of an elliptical "no" (answer negators and
//! the function words that may stand with them: "lieber nicht", "tel quel, c'est non").

use crate::fold::fold_str;
use serde::Deserialize;
use units::{Units, split_elision};

mod orders;
mod units;

pub use orders::OrderReading;
pub use units::cue_text;

/// The built-in packs: English, Chinese, Spanish, German, French, Japanese, Russian.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("en", include_str!("packs/en.toml")),
    ("zh", include_str!("packs/zh.toml")),
    ("es", include_str!("packs/es.toml")),
    ("de", include_str!("packs/de.toml")),
    ("fr", include_str!("packs/fr.toml")),
    ("ja", include_str!("packs/ja.toml")),
    ("ru", include_str!("packs/ru.toml")),
];

/// The most words an elliptical answer has.
const ELLIPSIS_MAX_WORDS: usize = 6;

/// A pack as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPack {
    language: String,
    spaced: bool,
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default)]
    prohibitions: Vec<String>,
    #[serde(default)]
    refusal: Vec<String>,
    #[serde(default)]
    warning: Vec<String>,
    #[serde(default)]
    approval: Vec<String>,
    #[serde(default)]
    negators: Vec<RawNegator>,
    #[serde(default)]
    post_negators: Vec<RawNegator>,
    #[serde(default)]
    exceptions: Vec<String>,
    #[serde(default)]
    not_negators: Vec<String>,
    #[serde(default)]
    contrast: Vec<String>,
    #[serde(default)]
    conditionals: Vec<String>,
    #[serde(default)]
    clause_ends: Vec<String>,
    #[serde(default)]
    restrictors: Vec<RawNegator>,
    #[serde(default)]
    elisions: Vec<String>,
    #[serde(default)]
    answer_negators: Vec<String>,
    #[serde(default)]
    particles: Vec<String>,
    #[serde(default)]
    orders: orders::RawOrders,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNegator {
    word: String,
    reach: usize,
}

/// A pack that does not parse or names an unknown class.
#[derive(Debug, thiserror::Error)]
#[error("language pack {pack}: {message}")]
pub struct PackError {
    /// The pack (its file name or language).
    pub pack: String,
    /// What is wrong.
    pub message: String,
}

/// One unit of a phrase: a word (exact, or a stem for `stem*`), any one word (`*`), or for an
/// unspaced language one character.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unit {
    Exact(String),
    Stem(String),
    Any,
}

/// A cue: its units and whether it must open its clause (`^`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Phrase {
    units: Vec<Unit>,
    anchored: bool,
    /// Must end its clause (`$`): with `^`, the whole clause.
    closed: bool,
}

/// What a cue list is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    Prohibition,
    Refusal,
    Warning,
    Approval,
}

/// One compiled pack.
#[derive(Debug, Clone)]
struct Pack {
    language: String,
    spaced: bool,
    cues: Vec<(Cue, Phrase)>,
    negators: Vec<(Phrase, usize)>,
    post_negators: Vec<(Phrase, usize)>,
    exceptions: Vec<Phrase>,
    not_negators: Vec<Phrase>,
    contrast: Vec<Phrase>,
    conditionals: Vec<Phrase>,
    clause_ends: Vec<char>,
    /// Words that bound what a warning word says to a scope ("only exposed to the publish
    /// step", "zerstört nur die Schulungs-VMs"), with their reach on either side.
    restrictors: Vec<(Phrase, usize)>,
    /// Elided words written onto the next one (`l'`, `qu'`), cut off as words of their own.
    elisions: Vec<String>,
    /// Words that alone answer "no" (folded).
    answer_negators: Vec<String>,
    /// Function words that may stand with them in an elliptical answer ("lieber nicht", "tal
    /// cual, no"), folded.
    particles: Vec<String>,
    /// Orders written as data (`[orders]`).
    orders: orders::Orders,
}

/// What a segment of text says, as the packs read it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Judgement {
    /// Refusal or warning language stands (not negated).
    pub refuses: bool,
    /// The refusal is explicit (a prohibition, a refusal word, a negated approval), not only a
    /// warning.
    pub explicit: bool,
    /// A condition gates what is said ("go ahead once you have a backup").
    pub reservation: bool,
    /// Approval language stands (never an approval: it only keeps a segment from borrowing a
    /// neighbour's refusal).
    pub approves: bool,
}

impl Judgement {
    fn or(self, o: Judgement) -> Judgement {
        Judgement {
            refuses: self.refuses || o.refuses,
            explicit: self.explicit || o.explicit,
            reservation: self.reservation || o.reservation,
            approves: self.approves || o.approves,
        }
    }
}

/// Every pack in use, compiled.
#[derive(Debug, Clone, Default)]
pub struct Packs {
    packs: Vec<Pack>,
}

impl Packs {
    /// The built-in packs.
    pub fn built_in() -> Self {
        let mut packs = Packs::default();
        for (name, text) in BUILT_IN {
            packs.add_toml(name, text).unwrap_or_else(|e| unreachable!("built-in pack {name}: {e}"));
        }
        packs
    }

    /// Adds a pack written as TOML (`name` names it in errors).
    pub fn add_toml(&mut self, name: &str, text: &str) -> Result<(), PackError> {
        let err = |message: String| PackError { pack: name.to_owned(), message };
        let raw: RawPack = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let pack = compile(raw).map_err(err)?;
        self.packs.push(pack);
        Ok(())
    }

    /// The languages in use, in order.
    pub fn languages(&self) -> Vec<&str> {
        self.packs.iter().map(|p| p.language.as_str()).collect()
    }

    /// True when `c` ends a clause in some pack.
    pub fn ends_clause(&self, c: char) -> bool {
        self.packs.iter().any(|p| p.clause_ends.contains(&c))
    }

    /// Byte offsets (in `folded`, already folded) where a contrast marker of some pack starts,
    /// and its length.
    pub fn contrast_cuts(&self, folded: &str) -> Vec<(usize, usize)> {
        let mut cuts = Vec::new();
        for pack in &self.packs {
            let units = Units::of(folded, pack.spaced, &pack.elisions);
            for phrase in &pack.contrast {
                for (s, e) in units.find(phrase) {
                    let (bs, be) = (units.spans[s].0, units.spans[e - 1].1);
                    cuts.push((bs, be - bs));
                }
            }
        }
        cuts.sort_unstable();
        cuts
    }

    /// What the `folded` segment says (every pack's reading, refusal winning). Negators and
    /// exceptions of every pack of the same script apply to every pack's cues: a cue one language
    /// shares with another ("danger…") is negated by either's negators.
    pub fn judge(&self, folded: &str) -> Judgement {
        let mut out = Judgement::default();
        for spaced in [true, false] {
            let packs: Vec<&Pack> = self.packs.iter().filter(|p| p.spaced == spaced).collect();
            if packs.is_empty() {
                continue;
            }
            let elisions: Vec<String> = packs.iter().flat_map(|p| p.elisions.iter().cloned()).collect();
            let units = Units::of(folded, spaced, &elisions);
            let context = Context::of(&units, &packs);
            for p in packs {
                out = out.or(p.judge(&units, &context));
            }
        }
        out
    }
}

/// The negators and exceptions found in one segment, across the packs of one script.
struct Context {
    excluded: Vec<(usize, usize)>,
    pre: Vec<(usize, usize, usize)>,
    post: Vec<(usize, usize, usize)>,
    restrict: Vec<(usize, usize, usize)>,
}

impl Context {
    fn of(units: &Units<'_>, packs: &[&Pack]) -> Context {
        let excluded: Vec<(usize, usize)> =
            packs.iter().flat_map(|p| p.exceptions.iter()).flat_map(|x| units.find(x)).collect();
        let shielded: Vec<(usize, usize)> =
            packs.iter().flat_map(|p| p.not_negators.iter()).flat_map(|x| units.find(x)).collect();
        let free = |s: usize, e: usize| !excluded.iter().any(|&(xs, xe)| s < xe && xs < e);
        let unshielded = |s: usize, e: usize| !shielded.iter().any(|&(xs, xe)| xs <= s && e <= xe);
        let found = |list: &[(Phrase, usize)]| -> Vec<(usize, usize, usize)> {
            list.iter()
                .flat_map(|(p, reach)| units.find(p).into_iter().map(move |(s, e)| (s, e, *reach)))
                .collect()
        };
        let pre = packs
            .iter()
            .flat_map(|p| found(&p.negators))
            .filter(|&(s, e, _)| free(s, e) && unshielded(s, e))
            .collect();
        let post =
            packs.iter().flat_map(|p| found(&p.post_negators)).filter(|&(s, e, _)| free(s, e)).collect();
        let restrict =
            packs.iter().flat_map(|p| found(&p.restrictors)).filter(|&(s, e, _)| free(s, e)).collect();
        Context { excluded, pre, post, restrict }
    }

    fn free(&self, (s, e): (usize, usize)) -> bool {
        !self.excluded.iter().any(|&(xs, xe)| s < xe && xs < e)
    }

    fn negated(&self, units: &Units<'_>, s: usize, e: usize) -> bool {
        self.pre.iter().any(|&(ns, ne, reach)| {
            ne <= s && s - ne < reach && !(s <= ns && ne <= e) && !units.blocked(ne.saturating_sub(1), s)
        }) || self.post.iter().any(|&(ps, _, reach)| ps >= e && ps - e < reach && !units.blocked(e - 1, ps))
    }

    /// True when a restrictor next to the cue at `s..e` bounds it to a scope.
    fn restricted(&self, units: &Units<'_>, s: usize, e: usize) -> bool {
        self.restrict.iter().any(|&(rs, re, reach)| {
            (re <= s && s - re < reach && !units.blocked(re.saturating_sub(1), s))
                || (rs >= e && rs - e < reach && !units.blocked(e - 1, rs))
        })
    }
}

/// Folds a phrase of a pack and cuts it into units.
fn phrase(text: &str, spaced: bool, elisions: &[String]) -> Phrase {
    let (anchored, rest) = match text.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (closed, rest) = match rest.strip_suffix('$') {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let folded = fold_str(&cue_text(rest));
    let units = if spaced {
        folded
            .split_whitespace()
            .flat_map(|w| split_elision(w, elisions))
            .map(|w| match w {
                "*" => Unit::Any,
                w if w.len() > 1 && w.ends_with('*') => Unit::Stem(w.trim_end_matches('*').to_owned()),
                w => Unit::Exact(w.to_owned()),
            })
            .collect()
    } else {
        folded.chars().filter(|c| !c.is_whitespace()).map(|c| Unit::Exact(c.to_string())).collect()
    };
    Phrase { units, anchored, closed }
}

/// Compiles a raw pack: `{verb}` expanded, phrases folded and cut.
fn compile(raw: RawPack) -> Result<Pack, String> {
    let spaced = raw.spaced;
    let elisions: Vec<String> = raw.elisions.iter().map(|e| fold_str(e)).collect();
    let phrase = |text: &str, spaced: bool| phrase(text, spaced, &elisions);
    let expand = |list: &[String]| -> Result<Vec<Phrase>, String> {
        let mut out = Vec::new();
        for item in list {
            if item.contains('{') && !item.contains("{verb}") {
                return Err(format!("unknown class in {item:?} (only {{verb}})"));
            }
            if item.contains("{verb}") {
                if raw.verbs.is_empty() {
                    return Err(format!("{item:?} names {{verb}} but the pack lists no verbs"));
                }
                out.extend(raw.verbs.iter().map(|v| phrase(&item.replace("{verb}", v), spaced)));
            } else {
                out.push(phrase(item, spaced));
            }
        }
        Ok(out.into_iter().filter(|p| !p.units.is_empty()).collect())
    };
    let mut cues = Vec::new();
    for (kind, list) in [
        (Cue::Prohibition, &raw.prohibitions),
        (Cue::Refusal, &raw.refusal),
        (Cue::Warning, &raw.warning),
        (Cue::Approval, &raw.approval),
    ] {
        cues.extend(expand(list)?.into_iter().map(|p| (kind, p)));
    }
    let negators =
        |list: &[RawNegator]| list.iter().map(|n| (phrase(&n.word, spaced), n.reach.max(1))).collect();
    Ok(Pack {
        language: raw.language,
        spaced,
        cues,
        negators: negators(&raw.negators),
        post_negators: negators(&raw.post_negators),
        restrictors: negators(&raw.restrictors),
        elisions: elisions.clone(),
        exceptions: expand(&raw.exceptions)?,
        not_negators: expand(&raw.not_negators)?,
        contrast: expand(&raw.contrast)?,
        conditionals: expand(&raw.conditionals)?,
        clause_ends: raw.clause_ends.iter().filter_map(|e| e.chars().next()).collect(),
        answer_negators: raw.answer_negators.iter().map(|w| fold_str(w)).collect(),
        particles: raw.particles.iter().map(|w| fold_str(w)).collect(),
        orders: orders::Orders::compile(&raw.orders, spaced, &elisions),
    })
}

impl Pack {
    /// What `units` say in this language, negators and exceptions taken from `context`.
    fn judge(&self, units: &Units<'_>, context: &Context) -> Judgement {
        let mut out = Judgement::default();
        for (kind, p) in &self.cues {
            for (s, e) in units.find(p).into_iter().filter(|&r| context.free(r)) {
                let stands = match kind {
                    Cue::Prohibition => true,
                    Cue::Refusal => !context.negated(units, s, e),
                    Cue::Warning => !context.negated(units, s, e) && !context.restricted(units, s, e),
                    Cue::Approval => {
                        let negated = context.negated(units, s, e);
                        out.approves |= !negated;
                        negated
                    }
                };
                if stands {
                    out.refuses = true;
                    out.explicit |= *kind != Cue::Warning;
                }
            }
        }
        if self.elliptical_no(units) {
            out.refuses = true;
            out.explicit = true;
        }
        out.reservation =
            self.conditionals.iter().any(|p| units.find(p).into_iter().any(|r| context.free(r)));
        out
    }

    /// True when the segment is an elliptical "no": nothing but answer negators and function
    /// words, with at least one negator ("Lieber nicht.", "Tal cual, no.", "В таком виде — нет.").
    fn elliptical_no(&self, units: &Units<'_>) -> bool {
        let negator = |w: &str| self.answer_negators.iter().any(|n| n == w);
        let particle = |w: &str| self.particles.iter().any(|p| p == w);
        self.spaced
            && !units.units.is_empty()
            && units.units.len() <= ELLIPSIS_MAX_WORDS
            && units.units.iter().any(|w| negator(w))
            && units.units.iter().all(|w| negator(w) || particle(w))
    }
}

#[cfg(test)]
mod tests;
