//! Text rewriting: lexicon words (ordinary ones only in identity context) and
//! self-identification.

use super::anonymizer::Anonymizer;
use super::context::{
    in_context, linked_before_kept, named_beside_model, near, size_run, size_run_before, sizes_between,
    vendor_in_clause,
};
use super::lexicon::{HitSource, LexHit, Lexicon, Strength, WordKind};
use super::self_id::self_identifications;
use crate::fold::{Folded, Gap, Word, WordClass, fold};
use std::borrow::Cow;

/// What replaces a model or family name.
pub const MODEL_PLACEHOLDER: &str = "[model]";
/// What replaces a provider name.
pub const PROVIDER_PLACEHOLDER: &str = "[provider]";
/// What replaces a tier word.
pub const TIER_PLACEHOLDER: &str = "[tier]";
/// What replaces a configured extra word or an agent without an alias.
pub const REDACTED_PLACEHOLDER: &str = "[redacted]";

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
    /// The name an agent goes by in an agent list (`gemini-researcher`): free text, and a
    /// vendor, family, model or tier word of a name that also holds a role noun of the data's
    /// `profile_nouns` names the agent's model.
    Name,
}

/// Characters that end a clause: an ordinary word after them is not bound to an identity word
/// before them.
pub(crate) const CLAUSE_ENDS: [char; 10] = ['.', '!', '?', ';', '\n', '。', '！', '？', '；', '|'];

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

    /// The folded lexicon words that are identity in `text` as a field of strictness `field`
    /// (what [`Anonymizer::in_definition`] carries to the other fields of a definition): the
    /// word each kept hit was found as, and the vendor, family and model words inside it
    /// (`granite` of "Granite 4", `gemini` of "Gemini 2.5 Pro"; not its tier word `pro`).
    pub fn identity_words(&self, text: &str, field: Field) -> Vec<String> {
        self.definition_words(text, field).0
    }

    /// [`Anonymizer::identity_words`], and besides the vendor, family and model words of the
    /// data's providers in `text`, identity or not: each word's provider, whether it is a vendor
    /// word, and its folded entry key (what [`Anonymizer::in_definition`] pairs across the fields
    /// of one definition). One fold and one search of the lexicon for both.
    pub(crate) fn definition_words(
        &self,
        text: &str,
        field: Field,
    ) -> (Vec<String>, Vec<(u32, bool, String)>) {
        let folded = fold(text);
        let words = folded.words();
        let lexicon = self.lexicon();
        let hits = lexicon.hits(&folded, &words);
        let providers = hits
            .iter()
            .filter(|h| *h.kind == WordKind::Provider || h.kind.is_model_like())
            .filter_map(|h| {
                let key = lexicon.entry_key(h.source)?;
                Some((h.provider?, *h.kind == WordKind::Provider, key.to_owned()))
            })
            .collect();
        let keep = self.decide(text, text, &folded, &words, &hits, field);
        let mut identity = Vec::new();
        for (h, _) in hits.iter().zip(keep).filter(|(_, k)| *k) {
            identity.extend(lexicon.entry_key(h.source).map(str::to_owned));
            for w in &words[h.words.clone()] {
                let word = &folded.as_str()[w.range.clone()];
                if lexicon.kind_of(word).is_some_and(|k| *k != WordKind::Tier && k.is_identity_token()) {
                    identity.push(word.to_owned());
                }
            }
        }
        (identity, providers)
    }

    /// The lexicon's replacements in `text`, as ranges of `text`: those of the text as written,
    /// then those of its reading with digits for letters (`Gr0k`, see
    /// [`crate::fold::digits_as_letters`]) that overlap none of them.
    fn lexicon_edits(&self, text: &str, field: Field) -> Edits<'_> {
        let mut edits = self.lexicon_edits_of(text, text, field);
        if let Some(read) = crate::fold::digits_as_letters(text) {
            let more = self.lexicon_edits_of(&read, text, field);
            let fresh: Vec<_> =
                more.into_iter().filter(|(s, e, _)| !edits.iter().any(|(a, b, _)| s < b && a < e)).collect();
            edits.extend(fresh);
            edits.sort_by_key(|(s, _, _)| *s);
        }
        edits
    }

    /// The lexicon's replacements in `text`, a reading of `written` with the same byte offsets; a
    /// word whose reading differs from how it is written is disguised.
    fn lexicon_edits_of(&self, text: &str, written: &str, field: Field) -> Edits<'_> {
        let folded = fold(text);
        let words = folded.words();
        let lexicon = self.lexicon();
        let hits = lexicon.hits(&folded, &words);
        if hits.is_empty() {
            return Vec::new();
        }
        let keep = self.decide(text, written, &folded, &words, &hits, field);
        (0..hits.len())
            .filter(|&i| keep[i])
            .map(|i| {
                let h = &hits[i];
                let (first, last) = taken_along(lexicon, &folded, &words, &hits, i);
                let span = folded.source_span(words[first].range.start..words[last - 1].range.end.max(h.end));
                (span.start, span.end, self.replacement(h.kind))
            })
            .collect()
    }

    /// Which hits are identity: by themselves, then by context until nothing changes.
    fn decide(
        &self,
        text: &str,
        source: &str,
        folded: &Folded,
        words: &[Word],
        hits: &[LexHit<'_>],
        field: Field,
    ) -> Vec<bool> {
        let lexicon = self.lexicon();
        let capitalised: Vec<bool> = hits
            .iter()
            .map(|h| text[folded.source_span(h.start..h.end)].chars().next().is_some_and(char::is_uppercase))
            .collect();
        let mut keep: Vec<bool> = hits
            .iter()
            .map(|h| {
                let span = folded.source_span(h.start..h.end);
                let written = &text[span.clone()];
                let disguised = crate::fold::disguised(written) || source[span] != *written;
                let scoped = lexicon.entry_key(h.source).is_some_and(|k| self.in_scope(k));
                scoped
                    || identity_by_itself(lexicon, folded, words, h, field, disguised)
                    || named_role(lexicon, written, folded, words, h)
                    || named_self(lexicon, written, folded, words, h)
                    || super::table::in_identity_column(lexicon, folded.as_str(), h.start)
            })
            .collect();
        loop {
            let mut changed = false;
            for i in 0..hits.len() {
                if !keep[i]
                    && (in_context(lexicon, folded, words, hits, &keep, i)
                        || vendor_in_clause(folded, hits, &keep, i, capitalised[i])
                        || linked_before_kept(lexicon, folded, words, hits, &keep, i, capitalised[i])
                        || named_beside_model(lexicon, folded, hits, &keep, i, capitalised[i]))
                {
                    keep[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        keep
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

/// True when a hit is identity without looking at the identity words around it: always-words,
/// every word of a surface, an ordinary word inside a model id (with a version; an o-series id
/// with a variant word or a snapshot date) or written in disguise (`Gem\u{200B}ini`, small
/// capitals, letters of another alphabet among Latin ones: see [`crate::fold::disguised`]), and
/// in a self-description a tier word the way an agent labels itself (see [`profile_tier`]).
fn identity_by_itself(
    lexicon: &Lexicon,
    folded: &Folded,
    words: &[Word],
    h: &LexHit<'_>,
    field: Field,
    disguised: bool,
) -> bool {
    if !matches!(h.source, HitSource::Entry(_)) {
        return false;
    }
    match (field, h.strength) {
        (Field::Surface, _) | (_, Strength::Always) => true,
        (Field::Name, _)
            if !matches!(h.kind, WordKind::Agent(_)) && role_in_name(lexicon, folded, words, h) =>
        {
            true
        }
        (Field::Profile, _) if *h.kind == WordKind::Tier && profile_tier(lexicon, folded, words, h) => true,
        (_, Strength::InContext) => {
            h.version || h.script_variant || disguised || identifier_model_id(folded, words, h)
        }
        (_, Strength::Linked) => false,
        (_, Strength::WithVariant) => h.version && (h.variant || h.dated),
    }
}

/// True when an ordinary family word begins a model id written as one identifier of variant
/// words without a version (`grok_x_search`, `gemini-flash`, `CommandR`, `nova_pro`): the words
/// joined by `_`, `-`, `.` or a camelCase hump, never a space, and the id ending where the
/// identifier ends. A family word followed by a word that names no variant (`grok_pattern`,
/// `command_line`, `opus-encoder`) or written with spaces ("the command search") stays.
fn identifier_model_id(folded: &Folded, words: &[Word], h: &LexHit<'_>) -> bool {
    let text = folded.as_str();
    let glued = |w: &Word| match w.gap {
        Gap::Split => true,
        Gap::Joiner => !text[w.gap_range.clone()].contains([' ', '\t']),
        Gap::Start | Gap::Break => false,
    };
    h.variant
        && !h.version
        && h.kind.is_model_like()
        && matches!(h.source, HitSource::Entry(_))
        && words[h.words.start + 1..h.words.end].iter().all(glued)
        && words.get(h.words.end).is_none_or(|w| !glued(w))
}

/// True when an ordinary family or tier word (`written` as it stands in the original text) is
/// written as a name between a determiner of the data's `name_determiners` and a role of its
/// `name_roles` ("ask the Grok reviewer", "our Gemini helper", "not the Pro one", "the Flash
/// one"): capitalised there, it names the agent's model or tier in any text. A verb, a common
/// noun or an adjective in that place is not capitalised ("I grok the reviewer's point", "the
/// command reviewer", "the mini one"), nor is half of a compound a name.
fn named_role(lexicon: &Lexicon, written: &str, folded: &Folded, words: &[Word], h: &LexHit<'_>) -> bool {
    let (first, end) = (h.words.start, h.words.end);
    // "the Llama-based reviewer": a suffix of `name_suffixes` may join the name to its role.
    let suffix = lexicon.name_suffix_at(folded, words, end).filter(|_| h.kind.is_model_like());
    let role_at = suffix.unwrap_or(end);
    h.strength == Strength::InContext
        && (h.kind.is_model_like() || *h.kind == WordKind::Tier)
        && matches!(h.source, HitSource::Entry(_))
        && written.chars().next().is_some_and(char::is_uppercase)
        && (suffix.is_some() || !compound(folded, words, h))
        && spaced(folded, words, first)
        && lexicon.determiner_before(folded, words, first)
        && spaced(folded, words, role_at)
        && lexicon.name_role_after(folded, words, role_at)
}

/// True when an ordinary family word (`written` as it stands in the original text) is the name
/// the writer introduces itself by: written as a name (capitalised, or in a script without
/// case), right after a phrase of the data's `self_names_before` ("I'm Grok, developed by xAI",
/// "Sono Grok", "Ich bin Gemini", "Jestem Mistral", "मैं जेमिनी हूँ") or at the start of a
/// sentence right before one of its `self_names_after` ("Mistral here: …"). In agent-written
/// text the writer is the agent. A word in lower case there is prose ("I'm command-line only").
fn named_self(lexicon: &Lexicon, written: &str, folded: &Folded, words: &[Word], h: &LexHit<'_>) -> bool {
    let (first, end) = (h.words.start, h.words.end);
    let as_name = written.chars().next().is_some_and(|c| c.is_uppercase() || !c.is_lowercase());
    let bound = |at: usize| {
        words.get(at).is_some_and(|w| !folded.as_str()[w.gap_range.clone()].contains(CLAUSE_ENDS))
    };
    h.strength == Strength::InContext
        && h.kind.is_model_like()
        && matches!(h.source, HitSource::Entry(_))
        && as_name
        && !compound(folded, words, h)
        && ((first > 0 && bound(first) && lexicon.self_name_before(folded, words, first))
            || (super::context::sentence_initial(folded.as_str(), h.start)
                && spaced(folded, words, end)
                && lexicon.self_name_after(folded, words, end)))
}

/// True when only spaces stand between word `at` and the word before it.
fn spaced(folded: &Folded, words: &[Word], at: usize) -> bool {
    words.get(at).is_some_and(|w| {
        w.gap == Gap::Joiner && folded.as_str()[w.gap_range.clone()].chars().all(|c| c == ' ')
    })
}

/// True when a tier word in what an agent or tool says about itself is its tier: a configured
/// or displayed tier word standing as a word of its own; any tier word that is the whole text (a
/// tag, a label) or stands right before a role noun of the data's `profile_nouns` ("our
/// flagship reviewer"). Half of a compound (`pro-forma`) never is.
fn profile_tier(lexicon: &Lexicon, folded: &Folded, words: &[Word], h: &LexHit<'_>) -> bool {
    if compound(folded, words, h) {
        return false;
    }
    let whole = h.words.start == 0 && h.words.end == words.len();
    let at = size_run(lexicon, folded, words, h.words.end);
    let role =
        words.get(at).is_some_and(|w| w.gap == Gap::Joiner) && lexicon.profile_noun_after(folded, words, at);
    h.own || whole || role
}

/// True when a name (`gemini-researcher`, `opus_reviewer`, `llama-coder`) holds a role noun of
/// the data's `profile_nouns` other than the first word of hit `h` (a variant word of its model
/// id may be one): the agent goes by its model's name.
fn role_in_name(lexicon: &Lexicon, folded: &Folded, words: &[Word], h: &LexHit<'_>) -> bool {
    (0..words.len()).any(|k| k != h.words.start && lexicon.profile_noun_after(folded, words, k))
}

/// The words a kept hit `i` replaces: its own, and for a tier word or a parameter count that
/// labels a noun across size words, those size words and the ones right before it ("an
/// efficient small model" → "an [tier] model", "a small efficient model" → "a [tier] model"),
/// never reaching into another hit.
fn taken_along(
    lexicon: &Lexicon,
    folded: &Folded,
    words: &[Word],
    hits: &[LexHit<'_>],
    i: usize,
) -> (usize, usize) {
    let h = &hits[i];
    let (first, end) = (h.words.start, h.words.end);
    if !sizes_between(h) {
        return (first, end);
    }
    let after = size_run(lexicon, folded, words, end);
    let labels = near(folded, words, after)
        && (lexicon.noun_after(folded, words, after) || lexicon.profile_noun_after(folded, words, after));
    if !labels {
        return (first, end);
    }
    let before = size_run_before(lexicon, folded, words, first);
    let floor = if i > 0 { hits[i - 1].words.end } else { 0 };
    let ceiling = hits.get(i + 1).map_or(words.len(), |n| n.words.start);
    (before.max(floor).min(first), after.min(ceiling).max(end))
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
