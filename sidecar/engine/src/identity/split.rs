//! Text split across parts or stream chunks, rewritten as if joined (SPEC §4): a name cut in two
//! ("I am clau" + "de-sonnet-4 by Anthro" + "pic.") is found in the joined text and replaced
//! in the pieces it spans.
//!
//! - [`Anonymizer::rewrite_pieces`] rewrites pieces that arrive together (the text parts of one
//!   A2A message or artifact): a replacement lands in the piece where the name starts, and the
//!   rest of the name is cut from the pieces after it.
//! - [`TextStream`] rewrites pieces that arrive one after another (stream chunks): what could be
//!   the start of a name at the end of a chunk — at most the longest lexicon entry and a model
//!   id's tail — is held until the next chunk or the end of the stream, never released raw.

use super::anonymizer::Anonymizer;
use super::text::{Edits, Field};

/// Characters of already released text kept as context for the next chunk's rewrite (identity
/// context and tier words look back at the words before them).
const CONTEXT_CHARS: usize = 64;
/// Characters a model id may run on past its family word (versions, dates, variants).
const TAIL_CHARS: usize = 40;

impl Anonymizer {
    /// Rewrites `pieces` as if they were one text; true when any changed.
    pub fn rewrite_pieces(&self, pieces: &mut [String], field: Field) -> bool {
        let joined: String = pieces.concat();
        let edits = self.edits(&joined, field);
        if edits.is_empty() {
            return false;
        }
        let mut start = 0;
        for piece in pieces.iter_mut() {
            let end = start + piece.len();
            *piece = slice_rewritten(&joined, start, end, &edits);
            start = end;
        }
        true
    }

    /// The most characters a [`TextStream`] holds back.
    pub fn stream_hold_chars(&self) -> usize {
        self.lexicon().longest_entry_chars() + TAIL_CHARS
    }
}

/// The rewrite of `text[start..end]` under `edits` (ranges of `text`): an edit starting inside
/// the slice is replaced whole there; the part of an edit that started before it is cut.
fn slice_rewritten(text: &str, start: usize, end: usize, edits: &Edits<'_>) -> String {
    let mut out = String::with_capacity(end - start);
    let mut at = start;
    for (s, e, with) in edits {
        if *e <= at || *s >= end {
            continue;
        }
        if *s >= at {
            out.push_str(&text[at..*s]);
            out.push_str(with);
        }
        at = (*e).min(end);
    }
    if at < end {
        out.push_str(&text[at..end]);
    }
    out
}

/// One stream of text chunks toward the coordinator, rewritten as if joined.
#[derive(Debug, Clone, Default)]
pub struct TextStream {
    /// Released original text kept as context (its last [`CONTEXT_CHARS`] characters).
    context: String,
    /// Original text not released yet.
    held: String,
}

impl TextStream {
    /// A stream with nothing held.
    pub fn new() -> Self {
        Self::default()
    }

    /// True when text is held.
    pub fn is_holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// Takes the next chunk; returns the rewritten text that can be released now (possibly empty).
    pub fn push(&mut self, anon: &Anonymizer, chunk: &str, field: Field) -> String {
        self.held.push_str(chunk);
        let buffer = format!("{}{}", self.context, self.held);
        let from = self.context.len();
        let edits = anon.edits(&buffer, field);
        let cut = cut_point(&buffer, from, anon.stream_hold_chars(), &edits);
        let released = slice_rewritten(&buffer, from, cut, &edits);
        self.keep(&buffer, cut);
        released
    }

    /// Takes a chunk that must go out at once, whole (a notification that cannot wait for the
    /// next one): rewritten as continuing the text released before it, nothing held. A name the
    /// joined text completes across the boundary is cut from this chunk (its start already went
    /// out as a fragment, or as a placeholder when it was a name by itself).
    pub fn push_whole(&mut self, anon: &Anonymizer, chunk: &str, field: Field) -> String {
        self.held.push_str(chunk);
        self.finish(anon, field)
    }

