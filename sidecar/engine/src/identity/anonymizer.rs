//! The anonymizer of one trajectory: a lexicon plus an alias map, growing as displayed
//! identities are seen.

use super::alias::AliasMap;
use super::lexicon::{Lexicon, LexiconBuilder, WordKind};
use super::self_id::self_identifications;
use super::text::Field;
use blindfold_schemas::AgentIdentity;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Rewrites what flows toward the coordinator so that no identity word reaches it (SPEC §4).
///
/// Cheap to clone (the compiled lexicon is shared); every rewrite method takes `&self`, and the
/// `observe_*` methods, which add displayed identities, rebuild the lexicon only when a new word
/// appears.
#[derive(Debug, Clone)]
pub struct Anonymizer {
    lexicon: Lexicon,
    aliases: AliasMap,
    /// Folded lexicon words that are identity wherever they stand in what this anonymizer
    /// rewrites: words found to be identity in another field of the same definition (see
    /// [`Anonymizer::in_definition`]). Empty for a trajectory's anonymizer.
    scope: Arc<BTreeSet<String>>,
}

impl Anonymizer {
    /// An anonymizer over `lexicon` (true identities and extra words) and `aliases`.
    pub fn new(lexicon: Lexicon, aliases: AliasMap) -> Self {
        Self { lexicon, aliases, scope: Arc::default() }
    }

