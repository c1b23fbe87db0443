//! The operator's console in a real headless browser (Debian's `chromium` and `chromium-driver`,
//! driven by Selenium from the project's venv, the driver's path given): log in (the adapter
//! token refused), an A2A delegation held for review appears in the open list without a reload,
//! its page shows the held bytes; approved in the page, the held send runs once; the reviewer's
//! refutation and the diff against the first approval are on the next item's page; a rejection
//! in the page ends the coordinator's poll `TASK_STATE_REJECTED`; requests without the cookie,
//! from another origin (also a cross-site form), without the CSRF token change nothing; the
//! trajectory page draws the held rows in red. Every page is saved as a screenshot
//! (`<target>/console-screenshots/`), and each held item was announced to the webhook.
//!
//! What the browser script asserts in the page, this file checks again on the far side: the
//! agents' own task lists, the trace, the webhook's record.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{
    Peer, World, http_post, peer, python, python_peer, run_bounded, run_daemon, trace_records, wait_port,
};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";
const DRIVER: &str = "/usr/bin/chromedriver";

/// Where the screenshots go: `$CARGO_TARGET_DIR/console-screenshots` (or `target/…`).
fn shots_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| blindfold_integration_tests::workspace_root().join("target"));
    let dir = target.join("console-screenshots");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    dir
}

/// The tasks agent `port` holds for conversation `ctx`, asked directly (with their history).
fn agent_tasks(port: u16, ctx: &str) -> Vec<Value> {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {"contextId": ctx, "historyLength": 10}});
    let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let (_, _, text) = http_post(port, "/a2a/jsonrpc", &headers, &list.to_string());
    let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    answer["result"]["tasks"].as_array().cloned().unwrap_or_default()
}

fn scripted_agent(description: &str, reply: &str) -> (Peer, u16) {
    let port = free_port();
    let reply = json!({"text": reply}).to_string();
    let p = python_peer("a2a_scripted_agent.py", &[&port.to_string(), "ops-agent", description, &reply]);
    wait_port(port, Duration::from_secs(60));
    (p, port)
}

#[test]
fn the_console_answers_held_reviews_in_a_real_browser() {
    for program in [CHROMIUM, DRIVER] {
        assert!(
            std::path::Path::new(program).exists(),
            "{program} is missing: `make test` installs Debian's chromium and chromium-driver"
        );
    }
    let (_planner, planner) = scripted_agent("Applies configuration changes", "Applied.");
    let refusal = "Do not write /srv/app.conf: the new version turns off authentication. Keep auth=on.";
    let (_reviewer, reviewer) = scripted_agent("Reviews configuration changes", refusal);
    let site = free_port();
    let w = World::new("");
    let hooks = w.path("webhook.jsonl");
    let _site = python_peer("console_site.py", &[&site.to_string(), &hooks.display().to_string()]);
    wait_port(site, Duration::from_secs(30));
    let config = format!(
        "[a2a]\ntask = \"console-demo\"\n\n[console]\nwebhook_url = \"http://127.0.0.1:{site}/hook\"\n\n\
         [[rules]]\ntool = \"write_file\"\npattern = \"/srv/*\"\naction = \"critical\"\n\n\
         [[a2a.upstreams]]\nid = \"applier\"\nurl = \"http://127.0.0.1:{planner}\"\nmodel = \"ap-model-1\"\n\
         family = \"ap-family\"\nprovider = \"ap-labs\"\n\n\
         [[a2a.upstreams]]\nid = \"checker\"\nurl = \"http://127.0.0.1:{reviewer}\"\nmodel = \"ck-model-1\"\n\
         family = \"ck-family\"\nprovider = \"ck-labs\"\n"
    );
    let (_daemon, port) = run_daemon(&w, &config);
    let operator = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");
    let adapter = std::fs::read_to_string(w.state.join("adapter.token")).expect("adapter token");
    let shots = shots_dir();

    let mut cmd = Command::new(python());
    cmd.arg(peer("console_browser.py"))
        .args(["--base", &format!("http://127.0.0.1:{port}")])
        .args(["--operator-token", operator.trim(), "--adapter-token", adapter.trim()])
        .args(["--site", &format!("http://127.0.0.1:{site}")])
        .arg("--shots")
        .arg(&shots)
        .args(["--chromium", CHROMIUM, "--driver", DRIVER])
        .env("SE_OFFLINE", "true");
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(240));
    let report: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no report from the browser script:\n{stdout}\n{stderr}"));
    assert_eq!(code, Some(0), "browser script failed: {report:#}\n{stderr}");

    // Each approved send reached the applier once, with its own bytes; the rejected one never.
    for (key, content) in [("first", "auth=on"), ("second", "auth=off")] {
        let ctx = report[key]["context"].as_str().expect("context");
        let tasks = agent_tasks(planner, ctx);
        assert_eq!(tasks.len(), 1, "{key}: the agent got the held send once: {tasks:?}");
        assert!(tasks[0].to_string().contains(content), "{key}: {tasks:?}");
    }
    assert!(agent_tasks(planner, "ctx-third").is_empty(), "a rejected delegation reached the agent");
    assert_eq!(report["third"]["state"], "TASK_STATE_REJECTED");
    let forged = report["forged"].as_object().expect("forged requests");
    assert!(forged.len() >= 8 && forged.values().all(|c| c == 401 || c == 403), "{forged:?}");

    // The trace: approvals and the rejection are operator records, the holds review decisions.
    let records = trace_records(&w.state.join("traces"), "console-demo");
    let reviewed = records.iter().filter(|r| r["kind"] == "tool_call" && r["decision"] == "review").count();
    assert!(reviewed >= 3, "three holds traced: {reviewed}");
    let control = trace_records(&w.state.join("traces"), "blindfold-control");
    let actions: Vec<&str> = control.iter().filter_map(|r| r["tool"].as_str()).collect();
    for action in ["console.login", "review.approve", "review.reject"] {
        assert!(actions.contains(&action), "{action} traced: {actions:?}");
    }
    assert_eq!(actions.iter().filter(|a| **a == "review.approve").count(), 2, "{actions:?}");

    // Every hold was announced, in the coordinator's aliases, with a link to its page.
    let announced = std::fs::read_to_string(&hooks).unwrap_or_default();
    let bodies: Vec<Value> = announced.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert_eq!(bodies.len(), 3, "one announcement per hold: {announced}");
    for body in &bodies {
        let summary = body["summary"].as_str().unwrap_or_default();
        assert!(summary.contains(report["aliases"]["planner"].as_str().unwrap_or("?")), "{body}");
        assert!(!announced.contains("applier") && !announced.contains("ap-model-1"), "true ids: {announced}");
        let link = body["link"].as_str().unwrap_or_default();
        assert!(link.ends_with(&format!("/console/#/reviews/{}", s(&body["review_id"]))), "{body}");
    }

    // The screenshots were taken and are pictures.
    for path in report["shots"].as_array().expect("shots") {
        let bytes = std::fs::read(s(path)).expect("screenshot");
        assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000, "{path}: {} bytes", bytes.len());
    }
    assert!(report["shots"].as_array().is_some_and(|s| s.len() >= 8));
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}
