//! Text rewriting: lexicon words (ordinary ones only in identity context) and
//! self-identification.

use super::anonymizer::Anonymizer;
use super::lexicon::{LexHit, Lexicon, Strength, WordKind};
use crate::fold::{Folded, Gap, PhraseSet, Word, WordClass, fold, is_unspaced};
use std::borrow::Cow;
use std::sync::LazyLock;

/// What replaces a model or family name.
pub const MODEL_PLACEHOLDER: &str = "[model]";
/// What replaces a provider name.
pub const PROVIDER_PLACEHOLDER: &str = "[provider]";
/// What replaces a tier word.
pub const TIER_PLACEHOLDER: &str = "[tier]";
/// What replaces a configured extra word or an agent without an alias.
pub const REDACTED_PLACEHOLDER: &str = "[redacted]";

/// Characters that close a parenthetical label ("（旗舰级）").
const CLOSERS: [char; 7] = [')', ']', '」', '』', '】', '》', '〉'];

/// Phrases after which a model-like token is a self-identification ("As X-9, I …").
const SELF_ID_CUES: [&str; 25] = [
    "as",
    "i am",
    "i'm",
    "i\u{2019}m",
    "powered by",
    "running on",
    "runs on",
    "built on",
    "based on",
    "trained by",
    "developed by",
    "created by",
    "made by",
    "built by",
    "built with",
    "model is",
    "model",
    "作为",
    "我是",
    "我就是",
    "基于",
    "运行在",
    "运行于",
    "模型是",
    "模型为",
];

/// Articles skipped between a self-identification cue and the model token.
const ARTICLES: [&str; 5] = ["a ", "an ", "the ", "一个", "一款"];

static CUES: LazyLock<PhraseSet<()>> = LazyLock::new(|| {
    let mut set = PhraseSet::new();
    for cue in SELF_ID_CUES {
        set.insert(cue, ());
    }
    set
});

/// Fields rewritten (identity words replaced) since the process started, by every anonymizer.
static REWRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many text fields every anonymizer of this process has rewritten so far (a field counts
/// once however many words it lost): what `blindfold_identity_rewrites_total` reports.
pub fn rewrite_count() -> u64 {
    REWRITES.load(std::sync::atomic::Ordering::Relaxed)
}

/// How strictly a field is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Free text written by an agent: ordinary words of the lexicon (tier words, "Gemini",
    /// "Command") go only in identity context.
    Text,
    /// What an agent says about itself (card descriptions and skills, agent-list descriptions):
    /// the tier words of configured and displayed identities go wherever they stand as words of
    /// their own, other ordinary words in identity context.
    Profile,
    /// An identity surface (names, versions, metadata values, `serverInfo`): every lexicon word goes.
    Surface,
}

/// Characters that end a clause: an ordinary word after them is not bound to an identity word
/// before them.
const CLAUSE_ENDS: [char; 10] = ['.', '!', '?', ';', '\n', '。', '！', '？', '；', '|'];

/// Edits: byte ranges of the original text and what replaces them.
pub(crate) type Edits<'a> = Vec<(usize, usize, Cow<'a, str>)>;

