//! One folding step before every match (identity words, refusal cues, instruction-like text):
//! text is folded for matching only, and every span found in the folded text maps back to a span
//! of the original, so a rewrite replaces original bytes and leaves the rest as it was.
//!
//! - [`fold`] gives the folded text (NFKC-style compatibility forms, lower case, the UTS #39
//!   confusables prototype outside ASCII, default-ignorable characters and decorative combining
//!   marks removed; see the `chars` module) with its map back ([`Folded::source_span`]).
//! - [`Folded::words`] splits it into words the way identifiers are read: at spaces and
//!   punctuation, at `_`, between letters and digits and at camelCase humps
//!   (`ask_claude_opus_4Arguments` → `ask claude opus 4 arguments`); every character of a script
//!   written without spaces (Han, kana, Hangul) is a word of its own.
//! - [`PhraseSet`] finds whole-word phrases in those words (a phrase is folded and split the same
//!   way, so `Claude Opus`, `claude-opus` and `ClaudeOpus` are one phrase), leftmost-longest.
//!
//! A detector that knows nothing of identity uses it the same way: fold the text, match folded
//! patterns (fold cue words with [`fold_str`] or put them in a [`PhraseSet`]), map hits back.
//! ```
//! use blindfold_engine::fold::{PhraseSet, fold};
//!
//! let mut cues = PhraseSet::new();
//! cues.insert("do not run", "refusal");
//! let text = "P\u{200B}lease D\u{43E} not\u{00A0}run it";
//! let folded = fold(text);
//! let words = folded.words();
//! let hit = &cues.find(&folded, &words)[0];
//! assert_eq!(*hit.value, "refusal");
//! assert_eq!(&text[folded.words_span(&words, hit.words.clone())], "D\u{43E} not\u{00A0}run");
//! ```

mod chars;
mod digits;
mod disguise;
mod phrases;
mod words;

pub use chars::{is_default_ignorable, marks_are_decoration, small_capital};
pub use digits::digits_as_letters;
pub use disguise::disguised;
pub use phrases::{PhraseHit, PhraseSet};
pub use words::{Gap, Word, WordClass, is_unspaced};

use chars::{Carry, Out, fold_char};
use std::ops::Range;

/// Text folded for matching, with the map back to the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    text: String,
    /// Per byte of `text`: the source range of the character it came from. Empty when the fold
    /// kept every byte in place (ASCII input): then folded and source offsets are the same.
    map: Vec<(u32, u32)>,
    /// Per byte of `text`: the source character was upper-case.
    upper: Vec<bool>,
    source_len: usize,
}

/// Folds `text` for matching (see the module docs). Cheap for ASCII: only lower-cased.
pub fn fold(text: &str) -> Folded {
    if text.is_ascii() {
        return Folded {
            text: text.to_ascii_lowercase(),
            map: Vec::new(),
            upper: text.bytes().map(|b| b.is_ascii_uppercase()).collect(),
            source_len: text.len(),
        };
    }
    let mut folded = String::with_capacity(text.len());
    let mut map: Vec<(u32, u32)> = Vec::with_capacity(text.len());
    let mut upper = Vec::with_capacity(text.len());
    let mut carry = Carry::default();
    let mut out: Vec<Out> = Vec::with_capacity(4);
    for (at, c) in text.char_indices() {
        let (start, end) = (at as u32, (at + c.len_utf8()) as u32);
        out.clear();
        // A mark composed into the previous character changes that character in place.
        let last = folded.chars().next_back();
        if let Some(prev) = last {
            out.push(Out { ch: prev, upper: upper.last().copied().unwrap_or(false) });
        }
        let before = out.len();
        fold_char(c, &mut carry, &mut out);
        let composed = last.is_some() && out.first().map(|o| o.ch) != last;
        if composed {
            let prev_len = last.map_or(0, char::len_utf8);
            let prev_src = map[map.len() - prev_len].0;
            folded.truncate(folded.len() - prev_len);
            map.truncate(map.len() - prev_len);
            upper.truncate(upper.len() - prev_len);
            push_out(&mut folded, &mut map, &mut upper, out[0], (prev_src, end));
        }
        if out.len() == before && !composed {
            // Removed: the original character belongs to the span of the one before it.
            if let Some(last) = map.last().map(|m| m.0) {
                let n = last_char_len(&folded);
                for m in map.iter_mut().rev().take(n) {
                    *m = (last, end);
                }
            }
            continue;
        }
        for o in &out[before..] {
            push_out(&mut folded, &mut map, &mut upper, *o, (start, end));
        }
    }
    Folded { text: folded, map, upper, source_len: text.len() }
}

/// The folded form of `text` alone (for patterns and cue words compared with folded text).
pub fn fold_str(text: &str) -> String {
    fold(text).text
}

fn push_out(text: &mut String, map: &mut Vec<(u32, u32)>, upper: &mut Vec<bool>, o: Out, src: (u32, u32)) {
    text.push(o.ch);
    map.extend(std::iter::repeat_n(src, o.ch.len_utf8()));
    upper.extend(std::iter::repeat_n(o.upper, o.ch.len_utf8()));
}

fn last_char_len(s: &str) -> usize {
    s.chars().next_back().map_or(0, char::len_utf8)
}

impl Folded {
    /// The folded text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Length of the original text in bytes.
    pub fn source_len(&self) -> usize {
        self.source_len
    }

    /// The span of the original that the folded byte range `folded` came from: from the start of
    /// the character its first byte came from to the end of the one its last byte came from
    /// (including removed characters such as marks and invisible characters that followed it).
    /// An empty range maps to an empty range at the corresponding position.
    pub fn source_span(&self, folded: Range<usize>) -> Range<usize> {
        if self.map.is_empty() {
            return folded;
        }
        if folded.start >= self.text.len() {
            return self.source_len..self.source_len;
        }
        let start = self.map[folded.start].0 as usize;
        if folded.end <= folded.start {
            return start..start;
        }
        start..self.map[folded.end - 1].1 as usize
    }

    /// The original span covering the words `range` of `words` (from [`Folded::words`]).
    pub fn words_span(&self, words: &[Word], range: Range<usize>) -> Range<usize> {
        match (words.get(range.start), range.end.checked_sub(1).and_then(|i| words.get(i))) {
            (Some(first), Some(last)) if range.end > range.start => {
                self.source_span(first.range.start..last.range.end)
            }
            _ => 0..0,
        }
    }

    /// True when the character at folded byte `at` came from an upper-case character.
    pub(crate) fn upper_at(&self, at: usize) -> bool {
        self.upper.get(at).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests;
