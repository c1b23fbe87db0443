//! Finding lexicon words in a folded text: [`LexHit`]s, leftmost-longest, a family or model word
//! extended over its model id, and the shapes that name a model by where they stand (`shapes`).

use super::{Lexicon, Strength, WordKind, model_id, shapes};
use crate::fold::{Folded, Word};

/// One lexicon occurrence in a folded text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexHit<'l> {
    /// Byte offset of the first byte in the folded text.
    pub start: usize,
    /// Byte offset one past the last byte in the folded text.
    pub end: usize,
    /// The words covered (indices into the words it was found in).
    pub words: std::ops::Range<usize>,
    /// What the word stands for.
    pub kind: &'l WordKind,
    /// Where it is identity in free text.
    pub strength: Strength,
    /// The hit is a model id with a version (digits) in it.
    pub version: bool,
    /// The hit is a model id with a variant word after its family.
    pub variant: bool,
    /// One of those variant words is written in another script (`[variants] scripts`: "미스트랄
    /// 라지", "ミストラル・ラージ"): a loanword that names nothing else after a family name, so the
    /// id counts as one with a version does.
    pub script_variant: bool,
    /// The word came from a configured or displayed identity (not only the built-in data).
    pub own: bool,
    /// The model id carries a snapshot date (`o1-2024-12-17`, `…@20241022`).
    pub dated: bool,
    /// The data's provider the word belongs to, if any (a family and a vendor of the same
    /// provider side by side are an identity statement: "Grok (xAI)").
    pub provider: Option<u32>,
    /// What the hit is: a lexicon word, or a shape that names a model only by where it stands.
    pub source: HitSource,
}

/// What a [`LexHit`] was found as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitSource {
    /// A word of the lexicon (its index among the lexicon's words).
    Entry(usize),
    /// A parameter count standing alone (`70B`, `1.5b`, `8x7B`, `350M`): a model's name only in
    /// identity context ("the 70B variant", "a 8B model"); "a 405B-row table" is prose.
    Size,
    /// A short code of letters and digits in parentheses right after a model id (`… (R1)`):
    /// the model's other name, identity when the id before it is.
    Code,
}

/// A hit for a shape of `words` (a parameter count, a code in parentheses): a model's name
/// wherever identity context makes it one.
fn shape_hit(words: &[Word], range: std::ops::Range<usize>, source: HitSource) -> LexHit<'static> {
    LexHit {
        start: words[range.start].range.start,
        end: words[range.end - 1].range.end,
        words: range,
        kind: &model_id::MODEL,
        strength: Strength::InContext,
        version: false,
        variant: false,
        script_variant: false,
        own: false,
        dated: false,
        provider: None,
        source,
    }
}

impl Lexicon {
    /// Every lexicon word in `folded` (whose words are `words`), leftmost-longest, never
    /// overlapping; a family or model word extended over the rest of its model id.
    pub fn hits(&self, folded: &Folded, words: &[Word]) -> Vec<LexHit<'_>> {
        let mut hits = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let Some((end, &index)) = self.inner.phrases.longest_at(folded, words, i) else {
                match shapes::parameter_count_at(folded.as_str(), words, i) {
                    Some(end) => {
                        hits.push(shape_hit(words, i..end, HitSource::Size));
                        i = end;
                    }
                    None => i += 1,
                }
                continue;
            };
            let info = &self.inner.infos[index];
            let mut hit = LexHit {
                start: words[i].range.start,
                end: words[end - 1].range.end,
                words: i..end,
                kind: &info.kind,
                strength: info.strength,
                version: false,
                variant: false,
                script_variant: false,
                own: info.own,
                dated: false,
                provider: info.provider,
                source: HitSource::Entry(index),
            };
            if info.kind.is_model_like() {
                self.extend_model_id(folded, words, &mut hit);
            } else if info.kind == WordKind::Provider {
                self.vendor_model_id(folded, words, &mut hit);
            }
            let code =
                hit.kind.is_model_like().then(|| self.paren_code(folded, words, hit.words.end)).flatten();
            i = hit.words.end;
            hits.push(hit);
            if let Some(end) = code {
                hits.push(shape_hit(words, i..end, HitSource::Code));
                i = end;
            }
        }
        hits
    }

    /// The folded key of the lexicon word a hit was found as (`None` for shapes).
    pub fn entry_key(&self, source: HitSource) -> Option<&str> {
        match source {
            HitSource::Entry(index) => self.inner.keys.get(index).map(String::as_str),
            _ => None,
        }
    }
}
