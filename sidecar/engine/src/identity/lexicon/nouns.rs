//! The lexicon's context words: identity nouns before and after an ordinary word, linkers,
//! model-id variant words, and the role nouns of self-descriptions.

use super::Lexicon;
use crate::fold::{Folded, Gap, Word};

impl Lexicon {
    /// True when an identity noun phrase (e.g. "model", "tier") starts at word `at`.
    pub(crate) fn noun_after(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        self.inner.nouns_after.longest_at(folded, words, at).is_some()
    }

    /// True when an identity noun phrase ends right before word `at`.
    pub(crate) fn noun_before(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        (at.saturating_sub(3)..at)
            .any(|s| self.inner.nouns_before.longest_at(folded, words, s).is_some_and(|(end, _)| end == at))
    }

    /// True when the folded `word` is one of the data's `nouns_after`.
    pub(crate) fn is_noun_word(&self, word: &str) -> bool {
        self.inner.noun_words.contains(word)
    }

    /// The end of the linker phrase starting at word `at` (see the data's `linkers`), if any.
    pub(crate) fn linker_at(&self, folded: &Folded, words: &[Word], at: usize) -> Option<usize> {
        self.inner.linkers.longest_at(folded, words, at).map(|(end, _)| end)
    }

    /// True when a role noun of self-descriptions (`[context] profile_nouns`: "reviewer",
    /// "helper", …) starts at word `at`.
    pub(crate) fn profile_noun_after(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        self.inner.profile_nouns.longest_at(folded, words, at).is_some()
    }

    /// True when a determiner of `[context] name_determiners` ends right before word `at`.
    pub(crate) fn determiner_before(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        (at.saturating_sub(2)..at).any(|s| {
            self.inner.name_determiners.longest_at(folded, words, s).is_some_and(|(end, _)| end == at)
        })
    }

    /// True when a phrase of `[context] self_names_before` ("I'm", "Sono") ends right before
    /// word `at`, across spaces and a dash ("Я — Клод"); matched on the folded text, so a
    /// contraction counts ("I'm").
    pub(crate) fn self_name_before(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        let Some(w) = words.get(at) else { return false };
        let text = folded.as_str();
        let head = text[..w.range.start].trim_end_matches([' ', '\t', '\u{2014}', '\u{2013}', '-']);
        self.inner.self_names_before.iter().any(|cue| {
            head.strip_suffix(cue.as_str())
                .is_some_and(|before| before.chars().next_back().is_none_or(|c| !c.is_alphanumeric()))
        })
    }

    /// True when a word of `[context] self_names_after` ("here") starts at word `at`.
    pub(crate) fn self_name_after(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        self.inner.self_names_after.longest_at(folded, words, at).is_some()
    }

    /// True when a word of `[context] vendor_identifier_after` starts at word `at` in the same
    /// identifier as the word before it (joined without a space: `GOOGLE_API_KEY`).
    pub(crate) fn vendor_identifier_after(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        let joined = words.get(at).is_some_and(|w| {
            let gap = &folded.as_str()[w.gap_range.clone()];
            w.gap != Gap::Start && matches!(gap, "" | "_" | "." | "-")
        });
        joined && self.inner.vendor_identifier_after.longest_at(folded, words, at).is_some()
    }

    /// The word after a `[context] name_suffixes` word joined by a hyphen at word `at`
    /// (`-based`, `-powered`), if one stands there.
    pub(crate) fn name_suffix_at(&self, folded: &Folded, words: &[Word], at: usize) -> Option<usize> {
        let hyphen = words.get(at).is_some_and(|w| folded.as_str()[w.gap_range.clone()] == *"-");
        if !hyphen {
            return None;
        }
        self.inner.name_suffixes.longest_at(folded, words, at).map(|(end, _)| end)
    }

    /// True when a role of `[context] name_roles` starts at word `at`.
    pub(crate) fn name_role_after(&self, folded: &Folded, words: &[Word], at: usize) -> bool {
        self.inner.name_roles.longest_at(folded, words, at).is_some()
    }

    /// The end of the size word (`[context] size_words`) starting at word `at`, if any.
    pub(crate) fn size_word_at(&self, folded: &Folded, words: &[Word], at: usize) -> Option<usize> {
        if at >= words.len() {
            return None;
        }
        self.inner.size_words.longest_at(folded, words, at).map(|(end, _)| end)
    }

    /// True when a key of structured data (`model`, `engineName`, `llm_vendor`) has a word of
    /// the data's `identity_keys`: its value names identity.
    pub(crate) fn is_identity_key(&self, key: &str) -> bool {
        let folded = crate::fold::fold(key);
        let words = folded.words();
        (0..words.len()).any(|i| self.inner.identity_keys.longest_at(&folded, &words, i).is_some())
    }

    /// True when `word` (folded) is a model-id variant word.
    pub(crate) fn is_variant(&self, word: &str) -> bool {
        self.inner.variants.contains(word) || self.inner.script_variants.contains(word)
    }

    /// True when `word` (folded) is a variant word of another script written with spaces
    /// (`[variants] scripts`: "Медиум").
    pub(crate) fn is_script_variant(&self, word: &str) -> bool {
        self.inner.script_variants.contains(word)
    }
}