impl Anonymizer {
    /// Rewrites free text written by an agent (responses, results, handoffs, rationales,
    /// descriptions): lexicon words, self-identification ("As <model>…", "Powered by <model>
    /// from <vendor>") and agent ids/names become placeholders and aliases. Unchanged text is
    /// returned borrowed.
    pub fn rewrite_text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.rewrite(text, Field::Text)
    }

    /// Rewrites an identity surface value: like [`Anonymizer::rewrite_text`], and every lexicon
    /// word goes wherever it appears.
    pub fn rewrite_surface<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.rewrite(text, Field::Surface)
    }

    /// Rewrites `text` as a field of the given strictness. Words are found in the folded text
    /// ([`crate::fold`]) and replaced in the original through the fold's map back, so everything
    /// outside a replaced word keeps its bytes.
    pub fn rewrite<'t>(&self, text: &'t str, field: Field) -> Cow<'t, str> {
        let out = apply(text, self.edits(text, field));
        if matches!(out, Cow::Owned(_)) {
            REWRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        out
    }

    /// Every replacement a rewrite of `text` as `field` makes: ranges of `text` in order, never
    /// overlapping, with what replaces them.
    pub(crate) fn edits(&self, text: &str, field: Field) -> Edits<'_> {
        let mut edits = self.lexicon_edits(text, field);
        let found = self_identifications(text).into_iter().chain(self.smuggled(text));
        for (start, end, with) in found {
            if !edits.iter().any(|(s, e, _)| start < *e && *s < end) {
                edits.push((start, end, Cow::Borrowed(with)));
            }
        }
        edits.sort_by_key(|(s, _, _)| *s);
        edits
    }

    /// Runs of Unicode tag characters (U+E0000–U+E007F: invisible, yet they spell ASCII a model
    /// can read) whose hidden text holds a lexicon word: removed whole. Other tag runs (emoji
    /// subdivision flags) stay.
    fn smuggled(&self, text: &str) -> Vec<(usize, usize, &'static str)> {
        let is_tag = |c: char| ('\u{E0000}'..='\u{E007F}').contains(&c);
        let mut out = Vec::new();
        let mut chars = text.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if !is_tag(c) {
                continue;
            }
            let mut end = start + c.len_utf8();
            let mut hidden = String::new();
            hidden.extend(char::from_u32(c as u32 - 0xE0000));
            while let Some(&(at, d)) = chars.peek().filter(|(_, d)| is_tag(*d)) {
                hidden.extend(char::from_u32(d as u32 - 0xE0000));
                end = at + d.len_utf8();
                chars.next();
            }
            if self.lexicon().matches(&hidden) {
                out.push((start, end, ""));
            }
        }
        out
    }

    /// True when `key` (a JSON key, a tag, a label) carries identity as a field of strictness
    /// `field` would: a rewrite of it as that field would replace a lexicon word.
    pub fn carries_identity(&self, key: &str, field: Field) -> bool {
        !self.lexicon_edits(key, field).is_empty()
    }

    /// The lexicon's replacements in `text`, as ranges of `text`.
    fn lexicon_edits(&self, text: &str, field: Field) -> Edits<'_> {
        let folded = fold(text);
        let words = folded.words();
        let lexicon = self.lexicon();
        let hits = lexicon.hits(&folded, &words);
        if hits.is_empty() {
            return Vec::new();
        }
        let mut keep: Vec<bool> =
            hits.iter().map(|h| identity_by_itself(&folded, &words, h, field)).collect();
        loop {
            let mut changed = false;
            for i in 0..hits.len() {
                if !keep[i] && in_context(lexicon, &folded, &words, &hits, &keep, i) {
                    keep[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        hits.iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(h, _)| {
                let span = folded.source_span(h.start..h.end);
                (span.start, span.end, self.replacement(h.kind))
            })
            .collect()
    }

    fn replacement(&self, kind: &WordKind) -> Cow<'_, str> {
        Cow::Borrowed(match kind {
            WordKind::Model | WordKind::Family => MODEL_PLACEHOLDER,
            WordKind::Provider => PROVIDER_PLACEHOLDER,
            WordKind::Tier => TIER_PLACEHOLDER,
            WordKind::Extra => REDACTED_PLACEHOLDER,
            WordKind::Agent(agent) => self.aliases().alias_of(agent).unwrap_or(REDACTED_PLACEHOLDER),
        })
    }
}

/// True when a hit is identity without looking at the identity words around it.
fn identity_by_itself(folded: &Folded, words: &[Word], h: &LexHit<'_>, field: Field) -> bool {
    match (field, h.strength) {
        (Field::Surface, _) | (_, Strength::Always) => true,
        (Field::Profile, _) if *h.kind == WordKind::Tier && h.own => !compound(folded, words, h),
        (_, Strength::InContext) => h.version,
        (_, Strength::WithVariant) => h.version && h.variant,
    }
}

