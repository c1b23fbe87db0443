//! A trace record's JSON line written field by field: byte for byte what `serde_json` writes for
//! the record's derived `Serialize` (property-tested), without a serializer call per field.

use blindfold_engine::canonical::write_json_str;
use blindfold_schemas::{ModeSet, TraceRecord};
use serde::Serialize;

/// Appends `record` as one JSON object (no newline) to `out`.
pub fn write_record(record: &TraceRecord, out: &mut Vec<u8>) -> serde_json::Result<()> {
    // Every field by name: a field added to the record does not compile until it is written here.
    let TraceRecord {
        v,
        ts,
        trajectory,
        seq,
        kind,
        stage,
        actor_alias,
        actor_true,
        intent,
        tool,
        effect,
        target,
        action_fingerprint,
        proposal,
        proposer_alias,
        proposals,
        relations,
        decision,
        reason,
        check,
        layer,
        enforced,
        detail,
        grant_jti,
        latency_us,
        evidence_refs,
        refuted_by,
        mode,
        label,
        truth,
        prev,
    } = record;
    out.extend_from_slice(b"{\"v\":");
    write_u64(u64::from(*v), out);
    out.extend_from_slice(b",\"ts\":");
    write_u64(*ts, out);
    out.extend_from_slice(b",\"trajectory\":");
    write_json_str(trajectory, out);
    out.extend_from_slice(b",\"seq\":");
    write_u64(*seq, out);
    out.extend_from_slice(b",\"kind\":");
    serde_json::to_writer(&mut *out, kind)?;
    value(b",\"stage\":", stage.as_ref(), out)?;
    string(b",\"actor_alias\":", actor_alias.as_deref(), out);
    value(b",\"actor_true\":", actor_true.as_ref(), out)?;
    value(b",\"intent\":", intent.as_ref(), out)?;
    string(b",\"tool\":", tool.as_deref(), out);
    value(b",\"effect\":", effect.as_ref(), out)?;
    string(b",\"target\":", target.as_deref(), out);
    string(b",\"action_fingerprint\":", action_fingerprint.as_deref(), out);
    string(b",\"proposal\":", proposal.as_deref(), out);
    string(b",\"proposer_alias\":", proposer_alias.as_deref(), out);
    value(b",\"proposals\":", (!proposals.is_empty()).then_some(proposals), out)?;
    value(b",\"relations\":", (!relations.is_empty()).then_some(relations), out)?;
    value(b",\"decision\":", decision.as_ref(), out)?;
    value(b",\"reason\":", reason.as_ref(), out)?;
    string(b",\"check\":", check.as_deref(), out);
    value(b",\"layer\":", layer.as_ref(), out)?;
    if let Some(e) = enforced {
        out.extend_from_slice(if *e { b",\"enforced\":true" } else { b",\"enforced\":false" });
    }
    string(b",\"detail\":", detail.as_deref(), out);
    string(b",\"grant_jti\":", grant_jti.as_deref(), out);
    out.extend_from_slice(b",\"latency_us\":");
    write_u64(*latency_us, out);
    strings(b",\"evidence_refs\":[", evidence_refs, out);
    strings(b",\"refuted_by\":[", refuted_by, out);
    out.extend_from_slice(b",\"mode\":");
    write_mode(mode, out);
    value(b",\"label\":", label.as_ref(), out)?;
    value(b",\"truth\":", truth.as_ref(), out)?;
    out.extend_from_slice(b",\"prev\":");
    write_json_str(prev, out);
    out.push(b'}');
    Ok(())
}

/// `key` (through its `[`) and the JSON array of `list`, unless it is empty.
fn strings(key: &[u8], list: &[String], out: &mut Vec<u8>) {
    if list.is_empty() {
        return;
    }
    out.extend_from_slice(key);
    for (i, r) in list.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(r, out);
    }
    out.push(b']');
}

/// `key` and the JSON of `v`, when there is one.
fn value<T: Serialize>(key: &[u8], v: Option<&T>, out: &mut Vec<u8>) -> serde_json::Result<()> {
    if let Some(v) = v {
        out.extend_from_slice(key);
        serde_json::to_writer(&mut *out, v)?;
    }
    Ok(())
}

/// `key` and the JSON string `s`, when there is one.
fn string(key: &[u8], s: Option<&str>, out: &mut Vec<u8>) {
    if let Some(s) = s {
        out.extend_from_slice(key);
        write_json_str(s, out);
    }
}

fn write_mode(mode: &ModeSet, out: &mut Vec<u8>) {
    let ModeSet { anonymize, attest, preverify, grants, enforce } = *mode;
    let fields = [
        (&b"{\"anonymize\":"[..], anonymize),
        (b",\"attest\":", attest),
        (b",\"preverify\":", preverify),
        (b",\"grants\":", grants),
        (b",\"enforce\":", enforce),
    ];
    for (key, on) in fields {
        out.extend_from_slice(key);
        out.extend_from_slice(if on { b"true" } else { b"false" });
    }
    out.push(b'}');
}

