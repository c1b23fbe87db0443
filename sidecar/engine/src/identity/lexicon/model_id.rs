//! Model ids: a family or model word takes the rest of the id with it, so that a dated or
//! versioned snapshot loses its date and version too (`gpt-5-2025-08-07`,
//! `claude-3-5-sonnet-20241022`, `Llama-3.1-70B-Instruct`, `Gemini 2.5 Pro`, `o4-mini-high`).
//!
//! After the family, the id goes on over:
//! - numbers (a number right after a number only across `-`, `_`, `.` or nothing, so "GPT-4 3
//!   times" keeps its "3"; across a space only as a parameter count, `Llama 3.3 70B`);
//! - variant words of the data's `[variants]` list (across a space too, unless one letter long);
//! - another family or model word (`Claude Opus 4`);
//! - once the id holds a number, up to three further words joined by `-` or `.` (`gpt-5.6-sol`),
//!   never across a space, `_` or a camelCase hump (`ask_claude_opus_4Arguments` keeps its
//!   `Arguments`);
//! - a `p` between two numbers written together, a decimal point as some hosts spell it
//!   (`qwen2p5-72b`);
//! - once the id holds a number, a tag or snapshot after `@` or `:` written without spaces
//!   (`claude-3-5-sonnet@20241022`, `llama3.1:70b`).
//!
//! - before the version, up to two words written together or across `-` when a code of three
//!   digits or more follows the same way (`mistralOcr2503`, `gemini-embedding-001`).
//!
//! - a case ending after an apostrophe (Turkish, Polish, English `'s`) right after the family
//!   word, when a variant word follows it (`Gemini'nin Flash`, `Gemini's Flash`): the ending is
//!   the family's, the variant still its id's.
//!
//! A vendor word written together with a version (`moonshot-v1-128k`, `baichuan-13b`), or
//! followed by a context-window size (`Moonshot 32k`), is a model id too. A variant word of a
//! script without spaces continues an id across a space or a middle dot (`미스트랄 라지`,
//! `ミストラル・ラージ`: see `shapes`). An id whose tail holds a snapshot date (`…-2024-12-17`, `…20241022`, no
//! spaces) is marked as dated: a bare o-series id with a date (`o1-2024-12-17`) counts.

use super::{LexHit, Lexicon, Strength, WordKind};
use crate::fold::{Folded, Gap, Word, WordClass};

/// What a vendor word written together with a version becomes.
pub(super) static MODEL: WordKind = WordKind::Model;

/// Most words an id takes after its family word.
const MAX_TAIL_WORDS: usize = 10;
/// Most free-form (non-variant) words an id takes.
const MAX_FREE_WORDS: usize = 3;