    /// The end of the stream: the rewritten rest.
    pub fn finish(&mut self, anon: &Anonymizer, field: Field) -> String {
        let buffer = format!("{}{}", self.context, self.held);
        let from = self.context.len();
        let edits = anon.edits(&buffer, field);
        let out = slice_rewritten(&buffer, from, buffer.len(), &edits);
        self.keep(&buffer, buffer.len());
        out
    }

    fn keep(&mut self, buffer: &str, cut: usize) {
        let released = &buffer[..cut];
        let skip = released.chars().count().saturating_sub(CONTEXT_CHARS);
        let ctx_start = released.char_indices().nth(skip).map_or(released.len(), |(i, _)| i);
        self.context = released[ctx_start..].to_owned();
        self.held = buffer[cut..].to_owned();
    }
}

/// Where released text ends in `buffer` (its first `from` bytes were released before): at a
/// whitespace boundary at least `hold` characters before the end, or at `hold` characters
/// before the end when no whitespace is within `hold` characters before that (a long run
/// without spaces is not held whole: the context carried to the next chunk rejoins it), never
/// inside a replacement. So at most `2 × hold` characters are held.
fn cut_point(buffer: &str, from: usize, hold: usize, edits: &Edits<'_>) -> usize {
    let total = buffer.chars().count();
    if total <= hold {
        return from;
    }
    let at_char = |n: usize| buffer.char_indices().nth(n).map_or(buffer.len(), |(i, _)| i);
    let limit = at_char(total - hold);
    let floor = at_char(total.saturating_sub(2 * hold));
    // The last whitespace at or before the limit: the held text starts with a whole word.
    let space = buffer[floor..limit].rfind(char::is_whitespace).map(|i| floor + i + 1);
    let mut cut = space.unwrap_or(limit).max(from);
    for (s, e, _) in edits {
        if *s < cut && cut < *e {
            cut = (*s).max(from);
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use crate::identity::{AliasMap, Anonymizer, Field, Lexicon, TextStream};

    fn anon() -> Anonymizer {
        Anonymizer::new(Lexicon::default(), AliasMap::new(1, Vec::<String>::new()))
    }

    #[test]
    fn pieces_are_rewritten_as_if_joined() {
        let anon = anon();
        let mut parts = vec!["I am clau".to_owned(), "de-sonnet-4 by Anthro".to_owned(), "pic.".to_owned()];
        assert!(anon.rewrite_pieces(&mut parts, Field::Text));
        assert_eq!(parts.concat(), "I am [model] by [provider].");
        let mut plain = vec!["a mini".to_owned(), "mum of ".to_owned(), "work".to_owned()];
        assert!(!anon.rewrite_pieces(&mut plain, Field::Text));
        assert_eq!(plain.concat(), "a minimum of work");
    }

    #[test]
    fn a_stream_holds_a_possible_name_until_it_is_whole() {
        let anon = anon();
        let text = "Hello there, I am claude-sonnet-4 by Anthropic. The report lists three risks and \
                    the fixes for each one of them, with owners and dates.";
        for size in [1, 3, 7, 16, 40] {
            let mut stream = TextStream::new();
            let mut out = String::new();
            let chars: Vec<char> = text.chars().collect();
            for chunk in chars.chunks(size) {
                let chunk: String = chunk.iter().collect();
                let released = stream.push(&anon, &chunk, Field::Text);
                assert!(!released.contains("clau") && !released.contains("Anthro"), "{size}: {released:?}");
                out.push_str(&released);
            }
            out.push_str(&stream.finish(&anon, Field::Text));
            assert_eq!(out, anon.rewrite_text(text), "chunks of {size}");
        }
        let mut stream = TextStream::new();
        let ordinary = "a mini";
        let mut out = stream.push(&anon, ordinary, Field::Text);
        out.push_str(&stream.push(&anon, "mum of work", Field::Text));
        out.push_str(&stream.finish(&anon, Field::Text));
        assert_eq!(out, "a minimum of work", "a held partial word is released unchanged");
    }
}
