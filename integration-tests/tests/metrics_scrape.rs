//! `/metrics` scraped by the official Prometheus Python client's parsers (the text format and
//! OpenMetrics): before any traffic every series is there at zero; after mixed traffic — control
//! API checks (reads, refusals, a grant consumed, a repeat, changed bytes, a critical hold, an
//! `observe` override), an A2A delegation held, approved and released, an unreachable agent — the decision
//! counters equal the trace's decision records exactly, by transport, mode and verdict, by check
//! and by reason; grants refused match the trace's grant refusals, reviews its review records;
//! and with `[metrics] bearer_token_env` the scrape needs the token.

use blindfold_integration_tests::control_ws::{call, connect};
use blindfold_integration_tests::transports::{
    Peer, World, http_post, peer, python, python_peer, review_cli, run_bounded, run_daemon, wait_port,
};
use blindfold_integration_tests::{free_port, http_get};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

/// Scrapes and parses with the Python client: (text samples, OpenMetrics samples, content types).
fn scrape(port: u16, token: Option<&str>) -> Value {
    let out = tempfile::NamedTempFile::new().expect("temp file");
    let mut cmd = Command::new(python());
    cmd.arg(peer("metrics_parse.py")).arg(format!("http://127.0.0.1:{port}/metrics")).arg(out.path());
    if let Some(t) = token {
        cmd.arg(t);
    }
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(60));
    assert_eq!(code, Some(0), "the Prometheus parser refused the scrape:\n{stdout}\n{stderr}");
    let text = std::fs::read_to_string(out.path()).expect("parsed samples");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `name{labels}` → value of every sample of one parse.
fn series(samples: &Value) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for s in samples.as_array().expect("samples") {
        let labels = s["labels"].as_object().expect("labels");
        // A bucket bound is a number, written `1e-05` by one format and `1.0e-05` by the other.
        let value = |k: &str, v: &Value| -> String {
            let text = v.as_str().unwrap_or("");
            match text.parse::<f64>() {
                Ok(bound) if k == "le" => format!("{bound:e}"),
                _ => text.to_owned(),
            }
        };
        let mut parts: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={}", value(k, v))).collect();
        parts.sort();
        out.insert(
            format!("{}{{{}}}", s["name"].as_str().unwrap_or(""), parts.join(",")),
            s["value"].as_f64().unwrap_or(-1.0),
        );
    }
    out
}

/// Sums the samples named `name` by the label values `by` picks.
fn sum_by(all: &BTreeMap<String, f64>, name: &str, by: &[&str]) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (key, value) in all {
        let Some(labels) = key.strip_prefix(&format!("{name}{{")).and_then(|l| l.strip_suffix('}')) else {
            continue;
        };
        let map: BTreeMap<&str, &str> = labels.split(',').filter_map(|kv| kv.split_once('=')).collect();
        let k: Vec<&str> = by.iter().map(|b| map.get(b).copied().unwrap_or("")).collect();
        *out.entry(k.join("|")).or_insert(0.0) += value;
    }
    out.retain(|_, v| *v != 0.0);
    out
}

/// Every trace record of the state dir's trace.
fn all_records(dir: &std::path::Path) -> Vec<Value> {
    let mut files: Vec<_> = std::fs::read_dir(dir).expect("traces").flatten().map(|e| e.path()).collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f).unwrap_or_default().lines().map(str::to_owned).collect::<Vec<_>>()
        })
        .filter_map(|l| serde_json::from_str(&l).ok())
        .collect()
}

/// The name of a record's modes, for the two mode sets this test runs under: the default
/// (`all`) and the `observe` override.
fn mode_name(m: &Value) -> String {
    let on = |k: &str| m[k].as_bool().unwrap_or_else(|| panic!("mode {k} in {m}"));
    match (on("anonymize"), on("attest"), on("preverify"), on("grants"), on("enforce")) {
        (true, false, true, true, true) => "all".into(),
        (true, false, true, true, false) => "anonymize+preverify+grants+observe".into(),
        _ => panic!("a mode set this test does not use: {m}"),
    }
}