/// True when a hit is one half of a compound word (`pro-forma`, `mini-batches`).
fn compound(folded: &Folded, words: &[Word], h: &LexHit<'_>) -> bool {
    let text = folded.as_str();
    let bound = |w: &Word| w.class != WordClass::Unspaced && matches!(&text[w.gap_range.clone()], "-" | "");
    let next = words.get(h.words.end).is_some_and(|w| w.gap != Gap::Start && bound(w));
    let prev = h.words.start > 0 && bound(&words[h.words.start]);
    next || prev
}

/// Applies `edits` (ranges of `text`, in order, not overlapping).
fn apply<'t>(text: &'t str, edits: Edits<'_>) -> Cow<'t, str> {
    if edits.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e, with) in edits {
        out.push_str(&text[at..s]);
        out.push_str(&with);
        at = e;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// True when the separator before word `at` keeps it next to the word before (`-`, `_`, a
/// space, `:`, `=`, nothing; at most three characters).
fn near(folded: &Folded, words: &[Word], at: usize) -> bool {
    words.get(at).is_some_and(|w| {
        let gap = &folded.as_str()[w.gap_range.clone()];
        w.gap != Gap::Start && gap.chars().count() <= 3 && gap.chars().all(is_sep)
    })
}

/// True when an ordinary word's hit `i` is identity by what surrounds it: an identity noun
/// beside it, a kept identity word right next to it, or a kept vendor/family/model word shortly
/// before it with only linker words between (same clause).
fn in_context(
    lexicon: &Lexicon,
    folded: &Folded,
    words: &[Word],
    hits: &[LexHit<'_>],
    keep: &[bool],
    i: usize,
) -> bool {
    let h = &hits[i];
    let text = folded.as_str();
    let latin = !text[h.start..h.end].chars().any(is_unspaced);
    let (first, end) = (h.words.start, h.words.end);
    if (near(folded, words, end) && lexicon.noun_after(folded, words, end))
        || (near(folded, words, first) && lexicon.noun_before(folded, words, first))
        || zh_noun_after(lexicon, text, h.end, latin)
        || zh_noun_before(lexicon, text, h.start)
    {
        return true;
    }
    let kept = |j: usize| keep[j] && hits[j].kind.is_identity_token();
    let next_to = |j: usize| kept(j) && (hits[j].words.end == first || hits[j].words.start == end);
    if (i > 0 && next_to(i - 1) && near(folded, words, first))
        || (i + 1 < hits.len() && next_to(i + 1) && near(folded, words, end))
    {
        return true;
    }
    let linked_before = (0..i).rev().take(2).any(|j| {
        let after = hits[j].words.end;
        kept(j)
            && *hits[j].kind != WordKind::Tier
            && (linked(lexicon, folded, words, after, first) || possessed(folded, words, after, first))
    });
    // A vendor word in a sentence that names a model is that model's vendor ("Llama 3.3 70B
    // Instruct, Meta's open-weights model", "Nemotron-70B, tuned by NVIDIA").
    linked_before
        || (*h.kind == WordKind::Provider
            && hits.iter().enumerate().any(|(j, o)| {
                kept(j)
                    && o.kind.is_model_like()
                    && !sentence_break(text, o.end.min(h.end), o.start.max(h.start))
            }))
}

/// True when `text[from..to]` ends a sentence: `.`, `!` or `?` before a space or the end, or one
/// of the other clause ends (`;`, a line break, `。`, …). A decimal point (`3.3`) ends nothing.
fn sentence_break(text: &str, from: usize, to: usize) -> bool {
    let Some(between) = text.get(from..to.max(from)) else { return true };
    let mut chars = between.chars().peekable();
    while let Some(c) = chars.next() {
        let ends = match c {
            '.' | '!' | '?' => chars.peek().is_none_or(|n| n.is_whitespace()),
            _ => CLAUSE_ENDS.contains(&c),
        };
        if ends {
            return true;
        }
    }
    false
}

/// True when word `to` is in the short noun phrase a possessive `'s` at word `s` opens
/// ("OpenAI's fast frontier helper"): at most two words between, separated by spaces only.
fn possessed(folded: &Folded, words: &[Word], s: usize, to: usize) -> bool {
    let text = folded.as_str();
    let Some(w) = words.get(s) else { return false };
    let apostrophe = matches!(&text[w.gap_range.clone()], "'" | "\u{2019}");
    apostrophe
        && &text[w.range.clone()] == "s"
        && to > s
        && to - s <= 3
        && words[s + 1..=to]
            .iter()
            .all(|w| w.gap == Gap::Joiner && text[w.gap_range.clone()].trim().is_empty())
}

/// True when only linker words (at most two) and no clause end lie between word `from` (the
/// first after an identity word) and word `to` (the first of an ordinary word).
fn linked(lexicon: &Lexicon, folded: &Folded, words: &[Word], from: usize, to: usize) -> bool {
    let text = folded.as_str();
    if to < from || words[from..=to].iter().any(|w| text[w.gap_range.clone()].contains(CLAUSE_ENDS)) {
        return false;
    }
    let mut at = from;
    for _ in 0..2 {
        if at == to {
            return true;
        }
        match lexicon.linker_at(folded, words, at) {
            Some(end) if end <= to => at = end,
            _ => return false,
        }
    }
    at == to
}

fn is_sep(c: char) -> bool {
    matches!(c, ' ' | '-' | '_' | ':' | '=' | '\t')
}

/// The alphabetic word after `at` (skipping separators), lowercase.
fn word_after(text: &str, at: usize) -> String {
    let rest = text[at..].trim_start_matches(is_sep);
    rest.chars().take_while(|c| c.is_alphabetic()).collect::<String>().to_lowercase()
}

/// Skips separators and one linking `的` (Chinese possessive / attributive particle).
fn skip_linker(rest: &str) -> &str {
    let rest = rest.trim_start_matches(is_sep);
    rest.strip_prefix('的').map_or(rest, |r| r.trim_start_matches(is_sep))
}

/// True when a noun of `[context.unspaced] nouns_after`, or one of its `tier_suffixes`, follows
/// the tier word ending at `at`; `latin` tells whether the tier word itself is in Latin script.
fn zh_noun_after(lexicon: &Lexicon, text: &str, at: usize, latin: bool) -> bool {
    let table = lexicon.unspaced();
    let rest = skip_linker(&text[at..]);
    if table.nouns_after.iter().any(|n| rest.starts_with(n.as_str())) {
        return true;
    }
    let rest = rest.trim_start_matches(is_sep);
    let Some(suffix) = table.tier_suffixes.iter().find(|s| rest.starts_with(s.as_str())) else {
        return false;
    };
    if latin {
        return true;
    }
    let after = skip_linker(&rest[suffix.len()..]);
    after.is_empty()
        || after.starts_with(CLOSERS)
        || table.nouns_after.iter().any(|n| after.starts_with(n.as_str()))
        || lexicon.is_noun_word(&word_after(after, 0))
}

/// True when a word of `[context.unspaced] nouns_before` precedes the tier word starting at `at`.
fn zh_noun_before(lexicon: &Lexicon, text: &str, at: usize) -> bool {
    let head = text[..at].trim_end_matches(is_sep);
    let linked = head.strip_suffix(['为', '是']).map(|h| h.trim_end_matches(is_sep));
    let before = &lexicon.unspaced().nouns_before;
    [Some(head), linked].into_iter().flatten().any(|h| before.iter().any(|n| h.ends_with(n.as_str())))
}

/// True for a token that looks like a model name: ASCII letters and digits both present.
fn model_like(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_alphabetic()) && token.chars().any(|c| c.is_ascii_digit())
}

/// Length in bytes of the model-like token at the start of `s`; a token in Latin script stops
/// where an unspaced script begins ("zeta-9模型" → "zeta-9").
fn token_len(s: &str) -> usize {
    let unspaced = s.chars().next().is_some_and(is_unspaced);
    let n: usize = s
        .chars()
        .take_while(|c| {
            (c.is_alphanumeric() || matches!(c, '-' | '.' | '_' | '/')) && (unspaced || !is_unspaced(*c))
        })
        .map(char::len_utf8)
        .sum();
    n - s[..n].chars().rev().take_while(|c| matches!(c, '.' | '-' | '/')).map(char::len_utf8).sum::<usize>()
}

/// Byte ranges of self-identifying model tokens (and a vendor after "from"/"by") in `text`.
pub(crate) fn self_identifications(text: &str) -> Vec<(usize, usize, &'static str)> {
    let mut out = Vec::new();
    for (cue, ()) in CUES.find_text(text) {
        let mut at = skip_blank(text, cue.end);
        for article in ARTICLES {
            if text[at..].get(..article.len()).is_some_and(|p| p.eq_ignore_ascii_case(article)) {
                at = skip_blank(text, at + article.len());
                break;
            }
        }
        let n = token_len(&text[at..]);
        if n == 0 {
            continue;
        }
        if !model_like(&text[at..at + n]) {
            // "As Acme's zeta-9", "作为 Acme 的 zeta-9": a vendor, then the model.
            if let Some((m_start, m_end)) = possessed_model(text, at + n) {
                if text[at..].starts_with(|c: char| c.is_ascii_uppercase()) {
                    out.push((at, at + n, PROVIDER_PLACEHOLDER));
                }
                out.push((m_start, m_end, MODEL_PLACEHOLDER));
                if let Some(vendor) = vendor_after(text, m_end) {
                    out.push((vendor.0, vendor.1, PROVIDER_PLACEHOLDER));
                }
            }
            continue;
        }
        out.push((at, at + n, MODEL_PLACEHOLDER));
        if let Some(vendor) = vendor_after(text, at + n) {
            out.push((vendor.0, vendor.1, PROVIDER_PLACEHOLDER));
        }
    }
    out
}

/// `at` moved past whitespace, `:` and `=`.
fn skip_blank(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    at + rest.len() - rest.trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '=').len()
}

