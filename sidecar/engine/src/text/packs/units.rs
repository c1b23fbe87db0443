//! Text cut into the units the packs match (words of a spaced language, characters of an
//! unspaced one) with their spans and the punctuation between them, and the text cues are read
//! from.

use super::Phrase;
use super::Unit;
use std::borrow::Cow;

/// `text` as cues are read from it: characters the fold would take for letters they are not are
/// blanked, and the German sharp s is `ss` (as Unicode's full case folding writes it), each
/// replaced by ASCII of the same byte length, so offsets into the result are offsets into `text`.
/// (The fold reads `¡` and `¿` as the letter `i` they resemble: right for a name written with
/// look-alikes, wrong for a sentence mark.)
pub fn cue_text(text: &str) -> Cow<'_, str> {
    let reads_as_letter = |c: char| {
        !c.is_alphanumeric()
            && crate::fold::fold_str(c.encode_utf8(&mut [0; 4])).chars().any(char::is_alphanumeric)
    };
    if text.is_ascii() || !text.chars().any(|c| c == '\u{DF}' || (!c.is_ascii() && reads_as_letter(c))) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\u{DF}' {
            out.push_str("ss");
        } else if !c.is_ascii() && reads_as_letter(c) {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `word` with an elided word it starts with (`l'arnaque`) cut off as a word of its own.
pub(super) fn split_elision<'w>(word: &'w str, elisions: &[String]) -> Vec<&'w str> {
    match elisions.iter().find(|e| word.len() > e.len() && word.starts_with(e.as_str())) {
        Some(e) => vec![&word[..e.len()], &word[e.len()..]],
        None => vec![word],
    }
}

/// A segment cut into units (words, or characters for an unspaced language) with their byte
/// spans.
pub(super) struct Units<'t> {
    pub(super) units: Vec<&'t str>,
    pub(super) spans: Vec<(usize, usize)>,
    /// `barriers[i]`: punctuation stands between unit `i - 1` and unit `i` (negation does not
    /// reach across a comma, a dash, a bracket).
    barriers: Vec<bool>,
}

impl<'t> Units<'t> {
    pub(super) fn of(text: &'t str, spaced: bool, elisions: &[String]) -> Self {
        let mut units = Vec::new();
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut barriers = Vec::new();
        let barrier = |from: usize, to: usize| {
            text[from..to]
                .chars()
                .any(|c| c.is_ascii_punctuation() && c != '\'' || "，、；：（）—–«»「」『』".contains(c))
        };
        if spaced {
            let word = |c: char| c.is_alphanumeric() || c == '\'' || c == '-' || c == '_';
            let mut start = None;
            for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
                match (word(c), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        let w = text[s..i].trim_matches(|c| c == '\'' || c == '-');
                        if !w.is_empty() {
                            let mut off = s + text[s..i].find(w).unwrap_or(0);
                            for part in split_elision(w, elisions) {
                                let prev = spans.last().map_or(0, |&(_, e)| e);
                                barriers.push(barrier(prev, off));
                                units.push(part);
                                spans.push((off, off + part.len()));
                                off += part.len();
                            }
                        }
                        start = None;
                    }
                    _ => {}
                }
            }
        } else {
            let mut pending = false;
            for (i, c) in text.char_indices() {
                if c.is_whitespace() {
                    continue;
                }
                if !c.is_alphanumeric() {
                    pending = true;
                    continue;
                }
                barriers.push(std::mem::take(&mut pending));
                units.push(&text[i..i + c.len_utf8()]);
                spans.push((i, i + c.len_utf8()));
            }
        }
        Units { units, spans, barriers }
    }

    /// True when punctuation stands anywhere between unit `from` and unit `to` (`from <= to`).
    pub(super) fn blocked(&self, from: usize, to: usize) -> bool {
        (from + 1..=to).any(|i| self.barriers.get(i).copied().unwrap_or(false))
    }

    /// Every `(start, end)` unit range where `p` matches.
    pub(super) fn find(&self, p: &Phrase) -> Vec<(usize, usize)> {
        let n = p.units.len();
        if n == 0 || n > self.units.len() {
            return Vec::new();
        }
        let last = if p.anchored { 0 } else { self.units.len() - n };
        let first = if p.closed { self.units.len() - n } else { 0 };
        (first..=last)
            .filter(|&s| {
                p.units.iter().zip(&self.units[s..s + n]).all(|(u, w)| match u {
                    Unit::Exact(e) => e == w,
                    Unit::Stem(stem) => w.starts_with(stem.as_str()),
                    Unit::Any => true,
                })
            })
            .map(|s| (s, s + n))
            .collect()
    }
}