/// The reason codes of the grant check (SPEC §6).
const GRANT_REASONS: [&str; 13] = [
    "invalid_schema",
    "no_grant",
    "bad_signature",
    "untrusted_issuer",
    "wrong_task",
    "expired_grant",
    "not_yet_valid",
    "operation_denied",
    "target_denied",
    "artifact_changed",
    "replayed_grant",
    "revoked_grant",
    "grant_too_long",
];

fn tally(records: &[&Value], key: impl Fn(&Value) -> String) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for r in records {
        *out.entry(key(r)).or_insert(0.0) += 1.0;
    }
    out
}

fn scripted_agent(name: &str, reply: &str) -> (Peer, u16) {
    let port = free_port();
    let reply = json!({"text": reply}).to_string();
    let p = python_peer(
        "a2a_scripted_agent.py",
        &[&port.to_string(), name, "Applies configuration changes", &reply],
    );
    wait_port(port, Duration::from_secs(60));
    (p, port)
}

fn a2a(port: u16, alias: &str, body: &Value) -> Value {
    let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let (_, _, text) = http_post(port, &format!("/a2a/{alias}"), &headers, &body.to_string());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn delegation(ctx: &str, path: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": format!("m-{ctx}"), "contextId": ctx, "role": "ROLE_USER", "parts": [
        {"text": "apply the config"},
        {"data": {"blindfold/action": {"tool": "write_file", "args": {"path": path, "content": "debug=false"}}}}]}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_counters_match_the_traces_decisions_after_mixed_traffic() {
    // The agent names its model in its answer: the coordinator reads it rewritten.
    let (_agent, agent) = scripted_agent("config-writer", "Applied, as wr-model-1 would.");
    let dead = free_port();
    let w = World::new("");
    let config = format!(
        "[a2a]\ntask = \"a2a-metrics\"\n\n[[rules]]\ntool = \"write_file\"\npattern = \"/srv/*\"\naction = \"critical\"\n\n\
         [[a2a.upstreams]]\nid = \"writer\"\nurl = \"http://127.0.0.1:{agent}\"\nmodel = \"wr-model-1\"\nfamily = \"wr\"\n\n\
         [[a2a.upstreams]]\nid = \"gone\"\nurl = \"http://127.0.0.1:{dead}\"\nmodel = \"gn-model-1\"\nfamily = \"gn\"\n"
    );
    let (_daemon, port) = run_daemon(&w, &config);

    // Before any traffic: every counter is there, at zero, in both formats.
    let before = scrape(port, None);
    let text = series(&before["text"]);
    for key in [
        "blindfold_decisions_total{mode=all,transport=a2a,verdict=review}",
        "blindfold_decision_checks_total{check=P3.grant,verdict=deny}",
        "blindfold_decision_reasons_total{reason=contradicted,verdict=review}",
        "blindfold_grants_refused_total{reason=no_grant}",
        "blindfold_reviews_total{outcome=submitted}",
        "blindfold_upstream_errors_total{transport=a2a}",
        "blindfold_grants_consumed_total{}",
        "blindfold_reviews_pending{}",
    ] {
        assert_eq!(
            text.get(key),
            Some(&0.0),
            "{key} before traffic: {:?}",
            text.keys().take(40).collect::<Vec<_>>()
        );
    }
    assert!(text.values().all(|v| *v == 0.0 || *v >= 0.0));
    assert_eq!(series(&before["openmetrics"]).get("blindfold_grants_consumed_total{}"), Some(&0.0));
    assert!(
        before["content_types"]["text"].as_str().is_some_and(|t| t.starts_with("text/plain; version=0.0.4"))
    );
    assert!(
        before["content_types"]["openmetrics"]
            .as_str()
            .is_some_and(|t| t.starts_with("application/openmetrics-text"))
    );

    // Mixed traffic on the control API.
    let operator_token = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");
    let adapter_token = std::fs::read_to_string(w.state.join("adapter.token")).expect("adapter token");
    let mut adapter = connect(port, adapter_token.trim()).await;
    let mut operator = connect(port, operator_token.trim()).await;
    let check = |t: &str, tool: &str, args: Value, consume: bool| json!({"trajectory": t, "tool": tool, "args": args, "consume": consume});
    let write = json!({"path": "/w/a.txt", "content": "hello"});
    for (t, tool, args, consume) in [
        ("ctl-1", "read_file", json!({"path": "/w/a.txt"}), false),
        ("ctl-1", "write_file", write.clone(), true),
        ("ctl-1", "write_file", json!({"path": "/srv/db.conf", "content": "x"}), true),
    ] {
        call(&mut adapter, "check_action", check(t, tool, args, consume)).await;
    }
    let token = w.issue("ctl-1", "write_file", "/w/a.txt", b"hello");
    assert_eq!(
        call(&mut operator, "submit_grant", json!({"token": token})).await["result"]["accepted"],
        true
    );
    let first = call(&mut adapter, "check_action", check("ctl-1", "write_file", write.clone(), true)).await;
    assert_eq!(first["result"]["allowed"], true, "{first}");
    let replay = call(&mut adapter, "check_action", check("ctl-1", "write_file", write.clone(), true)).await;
    assert_eq!(replay["result"]["decision"]["reason"], "replayed_action", "{replay}");
    let other = json!({"path": "/w/a.txt", "content": "other bytes"});
    let changed = call(&mut adapter, "check_action", check("ctl-1", "write_file", other, true)).await;
    assert_eq!(changed["result"]["decision"]["reason"], "artifact_changed", "{changed}");
    let observe = json!({"trajectory": "ctl-2", "modes": {"anonymize": true, "attest": false, "preverify": true, "grants": true, "enforce": false}});
    call(&mut operator, "set_modes", observe).await;
    let observed =
        call(&mut adapter, "check_action", check("ctl-2", "write_file", write.clone(), false)).await;
    assert_eq!(observed["result"]["enforced"], false, "{observed}");

    // A2A: a held delegation approved and released; an agent that is not there.
    let aliases: Value =
        serde_json::from_str(&blindfold_integration_tests::http_get(port, "/a2a").expect("list").1)
            .expect("json");
    let mut writer = None;
    let mut gone = None;
    for a in aliases["agents"].as_array().expect("agents") {
        let alias = a["alias"].as_str().expect("alias").to_owned();
        match http_get(port, &format!("/a2a/{alias}/.well-known/agent-card.json")) {
            Ok((200, _)) => writer = Some(alias),
            _ => gone = Some(alias),
        }
    }
    let (writer, gone) = (writer.expect("the live agent"), gone.expect("the dead agent"));
    let held = a2a(port, &writer, &delegation("ctx-held", "/srv/app.conf"));
    let task = held["result"]["task"]["id"].as_str().expect("held task").to_owned();
    let rv = held.to_string().split("rv-").nth(1).map(|s| format!("rv-{}", &s[..16])).expect("review id");
    let key = w.key.display().to_string();
    let out = review_cli(&w, port, &["approve", &rv, "--key", &key]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let poll = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task}});
    assert_eq!(a2a(port, &writer, &poll)["result"]["status"]["state"], "TASK_STATE_COMPLETED");
    let failed = a2a(
        port,
        &gone,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": {"message": {
        "messageId": "m-gone", "contextId": "ctx-gone", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}}),
    );
    assert!(failed.get("error").is_some(), "{failed}");

    // The trace against the scrape.
    std::thread::sleep(Duration::from_millis(200));
    let after = scrape(port, None);
    let got = series(&after["text"]);
    let om = series(&after["openmetrics"]);
    let only_text: Vec<&String> = got.keys().filter(|k| !om.contains_key(*k)).collect();
    let only_om: Vec<&String> = om.keys().filter(|k| !got.contains_key(*k)).collect();
    assert!(
        only_text.is_empty() && only_om.is_empty(),
        "series in one format only: {only_text:?} / {only_om:?}"
    );
    let counters = |m: &BTreeMap<String, f64>| -> BTreeMap<String, f64> {
        m.iter().filter(|(k, _)| k.contains("_total{")).map(|(k, v)| (k.clone(), *v)).collect()
    };
    assert_eq!(counters(&got), counters(&om), "and the same counts");
    let records = all_records(&w.state.join("traces"));
    let decisions: Vec<&Value> = records.iter().filter(|r| r.get("decision").is_some()).collect();
    assert!(decisions.len() >= 8, "{} decisions traced", decisions.len());
    let transport = |r: &Value| if r["trajectory"] == "a2a-metrics" { "a2a" } else { "control" };
    let expected =
        tally(&decisions, |r| format!("{}|{}|{}", transport(r), mode_name(&r["mode"]), s(&r["decision"])));
    assert_eq!(sum_by(&got, "blindfold_decisions_total", &["transport", "mode", "verdict"]), expected);
    let expected = tally(&decisions, |r| format!("{}|{}", s(&r["check"]), s(&r["decision"])));
    assert_eq!(sum_by(&got, "blindfold_decision_checks_total", &["check", "verdict"]), expected);
    let expected = tally(&decisions, |r| format!("{}|{}", s(&r["reason"]), s(&r["decision"])));
    assert_eq!(sum_by(&got, "blindfold_decision_reasons_total", &["reason", "verdict"]), expected);
    let expected = tally(&decisions, |r| transport(r).to_owned());
    assert_eq!(sum_by(&got, "blindfold_decision_latency_seconds_count", &["transport"]), expected);
    let grant_refusals: Vec<&Value> = decisions
        .iter()
        .copied()
        .filter(|r| r["decision"] == "deny" && GRANT_REASONS.contains(&s(&r["reason"]).as_str()))
        .collect();
    assert_eq!(
        sum_by(&got, "blindfold_grants_refused_total", &["reason"]),
        tally(&grant_refusals, |r| s(&r["reason"]))
    );
    assert!(expected.values().sum::<f64>() > 0.0);
    assert_eq!(
        got["blindfold_grants_consumed_total{}"], 2.0,
        "the granted check_action and the released A2A send"
    );
    let review_records =
        |check: &str| records.iter().filter(|r| r["kind"] == "control" && r["check"] == check).count() as f64;
    assert_eq!(got["blindfold_reviews_total{outcome=submitted}"], review_records("review.submit"));
    assert_eq!(got["blindfold_reviews_total{outcome=approved}"], review_records("review.approve"));
    assert_eq!(got["blindfold_reviews_total{outcome=submitted}"], 2.0);
    assert_eq!(got["blindfold_reviews_pending{}"], 1.0, "the control API's critical write waits");
    assert!(got["blindfold_review_oldest_pending_age_seconds{}"] > 0.0);
    assert!(got["blindfold_upstream_errors_total{transport=a2a}"] >= 1.0, "{got:?}");
    assert!(got["blindfold_identity_rewrites_total{}"] >= 1.0, "the answer named its model");
    assert!(got["blindfold_open_connections{listener=main}"] >= 1.0, "the scrape's own connection");
    assert_eq!(got["blindfold_trace_write_failures_total{}"], 0.0);
}

