//! Observed derivation by content (SPEC §5 "provenance ancestry that Blindfold observed", seed
//! `evidence-state` §18–21): what Blindfold relays to an agent carries the content of earlier
//! responses and tool results when it repeats their wording — a handoff that pastes another
//! agent's answer, a whole transcript, a paraphrase that keeps its phrases — and a tool result
//! that repeats an earlier one's text is a copy of it (a mirror of a page is that page).
//!
//! Content is compared as sets of word shingles (four consecutive words, or four consecutive
//! characters of a script written without spaces) of the folded text, so the rule holds for any
//! language and survives re-wrapping, punctuation, case and look-alike characters. Shingles that also occur in
//! the user's task input carry nothing from an agent (they were the user's words first).

use std::collections::{BTreeSet, HashMap, HashSet};

/// Words per shingle.
const SHINGLE: usize = 4;

/// Shared shingles that always make a relay derived, whatever the length of the source.
const RELAYED_SHINGLES: usize = 3;

/// Jaccard similarity of shingle sets at or above which a tool result is a copy of another.
const COPY_SIMILARITY: f64 = 0.8;

/// Longest text shingled, in bytes (a longer text is judged by its beginning).
const MAX_TEXT: usize = 64 * 1024;

/// Texts of more words than this are indexed by a content-defined sample of their shingles (one
/// in [`SAMPLE`], the same ones in every text), so a trajectory's index stays small; a short text
/// — most answers and handoffs — is indexed whole.
const LONG: usize = 256;

/// One shingle in this many is kept for a long text.
const SAMPLE: u64 = 8;

/// The shingles of `text` (hashed), over the words of the engine's one folding step
/// ([`crate::fold`]: compatibility forms, case, confusables; a character of a script written
/// without spaces is a word of its own).
pub fn shingles(text: &str) -> HashSet<u64> {
    let end = (0..=text.len().min(MAX_TEXT)).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    let folded = crate::fold::fold(&text[..end]);
    let words = folded.words();
    let tokens: Vec<&str> = words.iter().map(|w| &folded.as_str()[w.range.clone()]).collect();
    tokens.windows(SHINGLE).map(hash_window).collect()
}

fn hash_window(words: &[&str]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    words.hash(&mut h);
    h.finish()
}

/// The shingles of `text` kept in the index, and whether they are a sample (a long text).
fn indexed(text: &str) -> (HashSet<u64>, bool) {
    let all = shingles(text);
    let long = all.len() > LONG;
    (if long { all.into_iter().filter(|h| h % SAMPLE == 0).collect() } else { all }, long)
}

/// The number in an artifact id (`ev-12` → 12).
fn number(id: &str) -> Option<u32> {
    id.strip_prefix("ev-")?.parse().ok()
}

/// At most this many artifacts of a source already indexed under a shingle before a later
/// artifact of that source is no longer added to it. The first artifact of every source is always
/// indexed whole, so a source's content is never lost; what the bound stops is a trajectory that
/// repeats one text (a tool polled thousands of times) making every later lookup walk all of its
/// copies — the cost of a lookup stays bounded by the number of sources, not the trajectory's
/// length.
const POSTINGS_PER_SOURCE: usize = 16;

/// Where an indexed artifact comes from.
#[derive(Debug, Clone, Copy)]
struct Origin {
    /// How many shingles it is indexed by, and whether they are a sample.
    size: usize,
    sampled: bool,
    /// Its source (interned): the agent for a response, the observed resource for a tool result.
    source: u32,
    /// A tool result (what [`ContentIndex::copy_of`] may name), not a response.
    tool_result: bool,
}

/// One artifact under a shingle: its number and its source, kept together so that bounding a
/// list per source reads the list alone.
#[derive(Debug, Clone, Copy)]
struct Posting {
    artifact: u32,
    source: u32,
}

/// The content of the artifacts of one trajectory, by shingle.
#[derive(Debug, Clone, Default)]
pub struct ContentIndex {
    /// Shingle → the artifacts whose content holds it, oldest first, each as its number and its
    /// interned source (bounded per source: [`POSTINGS_PER_SOURCE`]).
    by_shingle: HashMap<u64, Vec<Posting>>,
    /// Artifact number → where it comes from and how it is indexed.
    origins: HashMap<u32, Origin>,
    /// Source key → its interned number.
    sources: HashMap<String, u32>,
    /// Shingles of the user's task input.
    trusted: HashSet<u64>,
}

impl ContentIndex {
    /// Records the user's words (task input): shingles they hold are nobody's derivation.
    pub fn trust(&mut self, text: &str) {
        self.trusted.extend(shingles(text));
    }

    /// Indexes response `id` of agent `from` (an id the graph did not give is not indexed).
    pub fn insert_response(&mut self, id: &str, text: &str, from: &str) {
        self.insert(id, text, &format!("agent:{from}"), false);
    }

    /// Indexes tool result `id` observed from `source` (its source key).
    pub fn insert_tool_result(&mut self, id: &str, text: &str, source: &str) {
        self.insert(id, text, &format!("source:{source}"), true);
    }

    fn insert(&mut self, id: &str, text: &str, source: &str, tool_result: bool) {
        let Some(n) = number(id) else { return };
        let next = self.sources.len() as u32;
        let source = *self.sources.entry(source.to_owned()).or_insert(next);
        let (own, sampled) = indexed(text);
        self.origins.insert(n, Origin { size: own.len(), sampled, source, tool_result });
        for s in own {
            let list = self.by_shingle.entry(s).or_default();
            if list.iter().filter(|p| p.source == source).count() < POSTINGS_PER_SOURCE {
                list.push(Posting { artifact: n, source });
            }
        }
    }