/// After a vendor-like word ending at `at`: `'s <model>` or `的 <model>` — the model token's
/// range when it looks like a model name.
fn possessed_model(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = &text[at..];
    let linker = ["'s ", "\u{2019}s ", " 的", "的"].iter().find(|l| rest.starts_with(*l))?;
    let start = skip_blank(text, at + linker.len());
    let n = token_len(&text[start..]);
    (n > 0 && model_like(&text[start..start + n])).then_some((start, start + n))
}

/// "… from Acme Labs" / "… by Acme": the capitalised words after the model token.
fn vendor_after(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = &text[at..];
    let lead =
        ["from ", "by "].iter().find(|p| rest.get(1..1 + p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p)));
    let start = match lead {
        Some(lead) if rest.starts_with(' ') => at + 1 + lead.len(),
        Some(_) => return None,
        // "zeta-9（来自 Acme）", "zeta-9，由 Acme 开发"
        None => {
            let rest_noun =
                ["大模型", "模型"].iter().find_map(|n| rest.trim_start().strip_prefix(n)).unwrap_or(rest);
            let trimmed = rest_noun
                .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | '，' | '（'));
            let lead = ["来自", "由"].iter().find(|l| trimmed.starts_with(*l))?;
            skip_blank(text, at + (rest.len() - trimmed.len()) + lead.len())
        }
    };
    let mut end = start;
    for word in text[start..].split(' ').take(3) {
        let w = word.split(is_unspaced).next().unwrap_or_default();
        let w = w.trim_end_matches(|c: char| !c.is_alphanumeric());
        if !w.chars().next().is_some_and(char::is_uppercase) {
            break;
        }
        end = if end == start { start + w.len() } else { end + 1 + w.len() };
        if w.len() != word.len() {
            break;
        }
    }
    (end > start).then_some((start, end))
}