impl Lexicon {
    /// Extends a family/model hit over the rest of its model id.
    pub(super) fn extend_model_id<'l>(&'l self, folded: &Folded, words: &[Word], hit: &mut LexHit<'l>) {
        let text = folded.as_str();
        let (mut j, mut taken, mut free) = (hit.words.end, 0, 0);
        if let Some(after) = self.case_ending(text, words, j) {
            self.as_entry_with(text, words, hit, after);
            j = after;
        }
        let first = j;
        while j < words.len() && taken < MAX_TAIL_WORDS {
            let w = &words[j];
            let gap = &text[w.gap_range.clone()];
            let tag = matches!(gap, "@" | ":") && hit.version && self.tag_word(text, w);
            // Japanese and Chinese join the words of a name with a middle dot ("ミストラル・ラージ").
            let dot = w.class == WordClass::Unspaced && matches!(gap, "\u{30FB}" | "\u{B7}");
            if !matches!(w.gap, Gap::Split | Gap::Joiner) && !tag && !dot {
                break;
            }
            let spaced = gap.contains([' ', '\t']);
            // A one-letter family (`o`) takes nothing across a space: "O Claude e o DeepSeek"
            // (Portuguese "the") holds two names, not one id.
            if spaced && j == hit.words.end && text[hit.start..hit.end].chars().count() == 1 {
                break;
            }
            let hyphen = !spaced && gap.contains(['-', '.']);
            let prev = &words[j - 1];
            let s = &text[w.range.clone()];
            let next = match w.class {
                // "Sonnet 18", "Opus 131": a number that names a work, not a version.
                WordClass::Digits
                    if spaced
                        && j == hit.words.end
                        && hit.strength == Strength::InContext
                        && numbers_a_work(text, words, j) =>
                {
                    None
                }
                // A parameter count after the version ("Llama 3.3 70B", "OLMo 2 32B").
                WordClass::Digits if spaced && prev.class == WordClass::Digits => {
                    parameter_count(text, words, j).inspect(|_| hit.version = true)
                }
                WordClass::Digits => {
                    hit.version = true;
                    Some(j + 1)
                }
                WordClass::Letters if decimal_p(text, words, j) => Some(j + 1),
                WordClass::Letters => match self.inner.phrases.longest_at(folded, words, j) {
                    // One letter across a space is a word of the sentence ("Claude o tym": Polish
                    // "about"; "Mistral o Llama": Spanish "or"), not the `o` family.
                    Some((end, &index))
                        if self.inner.infos[index].kind.is_model_like()
                            && !(spaced && end == j + 1 && s.chars().count() == 1) =>
                    {
                        Some(end)
                    }
                    _ if self.is_variant(s) && !(spaced && s.chars().count() == 1) => {
                        hit.variant = true;
                        hit.script_variant |= self.is_script_variant(s);
                        Some(j + 1)
                    }
                    _ if hyphen && hit.version && free < MAX_FREE_WORDS => {
                        free += 1;
                        Some(j + 1)
                    }
                    // Words before the version, written together ("mistralOcr2503",
                    // "gemini-embedding-001"): taken with the number that follows.
                    _ if !hit.version && !spaced && !gap.contains('_') => {
                        glued_version(text, words, j).inspect(|_| hit.version = true)
                    }
                    _ => None,
                },
                // A variant word in a script without spaces ("미스트랄 라지가", "ミストラル・ラージ").
                WordClass::Unspaced => self.unspaced_variant(folded, words, j).inspect(|_| {
                    hit.variant = true;
                    hit.script_variant = true;
                }),
            };
            let Some(next) = next else { break };
            taken += next - j;
            j = next;
        }
        if j == first {
            j = hit.words.end;
        }
        hit.words.end = j;
        hit.end = words[j - 1].range.end;
        hit.dated = dated(text, &words[hit.words.clone()]);
    }

    /// The word after a case ending that starts at word `at`: an apostrophe, at most four
    /// letters, then a space and a variant word (`'nin Flash`, `'s Pro`). `None` when no such
    /// ending stands there (`Claude's review` keeps its `'s`).
    fn case_ending(&self, text: &str, words: &[Word], at: usize) -> Option<usize> {
        let ending = words.get(at)?;
        let next = words.get(at + 1)?;
        let apostrophe = matches!(&text[ending.gap_range.clone()], "'" | "\u{2019}");
        let short = ending.class == WordClass::Letters && text[ending.range.clone()].chars().count() <= 4;
        let spaced = next.gap == Gap::Joiner && text[next.gap_range.clone()] == *" ";
        (apostrophe && short && spaced && self.is_variant(&text[next.range.clone()])).then_some(at + 1)
    }

    /// Makes a one-word `hit` the entry it forms with the variant word `variant` after its case
    /// ending, when the data lists the two as one ("Gemini'nin Flash" is "Gemini Flash").
    fn as_entry_with<'l>(&'l self, text: &str, words: &[Word], hit: &mut LexHit<'l>, variant: usize) {
        if hit.words.len() != 1 {
            return;
        }
        let phrase = format!(
            "{} {}",
            &text[words[hit.words.start].range.clone()],
            &text[words[variant].range.clone()]
        );
        let Ok(index) = self.inner.keys.binary_search(&phrase) else { return };
        let info = &self.inner.infos[index];
        hit.kind = &info.kind;
        hit.strength = info.strength;
        hit.provider = info.provider;
        hit.source = super::HitSource::Entry(index);
    }

    /// Extends a vendor hit written together with a version (`moonshot-v1-128k`, `baichuan-13b`:
    /// `-`, `_` or nothing before a number or `v` and a number) over the id, which is then a
    /// model id. Other vendor hits stay as they are.
    pub(super) fn vendor_model_id(&self, folded: &Folded, words: &[Word], hit: &mut LexHit<'_>) {
        let text = folded.as_str();
        let at = hit.words.end;
        let Some(next) = words.get(at) else { return };
        let glued = matches!(&text[next.gap_range.clone()], "" | "-" | "_") && next.gap != Gap::Start;
        let s = &text[next.range.clone()];
        let versioned = next.class == WordClass::Digits
            || (s == "v"
                && words.get(at + 1).is_some_and(|d| d.class == WordClass::Digits && d.gap == Gap::Split));
        let spaced = next.gap == Gap::Joiner && text[next.gap_range.clone()].trim().is_empty();
        if !((glued && versioned) || (spaced && context_size(text, words, at))) {
            return;
        }
        let mut id = hit.clone();
        self.extend_model_id(folded, words, &mut id);
        if id.version {
            *hit = LexHit { kind: &MODEL, ..id };
        }
    }

    /// True when word `w` may follow `@` or `:` in an id: a number or a variant word.
    fn tag_word(&self, text: &str, w: &Word) -> bool {
        w.class == WordClass::Digits
            || (w.class == WordClass::Letters && self.is_variant(&text[w.range.clone()]))
    }
}

/// The highest major version a model line is read with after an ordinary word: no line has come
/// near it, while the numbers of poems and works run far above it.
const HIGHEST_VERSION_AFTER_A_WORD: u32 = 12;

