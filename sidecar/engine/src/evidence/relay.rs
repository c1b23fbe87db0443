//! Lineage of what Blindfold observes and relays (SPEC §5, seed `evidence-state` §16–24, §31):
//! the evidence falsifiers' fixes, kept apart from the text analysis of `observe.rs`, which only
//! calls in here.
//!
//! - A tool result repeating an earlier one's text from another address is a copy of it: one
//!   source (its independence group and the roots of what it names are the original's), derived
//!   from the original.
//! - A newer observation of the same source (the same path or URL read again, different content)
//!   supersedes the older one, and everything derived from the older needs revalidation: old
//!   evidence is not used for the new state.
//! - What a handoff relays is what it names (targets, as before) *and* what it repeats: the
//!   responses and tool results whose wording it carries ([`ContentIndex`]), and the pages or
//!   files whose address it names. The receiving agent's later answers derive from all of them,
//!   so revoking a raw log reaches the parse, the summary and the claim built on it.
//! - A judgement whose relayed material repeats the proposer's own words (directly, or through
//!   answers that repeat them), or rests on the sources behind them, is not independent of the
//!   proposer: copies of one guess are one voice. A verify request quoting the action under
//!   review (its command, the content it writes) repeats no words of the proposer by that alone.

use crate::state::State;
use crate::text::Target;
use std::collections::{BTreeSet, HashSet};

/// Where a new tool result comes from.
pub(crate) struct Lineage {
    /// The source key it counts under (the original's, for a copy).
    pub source: String,
    /// The artifacts it derives from (the original, for a copy).
    pub derived_from: Vec<String>,
}

/// True for a source key naming one resource (a path or URL), as opposed to a tool in general.
fn specific(source: &str) -> bool {
    !source.starts_with("tool:")
}

/// The lineage of a tool result from `source` with `content`: a copy of an earlier tool result
/// from another source counts under that one's source.
pub(crate) fn tool_result_lineage(st: &State, source: &str, content: &str) -> Lineage {
    match st.content.copy_of(content, source) {
        Some(original) => {
            let canonical = st.graph.get(&original).map(|a| st.canonical_source(&a.provenance.source_ref));
            Lineage { source: canonical.unwrap_or_else(|| source.to_owned()), derived_from: vec![original] }
        }
        None => Lineage { source: source.to_owned(), derived_from: Vec::new() },
    }
}

/// Records tool result `id` from `source` (its observed source key) with `content` naming
/// `named`, whose lineage counts it under `lineage_source`; supersedes earlier observations of the same
/// resource with other content. Returns whether any was superseded (verifications resting on
/// them must be re-indexed).
pub(crate) fn record_tool_result(
    st: &mut State,
    id: &str,
    (source, lineage_source): (&str, &str),
    content: &str,
    named: &[Target],
    now_ms: u64,
) -> bool {
    if lineage_source != source {
        st.source_alias.insert(source.to_owned(), lineage_source.to_owned());
    }
    let hash = st.graph.get(id).and_then(|a| a.provenance.hash.clone());
    // Only the latest reading can be replaced: every earlier one with another hash was
    // superseded when a reading after it came.
    let older: Vec<String> = if specific(source) {
        let current = st.source_current.entry(source.to_owned()).or_default();
        let replaced = if current.hash == hash { Vec::new() } else { std::mem::take(&mut current.ids) };
        current.hash = hash;
        current.ids.push(id.to_owned());
        replaced
    } else {
        Vec::new()
    };
    for old in &older {
        let reason = format!("a newer observation of {source} ({id}) replaced it");
        st.graph.supersede_derived(old, &reason, "blindfold", now_ms);
    }
    st.source_artifacts.entry(source.to_owned()).or_default().push(id.to_owned());
    st.content.insert_tool_result(id, content, source);
    for t in named {
        st.c2_artifacts.entry(t.key()).or_default().insert(id.to_owned());
    }
    !older.is_empty()
}

/// `text` without the `quoted` argument values (each blanked where the text repeats it): what a
/// verify request relays of other agents' wording once the action under review — its command,
/// the content it writes — is left out. Quoting the action names what is judged; it carries
/// nothing of what the proposer wrote around it (repeating that still does).
pub(crate) fn unquoted<'t>(text: &'t str, quoted: &[String]) -> std::borrow::Cow<'t, str> {
    let mut out = std::borrow::Cow::Borrowed(text);
    for q in quoted.iter().filter(|q| !q.trim().is_empty()) {
        if out.contains(q.as_str()) {
            out = std::borrow::Cow::Owned(out.replace(q.as_str(), " "));
        }
    }
    out
}

/// What a handoff with `text` relays beyond the responses its targets name: the artifacts whose
/// wording it carries (first), and the tool results whose content names one of `relayed` targets
/// or that were observed from a page or file it names (second).
pub(crate) fn relayed_artifacts(
    st: &State,
    text: &str,
    relayed: &[&Target],
) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut pointed = BTreeSet::new();
    for t in relayed {
        let key = t.key();
        pointed.extend(st.c2_artifacts.get(&key).into_iter().flatten().cloned());
        pointed.extend(st.source_artifacts.get(&key).into_iter().flatten().cloned());
    }
    (st.content.carried_by(text), pointed)
}