    /// This anonymizer for the fields of one definition (an MCP tool or prompt with its schema,
    /// an agent-list line): a lexicon word that is identity in one of `fields` (each a text and
    /// its strictness) is identity in all of them — "What to ask Gemini" in a property
    /// description when the tool's description names "Gemini 2.5 Pro". Words found are added to
    /// those already in scope. A vendor word and a family or model word of the same provider of
    /// the data anywhere in the definition name each other, as they do side by side in a clause
    /// ("Uses xAI search" in a skill named "Grok trend scan"): both are in scope.
    pub fn in_definition<'a>(&self, fields: impl IntoIterator<Item = (&'a str, Field)>) -> Anonymizer {
        let mut scope = (*self.scope).clone();
        let mut providers = Vec::new();
        for (text, field) in fields {
            let (identity, named) = self.definition_words(text, field);
            scope.extend(identity);
            providers.extend(named);
        }
        for (provider, vendor, key) in &providers {
            if providers.iter().any(|(p, v, _)| p == provider && v != vendor) {
                scope.insert(key.clone());
            }
        }
        if scope.len() == self.scope.len() {
            return self.clone();
        }
        Anonymizer { scope: Arc::new(scope), ..self.clone() }
    }

    /// True when the folded lexicon word `key` is in this anonymizer's definition scope.
    pub(crate) fn in_scope(&self, key: &str) -> bool {
        self.scope.contains(key)
    }

    /// The compiled lexicon.
    pub fn lexicon(&self) -> &Lexicon {
        &self.lexicon
    }

    /// The alias map (kept inside Blindfold; record its seed in the trace).
    pub fn aliases(&self) -> &AliasMap {
        &self.aliases
    }

    /// Mutable alias map (late agents get the next free alias).
    pub fn aliases_mut(&mut self) -> &mut AliasMap {
        &mut self.aliases
    }

    /// The alias of `agent`, assigning the next free one if it has none yet.
    pub fn alias(&mut self, agent: &str) -> String {
        self.aliases.ensure(agent).to_owned()
    }

    /// Adds displayed identity words; true when the lexicon changed.
    pub fn observe_identity(&mut self, displayed: &AgentIdentity) -> bool {
        self.extend(|b| {
            b.identity(displayed);
        })
    }

    /// Harvests displayed identity from an A2A agent card (v1.0 or v0.3) of `agent`: its name
    /// (mapped to the alias), `provider.organization` and the provider URL's host, and model
    /// names it self-identifies with in `description` and skills. True when the lexicon changed.
    pub fn observe_card(&mut self, agent: &str, card: &Value) -> bool {
        let mut words: Vec<(String, WordKind)> = Vec::new();
        if let Some(name) = card.get("name").and_then(Value::as_str) {
            words.push((name.to_owned(), WordKind::Agent(agent.to_owned())));
            // A versioned model name inside the card's name ("corvid-9-ultra research agent").
            words.extend(
                name.split_whitespace()
                    .filter(|t| versioned_name(t))
                    .map(|t| (t.to_owned(), WordKind::Model)),
            );
        }
        let provider = card.get("provider");
        if let Some(org) = provider.and_then(|p| p.get("organization")).and_then(Value::as_str) {
            words.push((org.to_owned(), WordKind::Provider));
        }
        if let Some(host) = provider.and_then(|p| p.get("url")).and_then(Value::as_str).and_then(url_host) {
            words.push((host, WordKind::Provider));
        }
        let mut texts: Vec<&str> = card.get("description").and_then(Value::as_str).into_iter().collect();
        for skill in card.get("skills").and_then(Value::as_array).into_iter().flatten() {
            texts
                .extend(["name", "description"].iter().filter_map(|k| skill.get(*k).and_then(Value::as_str)));
            let examples = skill.get("examples").and_then(Value::as_array);
            texts.extend(examples.into_iter().flatten().filter_map(Value::as_str));
        }
        for t in texts {
            words.extend(harvest_text(t));
        }
        self.extend_words(words)
    }

    /// Harvests self-identification ("As X-9 from Acme …") from agent-written text; true when
    /// the lexicon changed.
    pub fn observe_text(&mut self, text: &str) -> bool {
        self.extend_words(harvest_text(text))
    }

    /// Harvests displayed identity from structured JSON an agent sent (A2A `metadata`, harness
    /// frames such as `modelApplied: "vendor/model-2"`, MCP `serverInfo`): string values under
    /// keys naming a model, family, tier or provider, anywhere in `value`. Model and family
    /// values are taken only when they look like model names (digits, `-`, `.` or `/`); a
    /// `vendor/model` value adds both halves. True when the lexicon changed.
    pub fn observe_json(&mut self, value: &Value) -> bool {
        let mut words = Vec::new();
        collect_json(value, None, &mut words);
        self.extend_words(words)
    }

    /// Applies `f` to a copy of the lexicon's builder and rebuilds; true when words were added.
    pub fn extend(&mut self, f: impl FnOnce(&mut LexiconBuilder)) -> bool {
        let before = self.lexicon.to_builder();
        let mut b = before.clone();
        f(&mut b);
        let changed = b != before;
        if changed {
            self.lexicon = b.build();
        }
        changed
    }

    fn extend_words(&mut self, mut words: Vec<(String, WordKind)>) -> bool {
        // A displayed model name shows its family too: "corvid-9-ultra" is a "Corvid" model.
        let stems: Vec<(String, WordKind)> = words
            .iter()
            .filter(|(_, k)| *k == WordKind::Model)
            .filter_map(|(w, _)| family_stem(w))
            .map(|stem| (stem.to_owned(), WordKind::Family))
            .collect();
        words.extend(stems);
        // Displayed words are attacker-controlled: a one- or two-letter "name" would mangle text.
        // Words the configuration opted out of are not learned either.
        let b = self.lexicon.to_builder();
        words.retain(|(w, _)| displayed_len(w) >= MIN_DISPLAYED_CHARS && !b.is_allowed(w));
        if words.iter().all(|(w, k)| b.has(w, k)) {
            return false;
        }
        self.extend(|b| {
            for (w, k) in words {
                b.word(&w, k);
            }
        })
    }
}

/// Letters and digits in a displayed word once trimmed of surrounding punctuation.
fn displayed_len(word: &str) -> usize {
    word.trim_matches(|c: char| !c.is_alphanumeric()).chars().count()
}

/// Shortest displayed (harvested) word accepted into the lexicon.
const MIN_DISPLAYED_CHARS: usize = 3;

