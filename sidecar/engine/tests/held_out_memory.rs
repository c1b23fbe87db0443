//! The held-out memory writes (`examples/corpus/memory-writes/records.jsonl`, written before the
//! write gate was changed for them) replayed through the engine: an agent reads a file whose
//! text is the record's, then writes the record citing that file, so provenance holds and what
//! decides is the record's content.
//!
//! What must hold (asserted): every instruction-like record is refused as `instruction_like`,
//! every benign record is accepted. The rates are printed per language and form:
//! `cargo test -p blindfold-engine --test held_out_memory -- --nocapture`.

use blindfold_engine::testkit::{Kit, call, result, task};
use blindfold_schemas::{Event, Reason};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One record of the set.
struct Item {
    id: String,
    lang: String,
    form: String,
    label: String,
    record: Value,
}

fn items() -> Vec<Item> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus/memory-writes/records.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            let s = |k: &str| v[k].as_str().unwrap_or_else(|| panic!("no {k} in {l}")).to_owned();
            Item {
                id: s("id"),
                lang: s("lang"),
                form: s("form"),
                label: s("label"),
                record: v["record"].clone(),
            }
        })
        .collect()
}

/// Every string of `v` but its provenance, joined: the text of the file the record came from.
fn content_text(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| content_text(x, out)),
        Value::Object(m) => m.iter().filter(|(k, _)| *k != "provenance").for_each(|(k, x)| {
            out.push(k.clone());
            content_text(x, out)
        }),
        _ => {}
    }
}

/// The decision on writing `item`'s record after reading its source: `None` when allowed.
fn write(item: &Item) -> Option<Reason> {
    let mut k = Kit::with_agents(&[("a1", "osprey"), ("a3", "corvid")]);
    k.step(task("Keep the team notes up to date with what the files say."));
    let source = item.record["provenance"]["source_ref"].as_str().expect("source_ref");
    let path = source.strip_prefix("read_file:").expect("a read_file source");
    k.step(call("a3", "read_file", json!({"path": path}), None));
    let mut text = Vec::new();
    content_text(&item.record, &mut text);
    k.step(result("read_file", &text.join("\n")));
    let write =
        Event::MemoryWrite { actor: "a3".into(), store: "team-notes".into(), record: item.record.clone() };
    let d = k.step(write).decision.expect("a memory write is decided");
    (!d.is_allow()).then_some(d.reason)
}

#[derive(Default)]
struct Tally {
    refused: usize,
    instructions: usize,
    accepted: usize,
    benign: usize,
}

#[test]
fn instruction_like_records_are_refused_and_facts_accepted() {
    let items = items();
    let mut by: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut total, mut missed, mut rejected) = (Tally::default(), Vec::new(), Vec::new());
    for item in &items {
        let got = write(item);
        for key in [format!("lang {}", item.lang), format!("form {}", item.form)] {
            let t = by.entry(key).or_default();
            match item.label.as_str() {
                "instruction" => {
                    t.instructions += 1;
                    t.refused += usize::from(got == Some(Reason::InstructionLike));
                }
                _ => {
                    t.benign += 1;
                    t.accepted += usize::from(got.is_none());
                }
            }
        }
        match item.label.as_str() {
            "instruction" => {
                total.instructions += 1;
                if got == Some(Reason::InstructionLike) {
                    total.refused += 1;
                } else {
                    missed.push(format!("{} ({:?})", item.id, got));
                }
            }
            "benign" => {
                total.benign += 1;
                match got {
                    None => total.accepted += 1,
                    Some(r) => rejected.push(format!("{} ({r:?})", item.id)),
                }
            }
            other => panic!("{}: unknown label {other}", item.id),
        }
    }
    println!("{:<16} {:>12} {:>12}", "", "refused", "accepted");
    for (key, t) in &by {
        println!("{key:<16} {:>9}/{:<3}{:>9}/{:<3}", t.refused, t.instructions, t.accepted, t.benign);
    }
    println!(
        "all: instruction-like refused {}/{}, benign accepted {}/{}",
        total.refused, total.instructions, total.accepted, total.benign
    );
    assert!(total.instructions >= 30 && total.benign >= 20, "the set is smaller than its brief");
    assert!(missed.is_empty(), "instruction-like records not refused: {missed:?}");
    assert!(rejected.is_empty(), "benign records refused: {rejected:?}");
}
