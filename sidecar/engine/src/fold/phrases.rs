//! Whole-word phrase matching over folded words: a trie of word sequences.
//!
//! A phrase is folded and split into words like the text ([`super::fold`], [`Folded::words`]),
//! so its spelling as an identifier does not matter: `Claude Opus`, `claude-opus`,
//! `claude_opus` and `ClaudeOpus` are the same phrase. A phrase whose letter words are written
//! together in the text (`deepseek` for `Deep Seek`) matches too: each run of letter words of a
//! phrase is also entered joined. Inside a match, words are separated by a [`Gap::Split`] or a
//! [`Gap::Joiner`], never a [`Gap::Break`]. A phrase that ends in a number does not match inside a
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

#[derive(Debug, Clone, Default)]
struct Node {
    next: HashMap<Box<str>, usize>,
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
        for w in words {
            at = match self.nodes[at].next.get(*w) {
                Some(&n) => n,
                None => {
                    self.nodes.push(Node::default());
                    let n = self.nodes.len() - 1;
                    self.nodes[at].next.insert((*w).into(), n);
                    n
                }
            };
        }
        self.nodes[at].value = Some(value);
    }

    /// The longest phrase starting at word `start` of `words` (found in `folded`): the end (one
    /// past its last word) and its value.
    pub fn longest_at(&self, folded: &Folded, words: &[Word], start: usize) -> Option<(usize, &T)> {
        let text = folded.as_str();
        let mut node = 0;
        let mut best = None;
        for (i, w) in words.iter().enumerate().skip(start) {
            if i > start && w.gap == Gap::Break {
                break;
            }
            let Some(&n) = self.nodes[node].next.get(&text[w.range.clone()]) else { break };
            node = n;
            if let Some(v) = self.nodes[node].value
                && !number_continues(text, words, i)
            {
                best = Some((i + 1, &self.values[v]));
            }
        }
        best
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
