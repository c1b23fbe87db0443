//! The cascade reference (`docs/cascade-reference.md`), generated from the check tables and the
//! check ids' declarations, so the page cannot drift from what runs: each table in the order it
//! runs, each check with its layer, its class and what it refuses. A test compares the committed
//! page with [`markdown`]; `make cascade-reference` rewrites it.

use super::{Check, EVERY_EVENT, FRAME, MEMORY_READ, MEMORY_WRITE, TOOL_CALL};
use blindfold_schemas::{CheckClass, CheckId, Layer};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Where the page lives, relative to the workspace root.
pub const PATH: &str = "docs/cascade-reference.md";

/// One table of the cascade: its title, what it decides and its checks' ids in order.
struct Table {
    title: &'static str,
    decides: &'static str,
    ids: Vec<CheckId>,
}

fn ids<F>(checks: &[Check<F>]) -> Vec<CheckId> {
    checks.iter().map(|c| c.id).collect()
}

fn tables() -> Vec<Table> {
    vec![
        Table {
            title: "Frames",
            decides: "a message that never became an event (checked by the transport's facts alone)",
            ids: ids(FRAME),
        },
        Table {
            title: "Every event",
            decides: "every event of a trajectory, before its own table and before any state changes",
            ids: ids(EVERY_EVENT),
        },
        Table { title: "Tool calls", decides: "a `tool_call` event", ids: ids(TOOL_CALL) },
        Table { title: "Memory writes", decides: "a `memory_write` event", ids: ids(MEMORY_WRITE) },
        Table { title: "Memory reads", decides: "a `memory_read` event", ids: ids(MEMORY_READ) },
    ]
}

fn layer(l: Layer) -> &'static str {
    match l {
        Layer::ContentFree => "content_free",
        Layer::ContentDependent => "content_dependent",
        Layer::Threshold => "threshold",
        Layer::Judge => "judge",
    }
}

fn class(c: CheckClass) -> &'static str {
    match c {
        CheckClass::Hygiene => "hygiene (every mode)",
        CheckClass::Policy => "policy (observe-only without `enforce`)",
    }
}

fn row(out: &mut String, n: usize, id: CheckId) {
    let summary = id.summary().replace('|', "\\|");
    let _ = writeln!(
        out,
        "| {n} | `{}` | {} | {} | {summary} |",
        id.as_str(),
        layer(id.layer()),
        class(id.class())
    );
}

/// The page, as committed.
pub fn markdown() -> String {
    let mut out = String::from(
        "<!-- Generated from the engine's check tables (sidecar/engine/src/cascade/reference.rs); \
         do not edit: run `make cascade-reference`. -->\n\n# Cascade reference\n\n\
         Every check that can decide, table by table in the order the engine runs them: the first \
         check that does not pass decides, and when all pass the last one allows. The layer says \
         what a check trusts (SPEC §2); hygiene checks refuse in every mode, `off` included, \
         policy checks only record without `enforce`. How the cascade works: \
         [cascade.md](cascade.md).\n",
    );
    let mut listed = BTreeSet::new();
    for table in tables() {
        let _ = write!(out, "\n## {}\n\nDecides {}.\n\n", table.title, table.decides);
        out.push_str("| # | check | layer | class | refuses |\n|---|---|---|---|---|\n");
        for (i, id) in table.ids.iter().enumerate() {
            row(&mut out, i + 1, *id);
            listed.insert(*id);
        }
    }
    out.push_str(
        "\n## Outside the tables\n\nIds a decision can carry that no table runs: failures of \
         Blindfold itself and of its transports, each refusing with a reason.\n\n\
         | # | check | layer | class | refuses |\n|---|---|---|---|---|\n",
    );
    let rest = CheckId::ALL.iter().filter(|id| !listed.contains(id));
    for (i, id) in rest.enumerate() {
        row(&mut out, i + 1, *id);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(PATH)
    }

    #[test]
    fn the_committed_reference_matches_the_check_tables() {
        let page = std::fs::read_to_string(committed()).unwrap_or_default();
        assert!(
            page == markdown(),
            "{PATH} drifted from the check tables: run `make cascade-reference` and commit it"
        );
    }

    #[test]
    fn every_check_id_appears_once_and_every_table_in_order() {
        let page = markdown();
        for id in CheckId::ALL {
            let cell = format!("| `{}` |", id.as_str());
            assert_eq!(page.matches(&cell).count(), 1, "{}", id.as_str());
        }
        let at = |s: &str| page.find(s).unwrap_or(usize::MAX);
        assert!(at("## Frames") < at("## Every event") && at("## Every event") < at("## Tool calls"));
        assert!(at("`P1.schema`") < at("`P3.grant`") && at("`P3.grant`") < at("`P3.executed_matches`"));
    }
}