#[test]
fn a_configured_bearer_token_guards_the_scrape() {
    let w = World::new("[metrics]\nbearer_token_env = \"BLINDFOLD_TEST_METRICS_TOKEN\"\n");
    let mut daemon = blindfold_integration_tests::blindfold();
    let port = free_port();
    daemon
        .args(["run", "--config"])
        .arg(&w.config)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .env("BLINDFOLD_TEST_METRICS_TOKEN", "s3cret-metrics")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _daemon = Peer(daemon.spawn().expect("blindfold run"));
    wait_port(port, Duration::from_secs(20));
    let (code, _) = http_get(port, "/metrics").expect("scrape");
    assert_eq!(code, 401, "no token");
    let (code, _) = blindfold_integration_tests::http_get_with(
        port,
        "/metrics",
        "Authorization: Bearer wrong\r\n",
        Duration::from_secs(5),
    )
    .expect("scrape");
    assert_eq!(code, 401, "a wrong token");
    let parsed = scrape(port, Some("s3cret-metrics"));
    assert!(series(&parsed["text"]).contains_key("blindfold_reviews_pending{}"));

    // Without the variable the daemon refuses to start, naming the field.
    let out = blindfold_integration_tests::blindfold()
        .args(["run", "--config"])
        .arg(&w.config)
        .env_remove("BLINDFOLD_TEST_METRICS_TOKEN")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("metrics.bearer_token_env"));
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}
