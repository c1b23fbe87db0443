//! Identifier-aware word splitting of folded text.
//!
//! Words are runs of letters and digits. A run is split between letters and digits (`gpt5` →
//! `gpt 5`, `70b` → `70 b`), where a lower-case letter meets an upper-case one in the original
//! (`askClaude` → `ask claude`) and before the last capital of a run of capitals followed by two
//! lower-case letters (`GPTModel` → `gpt model`, while `GPTs` stays one word). `_` separates like
//! a space. Every character of a script written without spaces is a word of its own. What lies
//! between two words is a [`Gap`].

use super::Folded;
use std::ops::Range;

/// What kind of characters a word is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordClass {
    /// Letters (and the marks kept on them).
    Letters,
    /// Digits.
    Digits,
    /// One character of a script written without spaces (Han, kana, Hangul, Bopomofo).
    Unspaced,
}

/// What separates a word from the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// The first word of the text.
    Start,
    /// Nothing: an identifier split (`claudeOpus`, `gpt5`) or a neighbouring unspaced character.
    Split,
    /// A short in-name separator: up to three of space, tab, `-`, `_`, `.`, with at most one `.`
    /// and no `.` right before a space (`claude opus`, `gpt-4.1`, `ask_claude`).
    Joiner,
    /// Anything else: punctuation, a line break, a sentence end, a long run of separators.
    Break,
}

/// One word of a folded text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Byte range in the folded text.
    pub range: Range<usize>,
    /// What it is made of.
    pub class: WordClass,
    /// What separates it from the previous word.
    pub gap: Gap,
    /// Byte range of the separator before it in the folded text (empty for `Start`/`Split`).
    pub gap_range: Range<usize>,
}

/// True for characters of scripts written without spaces between words (CJK ideographs, kana,
/// Hangul, Bopomofo): a word boundary lies on either side of each of them. (The katakana middle
/// dot `・` is one of them but splits words as punctuation does.)
pub fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11FF}'      // Hangul jamo
        | '\u{2E80}'..='\u{2FDF}'    // CJK radicals, Kangxi radicals
        | '\u{3005}'..='\u{3007}'    // iteration mark, closing mark, ideographic zero
        | '\u{3040}'..='\u{30FF}'    // Hiragana, Katakana
        | '\u{3100}'..='\u{312F}'    // Bopomofo
        | '\u{3130}'..='\u{318F}'    // Hangul compatibility jamo
        | '\u{31F0}'..='\u{31FF}'    // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'    // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'    // CJK unified ideographs
        | '\u{A960}'..='\u{A97F}'    // Hangul jamo extended A
        | '\u{AC00}'..='\u{D7FF}'    // Hangul syllables, jamo extended B
        | '\u{F900}'..='\u{FAFF}'    // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'    // halfwidth Katakana
        | '\u{20000}'..='\u{3FFFF}') // CJK extensions B and later
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Letter,
    Digit,
    Unspaced,
    Mark,
    Other,
}

fn kind(c: char) -> Kind {
    // The katakana middle dot separates the parts of a name ("クロード・ソネット"): punctuation.
    if c == '\u{30FB}' {
        Kind::Other
    } else if is_unspaced(c) {
        Kind::Unspaced
    } else if c.is_numeric() {
        Kind::Digit
    } else if c.is_alphabetic() {
        Kind::Letter
    } else if unicode_normalization::char::is_combining_mark(c) {
        Kind::Mark
    } else {
        Kind::Other
    }
}

fn gap_kind(sep: &str) -> Gap {
    let n = sep.chars().count();
    let dots = sep.matches('.').count();
    let joiners = sep.chars().all(|c| matches!(c, ' ' | '\t' | '-' | '_' | '.'));
    let sentence_end = sep.contains(". ") || sep.contains(".\t");
    if joiners && n <= 3 && dots <= 1 && !sentence_end { Gap::Joiner } else { Gap::Break }
}

impl Folded {
    /// The words of the folded text, in order (see the module docs of `fold::words`).
    pub fn words(&self) -> Vec<Word> {
        let text = self.as_str();
        let mut words: Vec<Word> = Vec::new();
        let mut cur: Option<(usize, Kind)> = None;
        let mut last_end = 0;
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let push = |words: &mut Vec<Word>, range: Range<usize>, k: Kind, last_end: &mut usize| {
            let class = match k {
                Kind::Digit => WordClass::Digits,
                Kind::Unspaced => WordClass::Unspaced,
                _ => WordClass::Letters,
            };
            let gap_range = *last_end..range.start;
            let gap = if words.is_empty() {
                Gap::Start
            } else if gap_range.is_empty() {
                Gap::Split
            } else {
                gap_kind(&text[gap_range.clone()])
            };
            *last_end = range.end;
            words.push(Word { range, class, gap, gap_range });
        };
        for (i, &(at, c)) in chars.iter().enumerate() {
            let k = kind(c);
            match (cur, k) {
                (Some(_), Kind::Mark) => continue,
                (_, Kind::Other) | (None, Kind::Mark) => {
                    if let Some((s, ck)) = cur.take() {
                        push(&mut words, s..at, ck, &mut last_end);
                    }
                }
                (Some((s, ck)), _) => {
                    if ck == Kind::Unspaced || k == Kind::Unspaced || ck != k || self.hump(&chars, i) {
                        push(&mut words, s..at, ck, &mut last_end);
                        cur = Some((at, k));
                    }
                }
                (None, _) => cur = Some((at, k)),
            }
        }
        if let Some((s, ck)) = cur {
            push(&mut words, s..text.len(), ck, &mut last_end);
        }
        words
    }

    /// True when a camelCase boundary lies before character `i` (both neighbours are letters).
    fn hump(&self, chars: &[(usize, char)], i: usize) -> bool {
        let up = |j: usize| chars.get(j).is_some_and(|&(at, c)| c.is_alphabetic() && self.upper_at(at));
        let low = |j: usize| chars.get(j).is_some_and(|&(at, c)| c.is_alphabetic() && !self.upper_at(at));
        (low(i - 1) && up(i)) || (up(i - 1) && up(i) && low(i + 1) && low(i + 2))
    }
}
