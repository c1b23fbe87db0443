//! The official MCP conformance suite's server scenarios, direct and through `/mcp`: against
//! the project's everything-style server (TypeScript SDK) directly, through Blindfold in `off`,
//! and through Blindfold in its default modes with the server's tools declared as reads
//! (`[tools.<name>] effect = "read"`) — every scenario passes in all three. In the default
//! modes without that declaration the only scenarios that differ are those whose tool Blindfold
//! refused, each refusal `no_grant`.
//!
//! `BLINDFOLD_CONFORMANCE_RUNS=N` repeats each arm N times (`make conformance` runs three and
//! prints every run's score).

use blindfold_integration_tests::conformance::{EverythingServer, Scenario, listed_tools, run_suite, score};
use blindfold_integration_tests::transports::{Peer, World, run_daemon};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The tool each tool-calling scenario calls (the suite's own specification of the scenario).
const SCENARIO_TOOLS: [(&str, &str); 14] = [
    ("tools-call-simple-text", "test_simple_text"),
    ("tools-call-image", "test_image_content"),
    ("tools-call-audio", "test_audio_content"),
    ("tools-call-embedded-resource", "test_embedded_resource"),
    ("tools-call-mixed-content", "test_multiple_content_types"),
    ("tools-call-with-logging", "test_tool_with_logging"),
    ("tools-call-error", "test_error_handling"),
    ("tools-call-with-progress", "test_tool_with_progress"),
    ("tools-call-sampling", "test_sampling"),
    ("tools-call-elicitation", "test_elicitation"),
    ("elicitation-sep1034-defaults", "test_elicitation_sep1034_defaults"),
    ("elicitation-sep1330-enums", "test_elicitation_sep1330_enums"),
    ("server-sse-polling", "test_reconnection"),
    ("json-schema-2020-12", "json_schema_2020_12_tool"),
];

/// How many times each arm runs (`BLINDFOLD_CONFORMANCE_RUNS`, default 1).
fn runs() -> usize {
    std::env::var("BLINDFOLD_CONFORMANCE_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(1).max(1)
}

/// The failing scenarios of a run with their first failure, for assertion messages.
fn failing(run: &BTreeMap<String, Scenario>) -> BTreeMap<&str, String> {
    run.iter()
        .filter(|(_, s)| !s.passed())
        .map(|(name, s)| {
            let why = s.failures().first().map(|c| c["errorMessage"].to_string()).unwrap_or_default();
            (name.as_str(), why)
        })
        .collect()
}

/// Runs the suite `runs()` times against `url`, printing each score; every scenario must pass.
fn every_scenario_passes(arm: &str, url: &str, w: &World) -> BTreeMap<String, Scenario> {
    let mut last = BTreeMap::new();
    for i in 1..=runs() {
        let run = run_suite(url, &w.path(&format!("results-{arm}-{i}")));
        let (passed, total) = score(&run);
        println!("conformance {arm} run {i}: {passed}/{total}");
        assert_eq!(passed, total, "{arm} run {i}: failing scenarios {:#?}", failing(&run));
        assert!(total >= 32, "{arm} run {i}: only {total} scenarios ran");
        last = run;
    }
    last
}

/// A daemon relaying `/mcp` to `upstream` with `extra` configuration.
fn through_blindfold(w: &World, upstream: &str, extra: &str) -> (Peer, String) {
    let (peer, port) = run_daemon(w, &format!("[mcp_http]\nupstream = {upstream:?}\n\n{extra}"));
    (peer, format!("http://127.0.0.1:{port}/mcp"))
}

const OFF: &str =
    "[modes]\nanonymize = false\nattest = false\npreverify = false\ngrants = false\nenforce = false\n";

#[test]
fn direct_every_scenario_passes() {
    let server = EverythingServer::start();
    let w = World::new("");
    let run = every_scenario_passes("direct", &server.url(), &w);
    let tools = listed_tools(&run);
    for (_, tool) in SCENARIO_TOOLS {
        assert!(tools.iter().any(|t| t == tool), "the server does not list {tool}: {tools:?}");
    }
}

#[test]
fn through_mcp_in_off_every_scenario_passes() {
    let server = EverythingServer::start();
    let w = World::new("");
    let (_daemon, url) = through_blindfold(&w, &server.url(), OFF);
    every_scenario_passes("off", &url, &w);
}

#[test]
fn through_mcp_with_the_tools_declared_reads_every_scenario_passes() {
    let server = EverythingServer::start();
    let w = World::new("");
    let direct = run_suite(&server.url(), &w.path("results-tools"));
    let reads: String =
        listed_tools(&direct).iter().map(|t| format!("[tools.{t}]\neffect = \"read\"\n\n")).collect();
    let (_daemon, url) = through_blindfold(&w, &server.url(), &reads);
    every_scenario_passes("reads", &url, &w);
}

#[test]
fn through_mcp_in_default_modes_only_the_refused_tools_differ_each_no_grant() {
    let server = EverythingServer::start();
    let w = World::new("");
    let (_daemon, url) = through_blindfold(&w, &server.url(), "");
    let run = run_suite(&url, &w.path("results-default"));
    let records = all_records(&w.state.join("traces"));
    let refused: BTreeSet<&str> = records
        .iter()
        .filter(|r| r["decision"] == "deny" || r["decision"] == "review")
        .map(|r| {
            assert_eq!(r["kind"], "tool_call", "only tool calls are refused: {r}");
            assert_eq!(r["reason"], "no_grant", "every refusal is no_grant: {r}");
            r["tool"].as_str().unwrap_or_default()
        })
        .collect();
    let failed = failing(&run);
    assert!(!failed.is_empty(), "unannotated tools are mutating and need a grant by default");
    for (scenario, why) in &failed {
        let tool = SCENARIO_TOOLS.iter().find(|(s, _)| s == scenario).map(|(_, t)| *t);
        let tool = tool.unwrap_or_else(|| panic!("{scenario} calls no tool yet failed: {why}"));
        assert!(refused.contains(tool), "{scenario} failed ({why}) but {tool} was not refused: {refused:?}");
    }
}

/// Every record of every trajectory in the trace directory `dir`.
fn all_records(dir: &std::path::Path) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        out.extend(text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()));
    }
    out
}
