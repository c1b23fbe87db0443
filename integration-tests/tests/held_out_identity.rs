//! Blindfold measured on the held-out identity probes (`examples/corpus/identity-probes/`,
//! written without reading the lexicon or the anonymizer): every probe is delivered on its
//! surface through the daemon's rewriting (see `held_out_identity_support`) with the built-in
//! lexicon and the default configuration (no `[identity]` words), and what the coordinator side
//! receives is scanned by `blindfold-leak-oracle`, which shares no code with the anonymizer.
//!
//! Counted per surface and kind: probes with a leak (an `identity_tokens` word found, by the
//! oracle, in any string or key relayed or in the joined text of parts and chunks), identity
//! tokens leaked, `keep` spans lost, `gone` spans surviving, controls changed
//! (`must_remain_unchanged`). `mcp_identifier_key` (a vendor inside a property *name*, which
//! SPEC §4 does not list among the rewritten fields; Blindfold aliases such names since
//! 2026-12-03) is reported on a line of its own and kept out of the MCP totals.
//!
//! The floors below are what the code measured when they were written (docs/identity.md,
//! "Measured on the held-out probes"); they fail on a regression and are never loosened to pass.
//! Nothing in the lexicon or the anonymizer is tuned to these items.
//!
//! `cargo test -p blindfold-integration-tests --test held_out_identity -- --nocapture` prints
//! the table and every miss (no binary is needed: the test runs in process).

mod held_out_identity_support;

use blindfold_daemon::runtime::identity::Identities;
use blindfold_engine::identity::Lexicon;
use blindfold_leak_oracle::LeakOracle;
use held_out_identity_support::{Relayed, relay, strings};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One probe.
struct Probe {
    id: String,
    surface: String,
    kind: String,
    payload: Value,
    tokens: Vec<String>,
    keep: Vec<String>,
    gone: Vec<String>,
    unchanged: bool,
}

/// The probes of `file` in `examples/corpus/identity-probes/`.
fn probes(file: &str) -> Vec<Probe> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/corpus/identity-probes").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let list = |v: &Value| -> Vec<String> {
        v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            let s = |k: &str| v[k].as_str().unwrap_or_else(|| panic!("no {k} in {l}")).to_owned();
            let e = &v["expect"];
            Probe {
                id: s("id"),
                surface: s("surface"),
                kind: s("kind"),
                payload: v["payload"].clone(),
                tokens: list(&e["identity_tokens"]),
                keep: list(&e["keep"]),
                gone: list(&e["gone"]),
                unchanged: e["must_remain_unchanged"].as_bool() == Some(true),
            }
        })
        .collect()
}

/// Counts of one row.
#[derive(Default, Clone, Copy)]
struct Row {
    probes: usize,
    leaked: usize,
    tokens: usize,
    tokens_leaked: usize,
    keep: usize,
    keep_lost: usize,
    gone: usize,
    gone_kept: usize,
    controls: usize,
    controls_changed: usize,
}

impl Row {
    fn add(&mut self, o: &Row) {
        self.probes += o.probes;
        self.leaked += o.leaked;
        self.tokens += o.tokens;
        self.tokens_leaked += o.tokens_leaked;
        self.keep += o.keep;
        self.keep_lost += o.keep_lost;
        self.gone += o.gone;
        self.gone_kept += o.gone_kept;
        self.controls += o.controls;
        self.controls_changed += o.controls_changed;
    }

    fn line(&self, label: &str) -> String {
        format!(
            "{label:<44} {:>3} | leak {:>3} ({:>3}/{:<3} tok) | keep lost {:>2}/{:<2} | gone kept {:>2}/{:<2} | controls changed {:>2}/{:<2}",
            self.probes,
            self.leaked,
            self.tokens_leaked,
            self.tokens,
            self.keep_lost,
            self.keep,
            self.gone_kept,
            self.gone,
            self.controls_changed,
            self.controls
        )
    }
}

