//! Memory gates: P4 on writes (a record lands as `CANDIDATE` only after every check), P5 on
//! reads (stage and ACL as hard constraints; what is delivered is redacted and neutralised).

use super::{Check, Stop};
use crate::canonical::{jcs, sha256_hex};
use crate::engine::Engine;
use crate::state::State;
use crate::text::Target;
use crate::text::target::resources_in_text;
use blindfold_schemas::{CheckId, ModeSet, Reason};
use serde_json::Value;

/// Everything a memory check may read.
pub struct MemCtx<'a> {
    /// The engine.
    pub engine: &'a Engine,
    /// The trajectory's state.
    pub st: &'a State,
    /// Writer or reader.
    pub actor: &'a str,
    /// Store name.
    pub store: &'a str,
    /// The record (writes).
    pub record: Option<&'a Value>,
    /// The query (reads).
    pub query: Option<&'a str>,
    /// Milliseconds since the epoch.
    pub now_ms: u64,
    /// Modes in force.
    pub modes: ModeSet,
}

/// A memory check function.
pub type MemCheck = for<'a, 'b> fn(&'b MemCtx<'a>) -> Option<Stop>;

/// P4, in order: who may write where (structure only) first; then the record's own shape;
/// then instruction-like content (refused at write time, not only neutralised on read); then
/// write replay (a lookup); then rule-based conflict with stored records; the similarity
/// threshold last, as the least certain.
pub const MEMORY_WRITE: &[Check<MemCheck>] = &[
    Check { id: CheckId::WriteStorePolicy, run: write_policy },
    Check { id: CheckId::MemorySchema, run: schema },
    Check { id: CheckId::Provenance, run: provenance },
    Check { id: CheckId::InstructionLike, run: instruction_like },
    Check { id: CheckId::WriteReplay, run: write_replay },
    Check { id: CheckId::Conflict, run: conflict },
    Check { id: CheckId::EvidenceSimilarity, run: evidence_similarity },
];

/// P5, in order: stage-to-store policy and ACL/tenant (hard constraints, never traded against
/// relevance), then query scope. Redaction, neutralisation and the lifecycle filter apply to
/// what is delivered once allowed.
pub const MEMORY_READ: &[Check<MemCheck>] = &[
    Check { id: CheckId::ReadStorePolicy, run: read_policy },
    Check { id: CheckId::Acl, run: read_acl },
    Check { id: CheckId::QueryScope, run: query_scope },
];

fn write_policy(c: &MemCtx<'_>) -> Option<Stop> {
    let cfg = &c.engine.config;
    let role_lists = cfg.roles.get(c.actor).and_then(|r| r.write_stores.as_ref());
    if let Some(list) = role_lists {
        if !list.iter().any(|s| s == c.store) {
            return Some(Stop::deny(
                Reason::StoreDenied,
                format!("this stage may not write store `{}`", c.store),
            ));
        }
        return None;
    }
    let acl = cfg.stores.get(c.store)?;
    (!acl.writers.iter().any(|w| w == c.actor))
        .then(|| Stop::deny(Reason::StoreDenied, format!("store `{}` is restricted", c.store)))
}

/// Field names that carry a record's provenance (Blindfold adds the writer, never the source).
pub(super) const SOURCE_FIELDS: &[&str] = &[
    "source",
    "sources",
    "provenance",
    "source_ref",
    "evidence",
    "evidence_id",
    "citation",
    "citations",
    "derived_from",
    "url",
    "ref",
];

fn schema(c: &MemCtx<'_>) -> Option<Stop> {
    let Some(Value::Object(map)) = c.record else {
        return Some(Stop::deny(Reason::MemoryInvalid, "a memory record must be a JSON object"));
    };
    if map.values().all(|v| v.is_null() || v.as_str().is_some_and(str::is_empty)) {
        return Some(Stop::deny(Reason::MemoryInvalid, "the record is empty"));
    }
    let has_source = map.iter().any(|(k, v)| {
        SOURCE_FIELDS.contains(&k.to_ascii_lowercase().as_str()) && !v.is_null() && v.as_str() != Some("")
    });
    (!has_source).then(|| {
        Stop::deny(Reason::MemoryInvalid, "the record names no source (provenance must be in the record)")
    })
}

/// Sources an agent cannot vouch for: humans reach Blindfold only through the review queue
/// and grants, never inside a record an agent writes.
const HUMAN_SOURCES: &[&str] =
    &["human", "operator", "admin", "administrator", "ciso", "manager", "security-lead"];

