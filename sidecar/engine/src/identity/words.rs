//! Whole-word, case-insensitive multi-pattern matching (Aho-Corasick), shared by the lexicon and
//! the leak scan so that what is rewritten and what is counted agree.
//!
//! A word is a whole token: a pattern such as `m-large-2` matches when the characters on both
//! sides are not letters, digits or `_`, and it is not followed by `.` + digit (so `m-large-2`
//! does not match inside `m-large-2.5`). Hyphens are boundaries: `frontier` is a whole word in
//! `frontier-tier`. ASCII letters compare case-insensitively.
//!
//! Scripts written without spaces (Han, kana, Hangul) have no word boundaries to look for: next
//! to such a character every position is a boundary, so `efficient` is a whole word in
//! `efficient级模型` and `旗舰` in `旗舰级`, while `pro` stays inside `proactive`.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::borrow::Cow;

/// One whole-word occurrence: byte range and index of the pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordHit {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// Index of the pattern that matched.
    pub pattern: usize,
}

/// A compiled set of words (built once, used for every frame).
#[derive(Debug, Clone, Default)]
pub struct WordMatcher {
    ac: Option<AhoCorasick>,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// True for characters of scripts written without spaces between words (CJK ideographs, kana,
/// Hangul, Bopomofo): a word boundary lies on either side of each of them.
pub fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{2FDF}'      // CJK radicals, Kangxi radicals
        | '\u{3005}'..='\u{3007}'    // iteration mark, closing mark, ideographic zero
        | '\u{3040}'..='\u{30FF}'    // Hiragana, Katakana
        | '\u{3100}'..='\u{312F}'    // Bopomofo
        | '\u{3130}'..='\u{318F}'    // Hangul compatibility jamo
        | '\u{31F0}'..='\u{31FF}'    // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'    // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'    // CJK unified ideographs
        | '\u{AC00}'..='\u{D7AF}'    // Hangul syllables
        | '\u{F900}'..='\u{FAFF}'    // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'    // halfwidth Katakana
        | '\u{20000}'..='\u{3FFFF}') // CJK extensions B and later
}

/// True when a word boundary lies between `before` and `after` (`None` = start or end of text).
fn boundary(before: Option<char>, after: Option<char>) -> bool {
    match (before, after) {
        (Some(b), Some(a)) => !is_word_char(b) || !is_word_char(a) || is_unspaced(b) || is_unspaced(a),
        _ => true,
    }
}

/// Normalises a candidate word: trims surrounding punctuation and whitespace; `None` when fewer
/// than two characters remain or nothing alphanumeric is left.
pub fn normalize_word(word: &str) -> Option<String> {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    (w.chars().count() >= 2 && w.chars().any(char::is_alphanumeric)).then(|| w.to_lowercase())
}

impl WordMatcher {
    /// Compiles `patterns` (already normalised; empty slice gives a matcher that never matches).
    pub fn new<P: AsRef<str>>(patterns: &[P]) -> Self {
        if patterns.is_empty() {
            return Self { ac: None };
        }
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(patterns.iter().map(|p| p.as_ref().as_bytes()))
            .ok();
        Self { ac }
    }

    /// Whole-word occurrences, leftmost first, longest at each position, never overlapping.
    pub fn find(&self, text: &str) -> Vec<WordHit> {
        let Some(ac) = &self.ac else { return Vec::new() };
        let mut hits: Vec<WordHit> = ac
            .find_overlapping_iter(text)
            .filter(|m| whole_word(text, m.start(), m.end()))
            .map(|m| WordHit { start: m.start(), end: m.end(), pattern: m.pattern().as_usize() })
            .collect();
        if hits.is_empty() {
            return hits;
        }
        hits.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut out = Vec::with_capacity(hits.len());
        let mut last_end = 0;
        for h in hits {
            if h.start >= last_end {
                last_end = h.end;
                out.push(h);
            }
        }
        out
    }

    /// Number of whole-word occurrences.
    pub fn count(&self, text: &str) -> usize {
        self.find(text).len()
    }