/// Measures one probe; the misses are described in `misses`.
fn measure(lexicon: &Lexicon, p: &Probe, misses: &mut Vec<String>) -> Row {
    let r: Relayed = relay(lexicon, &p.surface, &p.payload);
    if let Some(why) = &r.refused {
        misses.push(format!("{} {}/{}: refused: {why}", p.id, p.surface, p.kind));
    }
    let oracle = LeakOracle::new(&p.tokens);
    let mut found: BTreeMap<String, usize> = oracle.report_json(&r.json).into_iter().collect();
    for j in &r.joined {
        for (t, n) in oracle.report_text(j) {
            *found.entry(t).or_default() += n;
        }
    }
    let mut all = Vec::new();
    strings(&r.json, &mut all);
    all.extend(r.joined.iter().cloned());
    let present = |span: &str| all.iter().any(|s| s.contains(span));
    let keep_lost: Vec<&String> = p.keep.iter().filter(|k| !present(k)).collect();
    let gone_kept: Vec<&String> = p.gone.iter().filter(|g| present(g)).collect();
    let changed = p.unchanged && !r.unchanged;
    let shown = || if r.joined.is_empty() { r.json.to_string() } else { r.joined.join(" | ") };
    if !found.is_empty() || !keep_lost.is_empty() || !gone_kept.is_empty() || changed {
        let found: Vec<&String> = found.keys().collect();
        misses.push(format!(
            "{} {}/{}: leaked {found:?} keep lost {keep_lost:?} gone kept {gone_kept:?}{} -> {}",
            p.id,
            p.surface,
            p.kind,
            if changed { " CONTROL CHANGED" } else { "" },
            shown()
        ));
    }
    Row {
        probes: 1,
        leaked: usize::from(!found.is_empty()),
        tokens: oracle.tokens().len(),
        tokens_leaked: found.len(),
        keep: p.keep.len(),
        keep_lost: keep_lost.len(),
        gone: p.gone.len(),
        gone_kept: gone_kept.len(),
        controls: usize::from(p.unchanged),
        controls_changed: usize::from(changed),
    }
}

/// The total a row counts in: its surface, or a line of its own for the kinds reported apart
/// (`mcp_identifier_key`: property names are not a field SPEC §4 lists; `control_lexicon_word` and
/// `control_identity_surface`: SPEC §4 lets a rewriter replace lexicon words wherever they occur).
fn bucket(surface: &str, kind: &str) -> String {
    match kind {
        "mcp_identifier_key" | "control_lexicon_word" | "control_identity_surface" => {
            format!("apart: {kind}")
        }
        _ => surface.to_owned(),
    }
}

/// The most each surface may show (probes with a leak, keep spans lost, gone spans kept, controls
/// changed), as measured; `mcp_identifier_key` apart.
const FRESH_MEASURED: [(&str, [usize; 4]); 8] = [
    ("text", [1, 0, 0, 2]),
    ("mcp_tool", [0, 0, 0, 1]),
    ("a2a_card", [0, 0, 0, 0]),
    ("a2a_parts", [0, 0, 0, 0]),
    ("model_request", [0, 0, 0, 0]),
    ("apart: mcp_identifier_key", [1, 0, 0, 0]),
    ("apart: control_lexicon_word", [0, 0, 0, 2]),
    ("apart: control_identity_surface", [0, 0, 0, 0]),
];

const CEILINGS: [(&str, [usize; 4]); 8] = [
    ("text", [0, 1, 0, 4]),
    ("mcp_tool", [0, 0, 0, 0]),
    ("a2a_card", [0, 0, 0, 0]),
    ("a2a_parts", [0, 1, 0, 2]),
    ("model_request", [0, 0, 0, 0]),
    ("apart: mcp_identifier_key", [0, 0, 0, 0]),
    ("apart: control_lexicon_word", [0, 0, 0, 5]),
    ("apart: control_identity_surface", [0, 0, 0, 2]),
];

/// The same for `fresh.jsonl` (165 probes written on 2026-12-04 by an author who read only the
/// corpus format, not the lexicon, the anonymizer or the other set): its first measurement (14
/// probes with a leak) is a held-out figure; these are the figures after that day's fixes.
const FRESH_CEILINGS: [(&str, [usize; 4]); 8] = FRESH_MEASURED;

#[test]
fn held_out_identity_probes() {
    measure_set("probes.jsonl", 330, &CEILINGS);
}

#[test]
fn fresh_identity_probes() {
    measure_set("fresh.jsonl", 165, &FRESH_CEILINGS);
}

/// The third set, `third.jsonl` (157 probes written on 2026-12-04 by another author who read only
/// the corpus format, after the fixes `fresh.jsonl` led to): its first measurement (21 probes with
/// a leak) is a held-out figure; these are the figures after the fixes it led to.
const THIRD_CEILINGS: [(&str, [usize; 4]); 8] = [
    ("text", [4, 1, 0, 4]),
    ("mcp_tool", [0, 0, 0, 0]),
    ("a2a_card", [2, 1, 0, 0]),
    ("a2a_parts", [0, 0, 0, 0]),
    ("model_request", [0, 0, 0, 0]),
    ("apart: mcp_identifier_key", [0, 0, 0, 0]),
    ("apart: control_lexicon_word", [0, 0, 0, 3]),
    ("apart: control_identity_surface", [0, 0, 0, 1]),
];

