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
//!   `Arguments`).

use super::{LexHit, Lexicon};
use crate::fold::{Folded, Gap, Word, WordClass};

/// Most words an id takes after its family word.
const MAX_TAIL_WORDS: usize = 10;
/// Most free-form (non-variant) words an id takes.
const MAX_FREE_WORDS: usize = 3;

impl Lexicon {
    /// Extends a family/model hit over the rest of its model id.
    pub(super) fn extend_model_id(&self, folded: &Folded, words: &[Word], hit: &mut LexHit<'_>) {
        let text = folded.as_str();
        let (mut j, mut taken, mut free) = (hit.words.end, 0, 0);
        while j < words.len() && taken < MAX_TAIL_WORDS {
            let w = &words[j];
            if !matches!(w.gap, Gap::Split | Gap::Joiner) {
                break;
            }
            let gap = &text[w.gap_range.clone()];
            let spaced = gap.contains([' ', '\t']);
            let hyphen = !spaced && gap.contains(['-', '.']);
            let prev = &words[j - 1];
            let s = &text[w.range.clone()];
            let next = match w.class {
                // A parameter count after the version ("Llama 3.3 70B", "OLMo 2 32B").
                WordClass::Digits if spaced && prev.class == WordClass::Digits => {
                    parameter_count(text, words, j).inspect(|_| hit.version = true)
                }
                WordClass::Digits => {
                    hit.version = true;
                    Some(j + 1)
                }
                WordClass::Letters => match self.inner.phrases.longest_at(folded, words, j) {
                    Some((end, &index)) if self.inner.infos[index].kind.is_model_like() => Some(end),
                    _ if self.is_variant(s) && !(spaced && s.chars().count() == 1) => {
                        hit.variant = true;
                        Some(j + 1)
                    }
                    _ if hyphen && hit.version && free < MAX_FREE_WORDS => {
                        free += 1;
                        Some(j + 1)
                    }
                    _ => None,
                },
                WordClass::Unspaced => None,
            };
            let Some(next) = next else { break };
            taken += next - j;
            j = next;
        }
        hit.words.end = j;
        hit.end = words[j - 1].range.end;
    }
}

/// Where a parameter count starting at the number `j` ends: the number with a `b` (billions)
/// written right after it (`70B`, `1.5b` is read as `1`, `5b`).
fn parameter_count(text: &str, words: &[Word], j: usize) -> Option<usize> {
    let unit = words.get(j + 1)?;
    let attached = unit.class == WordClass::Letters && text[unit.gap_range.clone()].is_empty();
    (attached && text[unit.range.clone()].eq_ignore_ascii_case("b")).then_some(j + 2)
}