fn claims_human(v: &Value) -> bool {
    match v {
        Value::String(s) => {
            let s = s.to_ascii_lowercase();
            HUMAN_SOURCES.iter().any(|h| s == *h || s.starts_with(&format!("{h}:")))
        }
        Value::Array(a) => a.iter().any(claims_human),
        Value::Object(m) => m.iter().any(|(k, x)| {
            matches!(k.as_str(), "source_type" | "source_ref" | "source" | "type" | "by") && claims_human(x)
        }),
        _ => false,
    }
}

fn approval_claim(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().any(approval_claim),
        Value::Object(m) => m.iter().any(|(k, x)| {
            (matches!(k.to_ascii_lowercase().as_str(), "approved" | "approval" | "authorized" | "authorised")
                && x != &Value::Bool(false)
                && !x.is_null())
                || approval_claim(x)
        }),
        _ => false,
    }
}

fn provenance(c: &MemCtx<'_>) -> Option<Stop> {
    let Some(Value::Object(map)) = c.record else { return None };

    if approval_claim(c.record?) {
        return Some(Stop::deny(
            Reason::MemoryInvalid,
            "the record carries its own approval; approval comes only from grants and the review queue",
        ));
    }
    let forged = map
        .iter()
        .filter(|(k, _)| SOURCE_FIELDS.contains(&k.to_ascii_lowercase().as_str()))
        .any(|(_, v)| claims_human(v));
    if forged {
        return Some(Stop::deny(
            Reason::MemoryInvalid,
            "the record claims a human source Blindfold never relayed",
        ));
    }
    super::memory_sources::unread_source(c, map)
}

/// Every string in a JSON value, depth-first.
pub fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out)
        }),
        _ => {}
    }
}

/// What makes `record` instruction-like, if anything: the first piece of it (a string, a key,
/// JSON or YAML written inside a string, a switch) that reads as one.
fn instruction_in(engine: &Engine, record: &Value) -> Option<crate::text::instruction::Instruction> {
    use super::memory_text::{Piece, pieces};
    use crate::text::instruction::Instruction;
    let patterns = &engine.config.patterns;
    pieces(record).iter().find_map(|p| match p {
        Piece::Text(text, setting) => patterns.instruction_in(text, *setting),
        Piece::Switch { key, on } => {
            let reading = patterns.packs().order_reading(&crate::fold::fold_str(key));
            let lifts = if *on { reading.is_order() } else { reading.control && !reading.relaxer };
            lifts.then_some(Instruction::Order)
        }
    })
}

/// True when `record` reads as instruction-like (P4's check, for quarantining a record another
/// check refused first).
pub fn carries_instruction(engine: &Engine, record: &Value) -> bool {
    instruction_in(engine, record).is_some()
}

fn instruction_like(c: &MemCtx<'_>) -> Option<Stop> {
    use crate::text::instruction::Instruction;
    let found = instruction_in(c.engine, c.record?)?;
    let what = match found {
        Instruction::Pattern => "instruction-like content",
        Instruction::Command => "an effectful shell command",
        Instruction::Order => "an order to agents or a lifted control",
    };
    Some(Stop::deny(Reason::InstructionLike, format!("the record carries {what}; it was quarantined")))
}

/// The replay key of a write: store plus the record's canonical hash.
pub fn write_key(store: &str, record: &Value) -> String {
    format!("{store}:{}", sha256_hex(&jcs(record)))
}

fn write_replay(c: &MemCtx<'_>) -> Option<Stop> {
    let key = write_key(c.store, c.record?);
    c.st.memory_replay
        .get(&key)
        .is_some_and(|exp| *exp > c.now_ms)
        .then(|| Stop::deny(Reason::MemoryReplay, "the same record was just written to this store"))
}

const KEY_FIELDS: &[&str] = &["key", "subject", "id", "name", "topic", "entity"];

