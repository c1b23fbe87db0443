//! Refusal and warning language (SPEC §5 lexical layer): the language packs ([`super::packs`])
//! read text folded for matching ([`crate::fold`]), cut into clauses at clause ends and into
//! segments at contrast markers; operators add refusal and warning patterns (regular
//! expressions) through `[preverify]`. Prose only ever refuses: approval language approves
//! nothing (an approval needs an explicit verdict, [`crate::verify`]).

use super::packs::{Judgement, PackError, Packs, cue_text};
use crate::fold::{fold, fold_str};
use regex::Regex;
use std::sync::Arc;

/// What a clause says about the action it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    /// Refusal or warning language.
    Refuse,
    /// Neither.
    None,
}

/// `text` with what its paired backticks enclose (inline code, fenced blocks) blanked, byte for
/// byte (line ends kept); an unpaired backtick encloses nothing.
fn without_code(text: &str) -> std::borrow::Cow<'_, str> {
    let ticks: Vec<usize> = text.match_indices('`').map(|(i, _)| i).collect();
    if ticks.len() < 2 {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for pair in ticks.chunks_exact(2) {
        let (open, close) = (pair[0] + 1, pair[1]);
        out.push_str(&text[last..open]);
        for c in text[open..close].chars() {
            if c == '\n' {
                out.push('\n');
            } else {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
        last = close;
    }
    out.push_str(&text[last..]);
    std::borrow::Cow::Owned(out)
}

/// A pattern list did not compile.
#[derive(Debug, thiserror::Error)]
#[error("pattern {pattern:?}: {message}")]
pub struct PatternsError {
    /// The offending pattern.
    pub pattern: String,
    /// The regex error.
    pub message: String,
}

impl From<PackError> for PatternsError {
    fn from(e: PackError) -> Self {
        PatternsError { pattern: e.pack, message: e.message }
    }
}

/// Compiled language patterns.
#[derive(Debug, Clone)]
pub struct Patterns {
    packs: Arc<Packs>,
    /// Operator refusal and warning patterns, matched on folded text (`None`: none given).
    extra: Option<Regex>,
    tool_level: Regex,
    pub(crate) instruction: Regex,
}

/// One segment of a text as judged: the original words, and what the packs read in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment<'t> {
    /// The segment as written.
    pub text: &'t str,
    /// Its reading.
    pub judgement: Judgement,
    /// The index of the sentence it belongs to.
    pub sentence: usize,
}

fn join(list: &[&str]) -> String {
    list.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|")
}

fn compile(pattern: &str) -> Result<Regex, PatternsError> {
    Regex::new(&format!("(?i){pattern}"))
        .map_err(|e| PatternsError { pattern: pattern.to_owned(), message: e.to_string() })
}

impl Patterns {
    /// The built-in language packs and instruction-like patterns.
    pub fn defaults() -> Self {
        static DEFAULTS: std::sync::OnceLock<Patterns> = std::sync::OnceLock::new();
        DEFAULTS
            .get_or_init(|| {
                Self::new(&[], &[], &[]).unwrap_or_else(|_| unreachable!("built-in patterns compile"))
            })
            .clone()
    }

    /// The built-in packs plus configured extra refusal and warning patterns and
    /// instruction-like patterns (regular expressions, case-insensitive, matched on folded text).
    pub fn new(refuse: &[String], warn: &[String], instruction: &[String]) -> Result<Self, PatternsError> {
        Self::with_packs(Packs::built_in(), refuse, warn, instruction)
    }

    /// [`Patterns::new`] over `packs` (the built-in ones plus a user's, say).
    pub fn with_packs(
        packs: Packs,
        refuse: &[String],
        warn: &[String],
        instruction: &[String],
    ) -> Result<Self, PatternsError> {
        for p in refuse.iter().chain(warn).chain(instruction) {
            compile(p)?;
        }
        let extra: Vec<&str> = refuse.iter().chain(warn).map(String::as_str).collect();
        let mut instructions: Vec<&str> = super::instruction::DEFAULT_INSTRUCTION.to_vec();
        instructions.extend(instruction.iter().map(String::as_str));
        Ok(Self {
            packs: Arc::new(packs),
            extra: if extra.is_empty() { None } else { Some(compile(&join(&extra))?) },
            tool_level: compile(
                r"(?:\b(?:do not|don't|never|must not|should not|stop)\s+(?:use|using|call|calling|invoke|run)\s+(?:the\s+)?`?([\w.-]+)`?\s+(?:tool|command|at all)\b)|(?:\bthe\s+`?([\w.-]+)`?\s+tool\s+(?:is|must|should)\s+(?:not|never)\b)|(?:不要(?:使用|调用)\s*`?([\w.-]+)`?\s*工具)",
            )?,
            instruction: compile(&join(&instructions))?,
        })
    }

    /// The language packs in use.
    pub fn packs(&self) -> &Packs {
        &self.packs
    }

    /// What one piece of text (a segment, already cut) says, after folding.
    pub fn judge(&self, text: &str) -> Judgement {
        self.judge_folded(&fold_str(&cue_text(text)))
    }

    fn judge_folded(&self, folded: &str) -> Judgement {
        let mut j = self.packs.judge(folded);
        if self.extra.as_ref().is_some_and(|r| r.is_match(folded)) {
            j.refuses = true;
            j.explicit = true;
        }
        j
    }

    /// The polarity of one piece of text.
    pub fn polarity(&self, text: &str) -> Polarity {
        if self.judge(text).refuses { Polarity::Refuse } else { Polarity::None }
    }

    /// `text` cut into sentences (at the packs' clause ends; a dot or colon inside a path, URL or
    /// number does not cut) and each sentence into segments at contrast markers, each judged.
    pub fn segments<'t>(&self, text: &'t str) -> Vec<Segment<'t>> {
        // Same byte offsets as `text`: spans of the fold map back into `text` itself. What an
        // answer quotes as code is the action it talks about, not its judgement of it: a warning
        // word inside a quoted command (`touch destroyed.marker`) is no cue.
        let f = fold(&cue_text(&without_code(text)));
        let mut out = Vec::new();
        for (sentence, (start, end)) in sentences(&self.packs, f.as_str()).into_iter().enumerate() {
            let clause = &f.as_str()[start..end];
            let mut cuts = self.packs.contrast_cuts(clause);
            cuts.push((clause.len(), 0));
            let mut from = 0;
            for (at, len) in cuts {
                if at < from {
                    continue;
                }
                let (s, e) = (start + from, start + at);
                from = at + len;
                let range = f.source_span(s..e);
                let original = text[range].trim();
                if original.is_empty() || f.as_str()[s..e].trim().is_empty() {
                    continue;
                }
                let judgement = self.judge_folded(f.as_str()[s..e].trim());
                out.push(Segment { text: original, judgement, sentence });
            }
        }
        out
    }

    /// Tools a clause refuses as tools ("do not use the deploy tool at all").
    pub fn refused_tools(&self, text: &str) -> Vec<String> {
        self.tool_level
            .captures_iter(text)
            .filter_map(|c| c.iter().skip(1).flatten().next().map(|m| m.as_str().to_ascii_lowercase()))
            .collect()
    }
}