#[test]
fn third_identity_probes() {
    measure_set("third.jsonl", 157, &THIRD_CEILINGS);
}

/// The fourth set, `fourth.jsonl` (161 probes written on 2026-12-04 by another author who read only
/// the corpus format, after the fixes `third.jsonl` led to): its first measurement (10 probes with
/// a leak, 15 of 271 tokens) is a held-out figure; these are the figures after the fixes it led
/// to.
const FOURTH_CEILINGS: [(&str, [usize; 4]); 8] = [
    ("text", [0, 0, 0, 0]),
    ("mcp_tool", [1, 0, 0, 0]),
    ("a2a_card", [0, 0, 0, 0]),
    ("a2a_parts", [0, 0, 0, 0]),
    ("model_request", [0, 0, 0, 0]),
    ("apart: mcp_identifier_key", [0, 0, 0, 0]),
    ("apart: control_lexicon_word", [0, 0, 0, 1]),
    ("apart: control_identity_surface", [0, 0, 0, 3]),
];

#[test]
fn fourth_identity_probes() {
    measure_set("fourth.jsonl", 161, &FOURTH_CEILINGS);
}

/// The fifth set, `fifth.jsonl` (154 probes written on 2026-12-04 by another author who read only
/// the corpus format, after the fixes `fourth.jsonl` led to): its first measurement (16 probes
/// with a leak, 26 of 284 tokens; 10 of 47 controls changed) is a held-out figure; these are the
/// figures after the fixes it led to.
const FIFTH_CEILINGS: [(&str, [usize; 4]); 8] = [
    ("text", [4, 0, 0, 0]),
    ("mcp_tool", [0, 0, 0, 0]),
    ("a2a_card", [0, 0, 0, 0]),
    ("a2a_parts", [0, 0, 0, 0]),
    ("model_request", [1, 0, 0, 0]),
    ("apart: mcp_identifier_key", [0, 0, 0, 0]),
    ("apart: control_lexicon_word", [0, 0, 0, 2]),
    ("apart: control_identity_surface", [0, 0, 0, 1]),
];

#[test]
fn fifth_identity_probes() {
    measure_set("fifth.jsonl", 154, &FIFTH_CEILINGS);
}

/// Runs every probe of `file` (which must hold `count`), prints the table and the misses, and
/// fails when a total goes over its ceiling.
fn measure_set(file: &str, count: usize, ceilings: &[(&str, [usize; 4])]) {
    let config = blindfold_daemon::config::load(None).expect("default configuration");
    let lexicon = Identities::from_config(&config).lexicon().clone();
    let probes = probes(file);
    assert_eq!(
        probes.len(),
        count,
        "the held-out set {file} changed: re-measure and update docs/identity.md"
    );
    let mut rows: BTreeMap<(String, String), Row> = BTreeMap::new();
    let mut misses = Vec::new();
    for p in &probes {
        let row = measure(&lexicon, p, &mut misses);
        rows.entry((p.surface.clone(), p.kind.clone())).or_default().add(&row);
    }
    let mut totals: BTreeMap<String, Row> = BTreeMap::new();
    let mut all = Row::default();
    println!(
        "held-out identity probes of {file} (built-in lexicon, default configuration), oracle: blindfold-leak-oracle"
    );
    for ((surface, kind), row) in &rows {
        println!("{}", row.line(&format!("{surface}/{kind}")));
        totals.entry(bucket(surface, kind)).or_default().add(row);
        all.add(row);
    }
    println!();
    for (surface, row) in &totals {
        println!("{}", row.line(&format!("= {surface}")));
    }
    println!("{}", all.line("= all"));
    println!("\nmisses:");
    for m in &misses {
        println!("  {m}");
    }
    for &(surface, [leaked, keep_lost, gone_kept, changed]) in ceilings {
        let t = totals.get(surface).copied().unwrap_or_default();
        let got = [t.leaked, t.keep_lost, t.gone_kept, t.controls_changed];
        assert!(
            got.iter().zip([leaked, keep_lost, gone_kept, changed]).all(|(g, c)| *g <= c),
            "{surface}: [leaked, keep lost, gone kept, controls changed] = {got:?}, ceiling {:?}",
            [leaked, keep_lost, gone_kept, changed]
        );
    }
}
