//! Identity context: when an ordinary lexicon word (tier words, "Gemini", "Command", "Google")
//! is identity in free text — beside an identity noun, next to a kept identity word, shortly
//! after one behind linker words, a vendor in a sentence that names its model — and the
//! unspaced-script forms of the same rules (`[context.unspaced]`).

use super::lexicon::{HitSource, LexHit, Lexicon, Strength, WordKind};
use super::text::CLAUSE_ENDS;
use crate::fold::{Folded, Gap, Word, WordClass, is_unspaced};

/// Characters that close a parenthetical label ("（旗舰级）").
const CLOSERS: [char; 7] = [')', ']', '」', '』', '】', '》', '〉'];

/// True when the separator before word `at` keeps it next to the word before (`-`, `_`, a
/// space, `:`, `=`, nothing; at most three characters).
pub(super) fn near(folded: &Folded, words: &[Word], at: usize) -> bool {
    words.get(at).is_some_and(|w| {
        let gap = &folded.as_str()[w.gap_range.clone()];
        w.gap != Gap::Start && gap.chars().count() <= 3 && gap.chars().all(is_sep)
    })
}

/// True when an ordinary word's hit `i` is identity by what surrounds it: an identity noun
/// beside it, a kept identity word right next to it, or a kept vendor/family/model word shortly
/// before it with only linker words between (same clause).
pub(super) fn in_context(
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
    // A code in parentheses is the other name of the model id right before it ("… (R1)").
    if h.source == HitSource::Code {
        return i > 0 && keep[i - 1];
    }
    // A family that counts only with a version (`o` of `o3`) is a word of the sentence
    // without one ("Claude o tym", "Mixtral o Llama").
    if h.strength == Strength::WithVariant && !h.version {
        return false;
    }
    if same_provider(lexicon, folded, words, hits, i) {
        return true;
    }
    if h.strength == Strength::Linked {
        let kept = |j: usize| keep[j] && hits[j].kind.is_model_like();
        return (0..i).rev().take(2).any(|j| {
            let after = hits[j].words.end;
            kept(j) && after < first && linked(lexicon, folded, words, after, first)
        });
    }
    // A tier word right beside an agent's name is that agent's tier ("the flagship Orion").
    let agent = |j: usize| matches!(hits[j].kind, WordKind::Agent(_));
    if *h.kind == WordKind::Tier
        && ((i > 0 && agent(i - 1) && hits[i - 1].words.end == first && near(folded, words, first))
            || (i + 1 < hits.len()
                && agent(i + 1)
                && hits[i + 1].words.start == end
                && near(folded, words, end)))
    {
        return true;
    }
    // A tier word or a parameter count labels the noun after it across size words ("an
    // efficient small model", "the 70B dense variant").
    let noun_at = if sizes_between(h) { size_run(lexicon, folded, words, end) } else { end };
    // A possessive stands between a name and its noun ("Meta's model", "Google’s assistant").
    let noun_at = if possessive(text, words, noun_at) { noun_at + 1 } else { noun_at };
    if (near(folded, words, noun_at) && lexicon.noun_after(folded, words, noun_at))
        || (near(folded, words, first)
            && !glued_on(text, words, end)
            && lexicon.noun_before(folded, words, first))
        || zh_noun_after(lexicon, text, h.end, latin)
        || zh_noun_before(lexicon, text, h.start)
    {
        return true;
    }
    let kept = |j: usize| keep[j] && hits[j].kind.is_identity_token();
    // Alone in parentheses right after an identity noun or a kept identity word, it names what
    // that word names ("our reasoning tier (Ultra)", "the model (Gemini)", "Claude (Opus)").
    if parenthesised(text, words, h)
        && ((first > 0 && lexicon.noun_after(folded, words, first - 1))
            || (i > 0 && kept(i - 1) && hits[i - 1].words.end == first))
    {
        return true;
    }
    // A vendor word that starts an identifier of its interface (`GOOGLE_API_KEY`).
    if *h.kind == WordKind::Provider && lexicon.vendor_identifier_after(folded, words, end) {
        return true;
    }
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

/// True when hit `h` is all a parenthesis holds, right after the word before it: `(` (and
/// spaces) before it, `)` after it.
fn parenthesised(text: &str, words: &[Word], h: &LexHit<'_>) -> bool {
    let Some(w) = words.get(h.words.start) else { return false };
    let opens = text[w.gap_range.clone()].trim() == "(";
    opens && h.words.start > 0 && text[h.end..].trim_start().starts_with(')')
}

/// True when size words may stand between hit `h` and the noun it labels: tier words and
/// parameter counts.
pub(super) fn sizes_between(h: &LexHit<'_>) -> bool {
    *h.kind == WordKind::Tier || h.source == HitSource::Size
}

/// The end of the run of size words (`[context] size_words`, at most two, each next to the word
/// before) starting at word `at`; `at` itself when none starts there.
pub(super) fn size_run(lexicon: &Lexicon, folded: &Folded, words: &[Word], at: usize) -> usize {
    let mut end = at;
    for _ in 0..2 {
        match lexicon.size_word_at(folded, words, end) {
            Some(e) if near(folded, words, end) => end = e,
            _ => break,
        }
    }
    end
}

/// The start of the run of size words (at most two) that ends right before word `at`, each
/// next to the word after it; `at` itself when none ends there.
pub(super) fn size_run_before(lexicon: &Lexicon, folded: &Folded, words: &[Word], at: usize) -> usize {
    let mut start = at;
    for _ in 0..2 {
        let found = (start.saturating_sub(3)..start)
            .find(|&s| lexicon.size_word_at(folded, words, s) == Some(start) && near(folded, words, start));
        match found {
            Some(s) => start = s,
            None => break,
        }
    }
    start
}

/// True when hit `i` and another hit of the same provider of the data, one a vendor and the other
/// a family or model word, stand side by side in one clause — nothing but punctuation or one
/// linker word between them: each names the other ("Grok (xAI)", "Google's Gemini", "구글
/// 제미나이", "ジェミニ（グーグル）", "Джемини от Гугла"). "A llama at the Meta campus" is not.
fn same_provider(lexicon: &Lexicon, folded: &Folded, words: &[Word], hits: &[LexHit<'_>], i: usize) -> bool {
    let h = &hits[i];
    let Some(provider) = h.provider else { return false };
    let vendor = |k: &WordKind| *k == WordKind::Provider;
    let text = folded.as_str();
    hits.iter().enumerate().any(|(j, o)| {
        let (a, b) = if j < i { (o, h) } else { (h, o) };
        j != i
            && o.provider == Some(provider)
            && vendor(o.kind) != vendor(h.kind)
            && (vendor(o.kind) || o.kind.is_model_like())
            && (vendor(h.kind) || h.kind.is_model_like())
            && (b.words.start == a.words.end
                || lexicon.linker_at(folded, words, a.words.end) == Some(b.words.start))
            && !sentence_break(text, a.end, b.start)
            && !text[a.end..b.start].contains(CLAUSE_ENDS)
    })
}

/// True when hit `h` is an ordinary family word of the data (`family_in_context`) written
/// `capitalised`, as a name is.
fn written_as_name(h: &LexHit<'_>, capitalised: bool) -> bool {
    capitalised
        && h.strength == Strength::InContext
        && h.kind.is_model_like()
        && matches!(h.source, HitSource::Entry(_))
}

/// True when hit `i`, an ordinary family word `capitalised` as a name, stands in one clause with
/// a vendor word of the same provider that is identity wherever it appears ("Gemini here, from
/// Google DeepMind", "the Opus run that Anthropic billed"): that vendor names the provider, so
/// its family word written as a name names the model. A vendor that is an ordinary word itself
/// ("A llama at the Meta campus") is no such vendor, and the word in lower case is prose ("Claude
/// (Anthropic) marked up your sonnet").
pub(super) fn vendor_in_clause(
    folded: &Folded,
    hits: &[LexHit<'_>],
    keep: &[bool],
    i: usize,
    capitalised: bool,
) -> bool {
    let h = &hits[i];
    let text = folded.as_str();
    written_as_name(h, capitalised)
        && h.provider.is_some()
        && hits.iter().enumerate().any(|(j, o)| {
            let (from, to) = if j < i { (o.end, h.start) } else { (h.end, o.start) };
            // No clause end at all between them (stricter than a sentence break: a stop inside
            // a dotted id counts too).
            j != i
                && keep[j]
                && *o.kind == WordKind::Provider
                && o.strength == Strength::Always
                && o.provider == h.provider
                && !text[from..to.max(from)].contains(CLAUSE_ENDS)
        })
}

/// True when hit `i`, an ordinary family word `capitalised` as a name, stands shortly before a
/// kept family or model word with only linker words between ("Gemini and Claude disagree",
/// "Mistral or GPT-4o"): the mirror of a kept word shortly before an ordinary one, for a word
/// written as a name. In lower case it is prose ("a haiku by Claude").
pub(super) fn linked_before_kept(
    lexicon: &Lexicon,
    folded: &Folded,
    words: &[Word],
    hits: &[LexHit<'_>],
    keep: &[bool],
    i: usize,
    capitalised: bool,
) -> bool {
    let h = &hits[i];
    written_as_name(h, capitalised)
        && (i + 1..hits.len().min(i + 3)).any(|j| {
            keep[j]
                && hits[j].kind.is_model_like()
                && hits[j].words.start > h.words.end
                && linked(lexicon, folded, words, h.words.end, hits[j].words.start)
        })
}

/// True when hit `i`, an ordinary family word `capitalised` as a name, shares a sentence with
/// a model name that is identity wherever it stands ("Ho chiesto a Claude e a Grok", "Anthropic's
/// Claude wrote the outline and Aya translated it"). A capital at the start of a sentence says
/// nothing, unless a possessive follows ("Gemini's review flagged two races; Claude's pass
/// agreed"), or with a family word of the same provider kept by its context ("I'm running as the
/// Haiku tier today, terser than the Sonnet runs"). Only a full stop, a line break or the end
/// bounds the sentence. An ordinary word that
/// reads as a model only by a number ("The Titan II rocket launched the Gemini missions") is no
/// such name, nor are two ordinary names side by side ("Titan and Gemini").
pub(super) fn named_beside_model(
    lexicon: &Lexicon,
    folded: &Folded,
    hits: &[LexHit<'_>],
    keep: &[bool],
    i: usize,
    capitalised: bool,
) -> bool {
    let text = folded.as_str();
    let h = &hits[i];
    if !written_as_name(h, capitalised) || (sentence_initial(text, h.start) && !possessive_after(text, h.end))
    {
        return false;
    }
    let key = lexicon.entry_key(h.source);
    hits.iter().enumerate().any(|(j, o)| {
        let (from, to) = if j < i { (o.end, h.start) } else { (h.end, o.start) };
        // A kept family word of the same provider anchors too, unless only a number made it
        // one ("running as the Haiku tier … the Sonnet runs"; "Opus 131 … Sonnet" is not).
        let sibling = o.provider.is_some() && o.provider == h.provider && !o.version;
        let anchor = keep[j] && (o.strength == Strength::Always || sibling) && o.kind.is_model_like();
        j != i && anchor && lexicon.entry_key(o.source) != key && !full_stop(text, from, to)
    })
}

/// True when the text before byte `at` ends a sentence (or is empty): a full stop, a line break,
/// a list or table mark before it.
pub(super) fn sentence_initial(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end_matches([' ', '\t', '*', '-', '|', '#', '>', '"', '\'', '(', '[']);
    before.is_empty() || before.ends_with(['.', '!', '?', '\n', ':', '。', '！', '？'])
}

/// True when a possessive `'s` follows byte `at`.
fn possessive_after(text: &str, at: usize) -> bool {
    text[at..].starts_with("'s") || text[at..].starts_with("\u{2019}s")
}

/// True when `text[from..to]` holds a sentence end: `.`, `!` or `?` before a space or the end of
/// the text (what follows the stop in the text, not in the span: a decimal point `3.3` or a dotted
/// id `anthropic.claude` goes on), a line break, `。`, `！` or `？`.
fn full_stop(text: &str, from: usize, to: usize) -> bool {
    let Some(between) = text.get(from..to.max(from)) else { return true };
    between.char_indices().any(|(at, c)| match c {
        '.' | '!' | '?' => text[from + at + c.len_utf8()..].chars().next().is_none_or(char::is_whitespace),
        _ => matches!(c, '\n' | '。' | '！' | '？'),
    })
}

/// True when `text[from..to]` ends a sentence: a [`full_stop`], or one of the other clause ends
/// (`;`, `|`, `；`).
fn sentence_break(text: &str, from: usize, to: usize) -> bool {
    let other_end = |c: char| CLAUSE_ENDS.contains(&c) && !matches!(c, '.' | '!' | '?');
    full_stop(text, from, to) || text.get(from..to.max(from)).is_none_or(|b| b.contains(other_end))
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
/// first after an identity word) and word `to` (the first of an ordinary word). A colon before a
/// space ends the clause too: what follows it is a new statement ("Command R+ by Cohere: on the
/// command line, run…").
fn linked(lexicon: &Lexicon, folded: &Folded, words: &[Word], from: usize, to: usize) -> bool {
    let text = folded.as_str();
    let ends = |w: &Word| {
        let gap = &text[w.gap_range.clone()];
        gap.contains(CLAUSE_ENDS) || gap.contains(": ")
    };
    if to < from || words[from..=to].iter().any(ends) {
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
    // `・` and `·` join the parts of a name in Japanese and Chinese ("クロード・ソネット").
    matches!(c, ' ' | '-' | '_' | ':' | '=' | '\t' | '\u{30FB}' | '\u{B7}')
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

/// True when word `at` is a possessive `s` ("Meta's", "Meta’s") with a word after it.
fn possessive(text: &str, words: &[Word], at: usize) -> bool {
    words.get(at).is_some_and(|w| {
        matches!(&text[w.gap_range.clone()], "'" | "\u{2019}") && text[w.range.clone()] == *"s"
    }) && at + 1 < words.len()
}

/// True when word `at` is letters glued to the word before it with nothing between (the rest of
/// an identifier: `NovaCatalog`): a noun before the identifier labels all of it ("class
/// NovaCatalog" declares a class), not the lexicon word at its start.
fn glued_on(text: &str, words: &[Word], at: usize) -> bool {
    words.get(at).is_some_and(|w| {
        w.gap == Gap::Split && w.class == WordClass::Letters && text[w.gap_range.clone()].is_empty()
    })
}