/// Words too common to stand for a model family on their own: "open-9" names no family "open",
/// and rewriting "open" everywhere would mangle text.
const COMMON_STEMS: &[&str] = &[
    "open",
    "deep",
    "super",
    "mini",
    "pro",
    "max",
    "large",
    "small",
    "medium",
    "fast",
    "smart",
    "code",
    "chat",
    "model",
    "agent",
    "assistant",
    "research",
    "the",
    "big",
    "base",
    "lite",
    "turbo",
    "ultra",
    "nano",
    "plus",
    "flash",
    "instruct",
    "preview",
    "beta",
    "alpha",
    "test",
    "new",
    "next",
    "gen",
    "auto",
    "best",
    "top",
    "free",
    "helper",
    "worker",
    "bot",
    "team",
    "data",
    "web",
    "search",
    "reviewer",
    "planner",
    "coder",
    "writer",
];

/// A token naming a versioned model: letters and digits, joined by `-` or `.` (`corvid-9-ultra`,
/// `x1.5`), not a plain word or number.
fn versioned_name(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_alphabetic())
        && token.chars().any(|c| c.is_ascii_digit())
        && token.contains(['-', '.'])
        && token.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// The family a versioned model name shows: its leading letters when a version follows
/// (`corvid-9-ultra`, `gpt4o` → `gpt`), at least three long and not a common word.
fn family_stem(model: &str) -> Option<&str> {
    let model = model.rsplit('/').next().unwrap_or(model);
    let letters = model.len() - model.trim_start_matches(|c: char| c.is_ascii_alphabetic()).len();
    let (stem, rest) = model.split_at(letters);
    let follows =
        rest.chars().next().is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '_' | '.' | ' '));
    let versioned = rest.chars().any(|c| c.is_ascii_digit());
    let common = COMMON_STEMS.iter().any(|w| w.eq_ignore_ascii_case(stem));
    (letters >= MIN_DISPLAYED_CHARS && follows && versioned && !common).then_some(stem)
}

fn key_kind(key: &str) -> Option<WordKind> {
    let k = key.to_ascii_lowercase();
    if k.contains("provider") || k.contains("vendor") {
        Some(WordKind::Provider)
    } else if k.contains("family") {
        Some(WordKind::Family)
    } else if k.contains("tier") {
        Some(WordKind::Tier)
    } else if k.contains("model") {
        Some(WordKind::Model)
    } else {
        None
    }
}

fn collect_json(value: &Value, kind: Option<&WordKind>, out: &mut Vec<(String, WordKind)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let inner = key_kind(k);
                collect_json(v, inner.as_ref().or(kind), out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_json(v, kind, out)),
        Value::String(s) => match kind {
            Some(WordKind::Model | WordKind::Family) => {
                let looks_like_model =
                    |t: &str| t.chars().any(|c| c.is_ascii_digit() || matches!(c, '-' | '.' | '/'));
                if !looks_like_model(s) {
                    return;
                }
                out.push((s.clone(), WordKind::Model));
                if let Some((vendor, model)) = s.split_once('/') {
                    out.push((vendor.to_owned(), WordKind::Provider));
                    out.push((model.to_owned(), WordKind::Model));
                }
            }
            Some(k @ (WordKind::Provider | WordKind::Tier)) => out.push((s.clone(), k.clone())),
            _ => {}
        },
        _ => {}
    }
}

fn harvest_text(text: &str) -> Vec<(String, WordKind)> {
    self_identifications(text)
        .into_iter()
        .map(|(s, e, what)| {
            let kind =
                if what == super::text::PROVIDER_PLACEHOLDER { WordKind::Provider } else { WordKind::Model };
            (text[s..e].to_owned(), kind)
        })
        .collect()
}

/// The host of an `http(s)` URL without a leading `www.`.
pub(crate) fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#', ':']).next()?.trim_start_matches("www.");
    (!host.is_empty()).then(|| host.to_owned())
}