/// The decimal digits of `n`.
fn write_u64(n: u64, out: &mut Vec<u8>) {
    use std::io::Write as _;
    // Writing into a `Vec` cannot fail.
    let _ = write!(out, "{n}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_schemas::{
        AgentIdentity, AuthorityStage, Effect, Intent, Label, Layer, Reason, RecordTruth, Relation,
        TraceKind, TraceProposal, TraceRelation, Verdict,
    };
    use proptest::prelude::*;
    use proptest::sample::select;

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![any::<String>(), "[\\x00-\\x20\"\\\\/a-z#\u{7f}\u{e9}\u{2028}\u{10000}]{0,12}"]
    }

    fn opt<T: std::fmt::Debug + Clone + 'static>(
        s: impl Strategy<Value = T> + 'static,
    ) -> impl Strategy<Value = Option<T>> {
        proptest::option::of(s)
    }

    fn record() -> impl Strategy<Value = TraceRecord> {
        let kinds = select(vec![
            TraceKind::Task,
            TraceKind::Card,
            TraceKind::Delegate,
            TraceKind::Response,
            TraceKind::ToolCall,
            TraceKind::ToolResult,
            TraceKind::MemoryWrite,
            TraceKind::MemoryRead,
            TraceKind::Control,
        ]);
        let stage = select(vec![
            AuthorityStage::Scope,
            AuthorityStage::Verify,
            AuthorityStage::Adopt,
            AuthorityStage::Execute,
        ]);
        let identity = (text(), text(), text(), text())
            .prop_map(|(model, family, tier, provider)| AgentIdentity { model, family, tier, provider });
        let intent = select(vec![Intent::Scope, Intent::Verify, Intent::Execute]);
        let effect = select(vec![Effect::Read, Effect::Mutate, Effect::External]);
        let proposal = (text(), text(), text()).prop_map(|(id, tool, fingerprint)| TraceProposal {
            id,
            tool,
            fingerprint,
        });
        let relation =
            (
                text(),
                select(vec![
                    Relation::FullSupport,
                    Relation::PartialSupport,
                    Relation::Refutes,
                    Relation::ContextOnly,
                    Relation::Irrelevant,
                    Relation::Unknown,
                ]),
                opt(text()),
                any::<bool>(),
            )
                .prop_map(|(proposal, relation, proposer_alias, counts_as_verification)| {
                    TraceRelation { proposal, relation, proposer_alias, counts_as_verification }
                });
        let truth = (any::<[bool; 4]>(), opt(text()), proptest::collection::vec(text(), 0..3)).prop_map(
            |([wrong, injected, stale, unauthorized], source, affectable)| RecordTruth {
                wrong,
                injected,
                stale,
                unauthorized,
                source,
                affectable,
            },
        );
        let verdict = select(vec![Verdict::Allow, Verdict::Deny, Verdict::Review]);
        let layer = select(vec![Layer::ContentFree, Layer::ContentDependent, Layer::Threshold, Layer::Judge]);
        let mode = any::<[bool; 5]>().prop_map(|[anonymize, attest, preverify, grants, enforce]| ModeSet {
            anonymize,
            attest,
            preverify,
            grants,
            enforce,
        });
        let head =
            (any::<u32>(), any::<u64>(), text(), any::<u64>(), kinds, opt(stage), opt(text()), opt(identity));
        let call =
            (opt(intent), opt(text()), opt(effect), opt(text()), opt(text()), opt(text()), opt(text()));
        let story = (
            proptest::collection::vec(proposal, 0..3),
            proptest::collection::vec(relation, 0..3),
            opt(verdict),
            opt(select(Reason::ALL)),
            opt(text()),
            opt(layer),
            opt(any::<bool>()),
            opt(text()),
        );
        let tail = (
            (any::<u64>(), opt(text())),
            proptest::collection::vec(text(), 0..3),
            proptest::collection::vec(text(), 0..3),
            mode,
            opt(select(vec![Label::Attack, Label::Benign])),
            opt(truth),
            text(),
        );
        (head, call, story, tail).prop_map(
            |(
                (v, ts, trajectory, seq, kind, stage, actor_alias, actor_true),
                (intent, tool, effect, target, action_fingerprint, proposal, proposer_alias),
                (proposals, relations, decision, reason, check, layer, enforced, detail),
                ((latency_us, grant_jti), evidence_refs, refuted_by, mode, label, truth, prev),
            )| TraceRecord {
                v,
                ts,
                trajectory,
                seq,
                kind,
                stage,
                actor_alias,
                actor_true,
                intent,
                tool,
                effect,
                target,
                action_fingerprint,
                proposal,
                proposer_alias,
                proposals,
                relations,
                decision,
                reason,
                check,
                layer,
                enforced,
                detail,
                grant_jti,
                latency_us,
                evidence_refs,
                refuted_by,
                mode,
                label,
                truth,
                prev,
            },
        )
    }

    proptest! {
        #[test]
        fn a_record_line_is_byte_identical_to_serde_json(r in record()) {
            let mut fast = Vec::new();
            write_record(&r, &mut fast).expect("serialise");
            let general = serde_json::to_vec(&r).expect("serialise");
            prop_assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&general));
        }
    }
}