/// True when word `j`, a number written apart after an ordinary word that is identity only in
/// context ("Sonnet 18", "Opus 131", "Сонет 66"), numbers a work rather than a model version: it
/// is above [`HIGHEST_VERSION_AFTER_A_WORD`] and at most three digits (four or more are a release
/// code or a snapshot date: "Sonnet 20250219"), and nothing is glued to it
/// (a size keeps its unit: "Qwen 72B"; a version its point: "Llama 3.3").
fn numbers_a_work(text: &str, words: &[Word], j: usize) -> bool {
    let number = &text[words[j].range.clone()];
    let glued = words.get(j + 1).is_some_and(|w| {
        w.gap == Gap::Split || (w.gap == Gap::Joiner && text[w.gap_range.clone()].contains(['.', '-']))
    });
    number.len() <= 3 && number.parse::<u32>().is_ok_and(|n| n > HIGHEST_VERSION_AFTER_A_WORD) && !glued
}

/// Where an id goes on when the words from `j` on — at most two of letters, written together
/// or across `-` — end in a snapshot or version code of three digits or more, or a dotted
/// version, written the same way (`ocr` `2503` of `mistralOcr2503`, `embedding` `001`, `seed`
/// `1.6` of `doubao-seed-1.6`; "command-line-2" is not one): the end of that number; `None`
/// otherwise.
fn glued_version(text: &str, words: &[Word], j: usize) -> Option<usize> {
    let glued = |w: &Word| matches!(&text[w.gap_range.clone()], "" | "-") && w.gap != Gap::Start;
    (j..words.len().min(j + 3))
        .take_while(|&k| glued(&words[k]))
        .find(|&k| words[k].class == WordClass::Digits)
        .filter(|&k| {
            (words[k].range.len() >= 3 || dotted(text, words, k))
                && words[j..k].iter().all(|w| w.class == WordClass::Letters)
        })
        .map(|k| if dotted(text, words, k) { k + 2 } else { k + 1 })
}

/// True when number word `k` and the number after it are one dotted version ("1.6" in
/// "doubao-seed-1.6").
fn dotted(text: &str, words: &[Word], k: usize) -> bool {
    words.get(k + 1).is_some_and(|w| w.class == WordClass::Digits && text[w.gap_range.clone()] == *".")
}

/// True when the words from `j` are a context-window size written as a model's is: a power of
/// two from 16 to 1024 with `k` right after it (`32k`, `128K`), as in "Moonshot 32k". Other
/// numbers with a `k` (`4K` video, a `10K` filing, `20k` users) are not.
fn context_size(text: &str, words: &[Word], j: usize) -> bool {
    let (Some(n), Some(unit)) = (words.get(j), words.get(j + 1)) else { return false };
    let value: Option<u32> = text[n.range.clone()].parse().ok();
    let ends = words.get(j + 2).is_none_or(|w| w.gap != Gap::Split);
    n.class == WordClass::Digits
        && value.is_some_and(|v| (16..=1024).contains(&v) && v.is_power_of_two())
        && unit.gap == Gap::Split
        && &text[unit.range.clone()] == "k"
        && ends
}

/// True when word `j` is a `p` written between two numbers (`2p5`): a decimal point.
fn decimal_p(text: &str, words: &[Word], j: usize) -> bool {
    let digits = |i: usize| words.get(i).is_some_and(|w| w.class == WordClass::Digits);
    &text[words[j].range.clone()] == "p"
        && words[j].gap == Gap::Split
        && digits(j - 1)
        && digits(j + 1)
        && words[j + 1].gap == Gap::Split
}

/// True when the words of an id, none separated by a space, hold a snapshot date: eight digits
/// `20YYMMDD`, or `20YY` then a two-digit month and day after `-`.
fn dated(text: &str, words: &[Word]) -> bool {
    let s = |w: &Word| &text[w.range.clone()];
    if words.iter().skip(1).any(|w| text[w.gap_range.clone()].contains([' ', '\t'])) {
        return false;
    }
    let year = |w: &Word| w.class == WordClass::Digits && s(w).starts_with("20");
    words.iter().enumerate().any(|(i, w)| {
        (year(w) && s(w).len() == 8)
            || (year(w)
                && s(w).len() == 4
                && words[i + 1..]
                    .iter()
                    .take(2)
                    .filter(|d| d.class == WordClass::Digits && s(d).len() == 2)
                    .count()
                    == 2)
    })
}

/// Where a parameter count starting at the number `j` ends: the number with a `b` (billions)
/// written right after it (`70B`, `1.5b` is read as `1`, `5b`).
fn parameter_count(text: &str, words: &[Word], j: usize) -> Option<usize> {
    let unit = words.get(j + 1)?;
    let attached = unit.class == WordClass::Letters && text[unit.gap_range.clone()].is_empty();
    (attached && text[unit.range.clone()].eq_ignore_ascii_case("b")).then_some(j + 2)
}