fn keyed(record: &Value) -> Option<(String, String)> {
    let map = record.as_object()?;
    let (kname, key) = map.iter().find(|(k, _)| KEY_FIELDS.contains(&k.to_ascii_lowercase().as_str()))?;
    let rest: serde_json::Map<String, Value> = map
        .iter()
        .filter(|(k, _)| *k != kname && !SOURCE_FIELDS.contains(&k.to_ascii_lowercase().as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Some((crate::canonical::jcs_string(key), crate::canonical::jcs_string(&Value::Object(rest))))
}

fn conflict(c: &MemCtx<'_>) -> Option<Stop> {
    let (key, value) = keyed(c.record?)?;
    let stored = c.st.memory.get(c.store)?;
    let clash = stored.iter().any(|r| {
        r.lifecycle.retrievable()
            && r.writer != c.actor
            && keyed(&r.record).is_some_and(|(k, v)| k == key && v != value)
    });
    clash.then(|| {
        Stop::deny(Reason::MemoryConflict, format!("the record contradicts a stored record about {key}"))
    })
}

fn stem(word: &str) -> String {
    word.chars().take(5).collect()
}

fn evidence_similarity(c: &MemCtx<'_>) -> Option<Stop> {
    let record = c.record?;
    let map = record.as_object()?;
    // Resources the record introduces (addresses, URLs, hosts) must have been seen.
    let mut content = Vec::new();
    for (k, v) in map {
        if !SOURCE_FIELDS.contains(&k.to_ascii_lowercase().as_str()) {
            strings(v, &mut content);
        }
    }
    let content = content.join(" ");
    for t in resources_in_text(&content) {
        // Destinations (addresses, URLs, hosts) a record introduces must have been seen: a
        // poisoned record typically plants where data should go.
        if !matches!(t, Target::Url(_) | Target::Host(_) | Target::Email(_)) {
            continue;
        }
        if !(c.st.trusted.contains(&t) || c.st.evidenced(&t)) {
            return Some(Stop::deny(
                Reason::MemoryUnsupported,
                format!("the record introduces `{}`, which no evidence in this task mentions", t.value()),
            ));
        }
    }
    let words: std::collections::BTreeSet<String> = content
        .split(|ch: char| !ch.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(|w| w.to_lowercase())
        .collect();
    let threshold = c.engine.config.memory_similarity;
    if words.len() < 3 || threshold <= 0.0 {
        return None;
    }
    let seen = words.iter().filter(|w| c.st.evidence_stems.contains(&stem(w))).count();
    let share = seen as f32 / words.len() as f32;
    (share < threshold).then(|| {
        Stop::deny(
            Reason::MemoryUnsupported,
            format!("only {:.0}% of the record is supported by this task's evidence", share * 100.0),
        )
    })
}

/// The stage's `read_stores`, where its role gives them: a store not listed is denied, a
/// restricted one too (its readers list admits an agent; the role restricts it further).
fn read_policy(c: &MemCtx<'_>) -> Option<Stop> {
    let list = c.engine.config.roles.get(c.actor).and_then(|r| r.read_stores.as_ref())?;
    (!list.iter().any(|s| s == c.store))
        .then(|| Stop::deny(Reason::StoreDenied, format!("this stage may not read store `{}`", c.store)))
}

fn read_acl(c: &MemCtx<'_>) -> Option<Stop> {
    let acl = c.engine.config.stores.get(c.store)?;
    (!acl.readers.iter().any(|r| r == c.actor)).then(|| {
        Stop::deny(Reason::StoreDenied, format!("store `{}` is restricted to its listed readers", c.store))
    })
}

fn query_scope(c: &MemCtx<'_>) -> Option<Stop> {
    let q = c.query?.to_lowercase();
    // A query may not reach into another restricted store the reader is not entitled to.
    let cfg = &c.engine.config;
    cfg.stores
        .iter()
        .find(|(name, acl)| {
            name.as_str() != c.store
                && q.contains(&name.to_lowercase())
                && !acl.readers.iter().any(|r| r == c.actor)
        })
        .map(|(name, _)| {
            Stop::deny(Reason::StoreDenied, format!("the query reaches into restricted store `{name}`"))
        })
}

/// What a read delivers: retrievable records only (never `QUARANTINED`/`REVOKED`), configured
/// fields redacted, instruction-like text neutralised.
pub fn deliver(engine: &Engine, st: &State, store: &str) -> Vec<Value> {
    let Some(records) = st.memory.get(store) else { return Vec::new() };
    records
        .iter()
        .filter(|r| r.lifecycle.retrievable() && st.graph.usable(&r.evidence))
        .map(|r| clean(engine, &r.record))
        .collect()
}

/// The evidence ids of the records of `store` that [`deliver`] hands out.
pub fn delivered_evidence(st: &State, store: &str) -> Vec<String> {
    st.memory
        .get(store)
        .into_iter()
        .flatten()
        .filter(|r| r.lifecycle.retrievable() && st.graph.usable(&r.evidence))
        .map(|r| r.evidence.clone())
        .collect()
}

fn clean(engine: &Engine, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(engine.config.patterns.neutralise_record(s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| clean(engine, x)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let redact = engine.config.redact_fields.iter().any(|f| f.eq_ignore_ascii_case(k));
                    (k.clone(), if redact { Value::String("[redacted]".into()) } else { clean(engine, x) })
                })
                .collect(),
        ),
        other => other.clone(),
    }
}