    /// True when at least one whole-word occurrence exists.
    pub fn any(&self, text: &str) -> bool {
        let Some(ac) = &self.ac else { return false };
        ac.find_overlapping_iter(text).any(|m| whole_word(text, m.start(), m.end()))
    }
}

/// Folds characters that can hide a word from a matcher without changing how it reads: removes
/// invisible format characters (zero-width spaces and joiners, soft hyphen, BOM), maps Unicode
/// dashes to `-` and fullwidth ASCII to ASCII. Borrowed when there is nothing to fold.
pub fn fold_text(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || !text.chars().any(|c| fold_char(c) != Some(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter_map(fold_char).collect())
}

fn fold_char(c: char) -> Option<char> {
    match c {
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' => None,
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE63}' => Some('-'),
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0),
        '\u{3000}' => Some(' '),
        other => Some(other),
    }
}

fn whole_word(text: &str, start: usize, end: usize) -> bool {
    // Matches always start/end on pattern boundaries; patterns are UTF-8, but ASCII case folding
    // could in theory land inside a multi-byte character, so check char boundaries first.
    if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return false;
    }
    let word = &text[start..end];
    let before_ok = boundary(text[..start].chars().next_back(), word.chars().next());
    let mut after = text[end..].chars();
    let after_ok = match after.next() {
        Some('.') => !after.next().is_some_and(|c| c.is_ascii_digit()),
        next => boundary(word.chars().next_back(), next),
    };
    before_ok && after_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(m: &WordMatcher, t: &str) -> Vec<String> {
        m.find(t).iter().map(|h| t[h.start..h.end].to_owned()).collect()
    }

    #[test]
    fn whole_words_only_case_insensitive() {
        let m = WordMatcher::new(&["pro", "m-large-2", "m-large"]);
        assert_eq!(spans(&m, "PRO tips, proactive, M-Large-2."), ["PRO", "M-Large-2"]);
        assert_eq!(spans(&m, "m-large-2x, m-large-2.5, m-large"), ["m-large", "m-large", "m-large"]);
        assert_eq!(spans(&m, "pro-forma"), ["pro"]);
    }

    #[test]
    fn longest_wins_and_shorter_found_when_longer_is_not_whole() {
        let m = WordMatcher::new(&["m-large", "m-large-2"]);
        assert_eq!(spans(&m, "m-large-2"), ["m-large-2"]);
        assert_eq!(spans(&m, "m-large-2x"), ["m-large"]);
    }

    #[test]
    fn empty_matcher_never_matches() {
        let m = WordMatcher::new::<&str>(&[]);
        assert!(m.find("anything").is_empty());
        assert!(!m.any("anything"));
    }

    #[test]
    fn folding_reveals_hidden_words() {
        let m = WordMatcher::new(&["m-large-2"]);
        let hidden = "m\u{200B}-large\u{2011}2 and ｍ-large-2";
        assert!(m.find(hidden).is_empty());
        assert_eq!(m.count(&fold_text(hidden)), 2);
        assert!(matches!(fold_text("plain café"), Cow::Borrowed(_)));
    }

    #[test]
    fn unspaced_scripts_bound_words_on_both_sides() {
        let m = WordMatcher::new(&["efficient", "corvid-9", "旗舰", "pro"]);
        assert_eq!(spans(&m, "（efficient级模型）我是corvid-9模型"), ["efficient", "corvid-9"]);
        assert_eq!(spans(&m, "旗舰级，新旗舰"), ["旗舰", "旗舰"]);
        assert_eq!(spans(&m, "proactive 和 pro版"), ["pro"]);
        assert_eq!(spans(&m, "corvid-9x 与 corvid-9.5"), Vec::<String>::new());
        assert_eq!(spans(&m, "efficiently"), Vec::<String>::new());
    }

    #[test]
    fn ideographic_space_folds_to_a_space() {
        assert_eq!(fold_text("tier\u{3000}：efficient"), "tier :efficient");
    }

    #[test]
    fn normalizes_words() {
        assert_eq!(normalize_word("  Acme AI. "), Some("acme ai".to_owned()));
        assert_eq!(normalize_word("x"), None);
        assert_eq!(normalize_word("--"), None);
    }
}
