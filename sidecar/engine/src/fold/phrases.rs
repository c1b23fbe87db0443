//! Whole-word phrase matching over folded words: a trie of word sequences.
//!
//! A phrase is folded and split into words like the text ([`super::fold`], [`Folded::words`]),
//! so its spelling as an identifier does not matter: `Claude Opus`, `claude-opus`,
//! `claude_opus` and `ClaudeOpus` are the same phrase. A phrase whose letter words are written
//! together in the text (`deepseek` for `Deep Seek`) matches too: each run of letter words of a
//! phrase is also entered joined; and a word of the text cut by identifier splitting is read on
//! across the cut (`ClAuDe` is `claude`). Inside a match, words are separated by a
//! [`Gap::Split`] or a [`Gap::Joiner`], never a [`Gap::Break`]; a match starts and ends where
//! words of the text do (`mini` is not found in `minimum`). A phrase that ends in a number does not match inside a
//! longer dotted number (`v-2` is not found in `v-2.5`).

use super::{Folded, Gap, Word, WordClass, fold};
use std::collections::HashMap;
use std::ops::Range;

/// A set of phrases, each with a value, matched leftmost-longest over folded words.
#[derive(Debug, Clone)]
pub struct PhraseSet<T> {
    nodes: Vec<Node>,
    values: Vec<T>,
}

/// A trie node over characters; `boundary` is the edge taken between two words of a phrase.
#[derive(Debug, Clone, Default)]
struct Node {
    next: HashMap<char, usize>,
    boundary: Option<usize>,
    value: Option<usize>,
}

/// One phrase found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhraseHit<'s, T> {
    /// The words it covers (indices into the words it was found in).
    pub words: Range<usize>,
    /// The value the phrase was entered with.
    pub value: &'s T,
}

impl<T> Default for PhraseSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> PhraseSet<T> {
    /// An empty set.
    pub fn new() -> Self {
        Self { nodes: vec![Node::default()], values: Vec::new() }
    }

    /// Number of phrases entered.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when no phrase was entered.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Enters `phrase` with `value` (a phrase entered again gets the new value); false when the
    /// phrase has no word in it.
    pub fn insert(&mut self, phrase: &str, value: T) -> bool {
        let folded = fold(phrase);
        let words = folded.words();
        if words.is_empty() {
            return false;
        }
        let text = folded.as_str();
        let split: Vec<&str> = words.iter().map(|w| &text[w.range.clone()]).collect();
        let joined = join_letter_runs(text, &words);
        let index = self.values.len();
        self.values.push(value);
        self.enter(&split, index);
        if joined.len() != split.len() {
            let joined: Vec<&str> = joined.iter().map(String::as_str).collect();
            self.enter(&joined, index);
        }
        true
    }

    fn enter(&mut self, words: &[&str], value: usize) {
        let mut at = 0;
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                at = self.child(at, None);
            }
            for c in w.chars() {
                at = self.child(at, Some(c));
            }
        }
        self.nodes[at].value = Some(value);
    }

    /// The node after `edge` (a character, or the word boundary) from `at`, created if missing.
    fn child(&mut self, at: usize, edge: Option<char>) -> usize {
        let existing = match edge {
            Some(c) => self.nodes[at].next.get(&c).copied(),
            None => self.nodes[at].boundary,
        };
        if let Some(n) = existing {
            return n;
        }
        self.nodes.push(Node::default());
        let n = self.nodes.len() - 1;
        match edge {
            Some(c) => {
                self.nodes[at].next.insert(c, n);
            }
            None => self.nodes[at].boundary = Some(n),
        }
        n
    }

    /// The longest phrase starting at word `start` of `words` (found in `folded`): the end (one
    /// past its last word) and its value. A phrase ends where a word of the text ends; across an
    /// identifier split (`ClAuDe`, `GPT5`) its letters may run on into the next word.
    pub fn longest_at(&self, folded: &Folded, words: &[Word], start: usize) -> Option<(usize, &T)> {
        let mut best: Option<(usize, usize)> = None;
        self.walk(folded.as_str(), words, 0, start, &mut best);
        best.map(|(end, v)| (end, &self.values[v]))
    }

    /// Consumes word `wi` from `node`, records a phrase ending with it, and goes on into the next.
    fn walk(
        &self,
        text: &str,
        words: &[Word],
        mut node: usize,
        wi: usize,
        best: &mut Option<(usize, usize)>,
    ) {
        for c in text[words[wi].range.clone()].chars() {
            match self.nodes[node].next.get(&c) {
                Some(&n) => node = n,
                None => return,
            }
        }
        if let Some(v) = self.nodes[node].value
            && !number_continues(text, words, wi)
            && best.is_none_or(|(end, _)| wi + 1 > end)
        {
            *best = Some((wi + 1, v));
        }
        let Some(next) = words.get(wi + 1) else { return };
        if next.gap == Gap::Split {
            self.walk(text, words, node, wi + 1, best);
        }
        if matches!(next.gap, Gap::Split | Gap::Joiner)
            && let Some(b) = self.nodes[node].boundary
        {
            self.walk(text, words, b, wi + 1, best);
        }
    }

    /// Every phrase in `words`, leftmost first, longest at each position, never overlapping.
    pub fn find(&self, folded: &Folded, words: &[Word]) -> Vec<PhraseHit<'_, T>> {
        let mut hits = Vec::new();
        let mut i = 0;
        while i < words.len() {
            match self.longest_at(folded, words, i) {
                Some((end, value)) => {
                    hits.push(PhraseHit { words: i..end, value });
                    i = end;
                }
                None => i += 1,
            }
        }
        hits
    }

    /// Every phrase in `text` (folded on the way) as spans of `text`, with their values.
    pub fn find_text(&self, text: &str) -> Vec<(Range<usize>, &T)> {
        let folded = fold(text);
        let words = folded.words();
        self.find(&folded, &words)
            .into_iter()
            .map(|h| (folded.words_span(&words, h.words), h.value))
            .collect()
    }
}

/// A phrase ending in digits at word `i` is cut short when a `.` and more digits follow.
fn number_continues(text: &str, words: &[Word], i: usize) -> bool {
    let (w, next) = (&words[i], words.get(i + 1));
    w.class == WordClass::Digits
        && next.is_some_and(|n| n.class == WordClass::Digits && &text[n.gap_range.clone()] == ".")
}

/// The words of a phrase with every run of two or more letter words (separated by a split or a
/// joiner) written together.
fn join_letter_runs(text: &str, words: &[Word]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut prev_letters = false;
    for w in words {
        let s = &text[w.range.clone()];
        let letters = w.class == WordClass::Letters;
        match out.last_mut() {
            Some(last) if letters && prev_letters && w.gap != Gap::Break => last.push_str(s),
            _ => out.push(s.to_owned()),
        }
        prev_letters = letters;
    }
    out
}