/// The source keys `ids` (relayed artifacts) rest on: tool results' own (canonical) sources and
/// every `src:` group in their ancestry.
pub(crate) fn sources_of(st: &State, ids: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for a in ancestry(st, ids.iter().cloned()) {
        let Some(a) = st.graph.get(&a) else { continue };
        if a.provenance.source_type == "tool" {
            out.insert(st.canonical_source(&a.provenance.source_ref));
        }
        if let Some(group) = a.independence_group.strip_prefix("src:") {
            out.extend(group.split('+').map(str::to_owned));
        }
    }
    out
}

/// Records who observed the new artifact `id` (a tool result just added): the sub-agent whose
/// own call it answers (its later answers derive from it), or the coordinator (`None`: what it
/// holds, and may relay).
pub(crate) fn record_observer(st: &mut State, id: &str, observer: Option<String>) {
    match observer {
        Some(agent) => {
            st.agent_observed.entry(agent).or_default().insert(id.to_owned());
        }
        None => st.coordinator_context.push(id.to_owned()),
    }
}

/// Records that `reader` was handed the existing artifacts `ids` (memory records it read): its
/// own observation, or, for the coordinator, what it holds (each once).
pub(crate) fn record_handed(st: &mut State, ids: Vec<String>, reader: Option<&str>) {
    match reader {
        Some(agent) => st.agent_observed.entry(agent.to_owned()).or_default().extend(ids),
        None => {
            for id in ids {
                if !st.coordinator_context.contains(&id) {
                    st.coordinator_context.push(id);
                }
            }
        }
    }
}

/// Records what the coordinator held when it delegated to `to` (how much of its context, which
/// only grows): a handoff may pass it on by reference ("from the parsed rates") without
/// repeating a word of it.
pub(crate) fn record_delegated_context(st: &mut State, to: &str) {
    st.delegated_context.insert(to.to_owned(), st.coordinator_context.len());
}

/// What a response derives from ([`response_parents`]).
pub(crate) struct Parents {
    /// The artifacts it derives from directly.
    pub ids: Vec<String>,
    /// How much of the coordinator's context its ancestry holds (0: none of it as such).
    pub context_cover: usize,
}

/// The artifacts a response of `from` naming `targets` derives from: what was relayed to its
/// author, the tool results of its own calls, and the tool results that observed what it names.
/// An author that observed nothing itself can only have answered from what it was handed, so
/// its answer derives from everything the coordinator held when it delegated to it: a
/// revocation reaches a claim passed on by reference, and only ever more is marked (this
/// widens what derives from what, never what counts as independent). That prefix is reached
/// through the fewest entries whose own ancestry holds the rest
/// ([`crate::evidence::CoordinatorContext::prefix_parents`]), not copied.
pub(crate) fn response_parents(st: &State, from: &str, targets: &[Target]) -> Parents {
    let mut out: BTreeSet<String> = st.agent_relayed.get(from).cloned().unwrap_or_default();
    let mut context_cover = 0;
    match st.agent_observed.get(from).filter(|own| !own.is_empty()) {
        Some(own) => out.extend(own.iter().cloned()),
        None => {
            let held = st.delegated_context.get(from).copied().unwrap_or(0);
            out.extend(st.coordinator_context.prefix_parents(held).into_iter().cloned());
            context_cover = held;
        }
    }
    for t in targets.iter().filter(|t| matches!(t, Target::Url(_) | Target::Path(_))) {
        out.extend(st.source_artifacts.get(&t.key()).into_iter().flatten().cloned());
    }
    Parents { ids: out.into_iter().collect(), context_cover }
}

/// `ids` and every artifact they derive from, transitively.
fn ancestry(st: &State, ids: impl IntoIterator<Item = String>) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut stack: Vec<String> = ids.into_iter().collect();
    while let Some(cur) = stack.pop() {
        if seen.insert(cur.clone())
            && let Some(a) = st.graph.get(&cur)
        {
            stack.extend(a.provenance.derived_from.iter().cloned());
        }
    }
    seen
}

/// Records that the answer `id` of `from` carries the wording relayed to its author so far.
pub(crate) fn record_answer(st: &mut State, id: &str, from: &str) {
    if let Some(carried) = st.content_relayed.get(from).filter(|c| !c.is_empty()) {
        st.content_parents.insert(id.to_owned(), carried.clone());
    }
}

/// True when what Blindfold relayed to `from` repeats, directly or through answers that repeat
/// it, the words of an answer of `agent`: a judgement of `from` built on them is not independent
/// of `agent`. (Naming the same file or page as `agent` is not repeating its words: that shares a
/// source only if Blindfold observed it, which independence already counts.)
pub(crate) fn repeats_agent(st: &State, from: &str, agent: &str) -> bool {
    let mut seen = HashSet::new();
    let mut stack: Vec<&String> = st.content_relayed.get(from).into_iter().flatten().collect();
    while let Some(cur) = stack.pop() {
        if !seen.insert(cur) {
            continue;
        }
        if st.graph.get(cur).is_some_and(|a| a.producer == agent) {
            return true;
        }
        stack.extend(st.content_parents.get(cur).into_iter().flatten());
    }
    false
}