/// Byte ranges of the sentences of folded `text`.
fn sentences(packs: &Packs, text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let cut = match c {
            '.' | ':' => bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()),
            '\n' => true,
            c => packs.ends_clause(c),
        };
        if cut {
            if !text[start..i].trim().is_empty() {
                out.push((start, i));
            }
            start = i + c.len_utf8();
        }
    }
    if !text[start..].trim().is_empty() {
        out.push((start, text.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_cut_at_ends_not_inside_paths_urls_or_numbers() {
        let p = Patterns::defaults();
        let texts: Vec<&str> = p.segments("Run /a/b.sh now. Then stop; ok").iter().map(|s| s.text).collect();
        assert_eq!(texts, ["Run /a/b.sh now", "Then stop", "ok"]);
        let texts: Vec<&str> =
            p.segments("see http://x.org:8080/a. 不要运行。可以").iter().map(|s| s.text).collect();
        assert_eq!(texts, ["see http://x.org:8080/a", "不要运行", "可以"]);
    }

    #[test]
    fn contrast_cuts_a_sentence_into_segments_judged_apart() {
        let p = Patterns::defaults();
        let segs = p.segments("The cache removal is fine, but do not touch /srv/prod");
        assert_eq!(segs.len(), 2, "{segs:?}");
        assert!(!segs[0].judgement.refuses);
        assert!(segs[1].judgement.refuses && segs[1].text.contains("/srv/prod"));
    }

    #[test]
    fn segments_are_judged_folded_and_given_back_as_written() {
        let p = Patterns::defaults();
        let text = "Looks fine. Ｄｏ NOT\u{200b} ru\u{0301}n «rm»; Don\u{2019}t";
        let segs = p.segments(text);
        let texts: Vec<&str> = segs.iter().map(|s| s.text).collect();
        assert_eq!(texts, ["Looks fine", "Ｄｏ NOT\u{200b} ru\u{0301}n «rm»", "Don\u{2019}t"]);
        assert!(!segs[0].judgement.refuses);
        assert!(segs[1].judgement.refuses && segs[1].judgement.explicit);
    }

    #[test]
    fn words_inside_quoted_code_are_no_cues() {
        let p = Patterns::defaults();
        let proposal = p.segments("I propose: `rm -rf data && touch destroyed.marker` to free the space.");
        assert!(proposal.iter().all(|s| !s.judgement.refuses), "{proposal:?}");
        let refusal =
            p.segments("Do not run `rm -rf data && touch destroyed.marker`: it deletes the only copy.");
        assert!(refusal.iter().any(|s| s.judgement.refuses), "{refusal:?}");
        let unpaired = p.segments("This `step is destructive.");
        assert!(unpaired.iter().any(|s| s.judgement.refuses), "an unpaired backtick quotes nothing");
    }

    #[test]
    fn operator_patterns_refuse_after_folding() {
        let p = Patterns::new(&[r"\bverboten\b".into()], &[], &[]).expect("compiles");
        assert_eq!(p.polarity("Das ist VERBOTEN"), Polarity::Refuse);
        assert_eq!(p.polarity("Das ist erlaubt"), Polarity::None);
        assert!(Patterns::new(&["(".into()], &[], &[]).is_err());
    }

    #[test]
    fn tool_level_refusals_name_the_tool() {
        let pats = Patterns::defaults();
        assert_eq!(pats.refused_tools("Do not use the deploy tool at all."), vec!["deploy"]);
        assert!(pats.refused_tools("Do not run rm -rf /data").is_empty());
    }
}