    /// For each artifact sharing shingles with `own` (not counting the user's): how many.
    fn shared(&self, own: &HashSet<u64>) -> HashMap<u32, usize> {
        let mut out: HashMap<u32, usize> = HashMap::new();
        for s in own.iter().filter(|s| !self.trusted.contains(s)) {
            for p in self.by_shingle.get(s).into_iter().flatten() {
                *out.entry(p.artifact).or_default() += 1;
            }
        }
        out
    }

    /// The artifacts whose content `text` carries: it shares at least [`RELAYED_SHINGLES`] of
    /// their shingles, or, for a short one, at least two and half of them.
    pub fn carried_by(&self, text: &str) -> BTreeSet<String> {
        self.shared(&shingles(text))
            .into_iter()
            .filter(|(id, n)| {
                let size = self.origins.get(id).map_or(0, |o| o.size);
                *n >= RELAYED_SHINGLES || (*n >= 2 && 2 * n >= size)
            })
            .map(|(id, _)| format!("ev-{id}"))
            .collect()
    }

    /// The earliest tool result observed from a source other than `source` that `text` copies
    /// (shingle sets at least [`COPY_SIMILARITY`] alike, compared on the same sample for a long
    /// text), if any.
    pub fn copy_of(&self, text: &str, source: &str) -> Option<String> {
        let (own, sampled) = indexed(text);
        if own.is_empty() {
            return None;
        }
        let this = self.sources.get(&format!("source:{source}")).copied();
        let mut shared: Vec<(u32, usize)> = self.shared(&own).into_iter().collect();
        shared.sort_unstable();
        shared
            .into_iter()
            .find(|(n, common)| {
                let Some(o) = self.origins.get(n) else { return false };
                let union = own.len() + o.size - common;
                // A sample and a whole set are not compared (a copy can only be missed this way
                // when one text is just under the length that samples and the other just over).
                o.tool_result
                    && Some(o.source) != this
                    && sampled == o.sampled
                    && union > 0
                    && *common as f64 / union as f64 >= COPY_SIMILARITY
            })
            .map(|(n, _)| format!("ev-{n}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_or_rephrased_answer_is_carried_and_an_unrelated_one_is_not() {
        let mut idx = ContentIndex::default();
        idx.trust("The nightly export to /srv/export failed last night. Find out why.");
        idx.insert_response("ev-1", "It is most likely the disk quota on /srv/export filling up.", "a");
        idx.insert_response("ev-2", "The build passed on the second try; nothing to change.", "b");
        let relay = "Two agents found the cause: the disk quota on /srv/export filled up.";
        assert_eq!(idx.carried_by(relay), BTreeSet::from(["ev-1".to_owned()]));
        assert!(idx.carried_by("Check p1 before it runs.").is_empty());
        // The user's own words are nobody's derivation.
        assert!(idx.carried_by("Recall: the nightly export to /srv/export failed last night.").is_empty());
    }

    #[test]
    fn unspaced_scripts_and_case_or_wrapping_do_not_hide_a_copy() {
        let mut idx = ContentIndex::default();
        idx.insert_tool_result("ev-1", "请删除锁目录然后重启所有工作进程", "/a");
        assert!(idx.carried_by("前一个代理说：请删除锁目录然后重启").contains("ev-1"));
        idx.insert_tool_result(
            "ev-2",
            "Release 4.2 of the api is broken; roll back now.",
            "https://a.example/r",
        );
        let mirror = "RELEASE 4.2 of the API\nis broken -- roll back now!";
        assert_eq!(idx.copy_of(mirror, "https://b.example/m").as_deref(), Some("ev-2"));
        assert_eq!(idx.copy_of(mirror, "https://a.example/r"), None, "a source does not copy itself");
        assert_eq!(idx.copy_of("Release 4.3 is healthy, keep it.", "https://b.example/m"), None);
    }

    #[test]
    fn a_long_text_is_sampled_and_still_found_copied_or_quoted() {
        let words: Vec<String> = (0..600).map(|i| format!("w{}x{}", i * 7919 % 1009, i % 13)).collect();
        let long = words.join(" ");
        let mut idx = ContentIndex::default();
        idx.insert_tool_result("ev-1", &long, "/log");
        let (sample, sampled) = indexed(&long);
        assert!(
            sampled && sample.len() < shingles(&long).len() / 4,
            "{} of {}",
            sample.len(),
            shingles(&long).len()
        );
        assert_eq!(idx.copy_of(&long.to_uppercase(), "/mirror").as_deref(), Some("ev-1"));
        let quote = format!("The log said: {}", words[100..260].join(" "));
        assert!(idx.carried_by(&quote).contains("ev-1"));
        assert!(idx.carried_by(&words[100..104].join(" ")).is_empty(), "four words are not a relay");
    }

    #[test]
    fn a_text_one_source_repeats_is_indexed_a_bounded_number_of_times_and_other_sources_still_count() {
        let mut idx = ContentIndex::default();
        let text = "the service answered with status ok and no further detail";
        for i in 1..=1000 {
            idx.insert_tool_result(&format!("ev-{i}"), text, "tool:status");
        }
        idx.insert_response("ev-1001", text, "b");
        assert!(idx.by_shingle.values().all(|l| l.len() <= POSTINGS_PER_SOURCE + 1), "postings bounded");
        let carried = idx.carried_by(&format!("agent b said: {text}"));
        assert!(carried.contains("ev-1") && carried.contains("ev-1001"), "{carried:?}");
        assert_eq!(idx.copy_of(text, "/mirror").as_deref(), Some("ev-1"));
        assert_eq!(idx.copy_of(text, "tool:status"), None, "a source does not copy itself");
    }
}
