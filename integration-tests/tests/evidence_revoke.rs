//! Revoking evidence through the control API (SPEC §5, §9): a verification (a verdict for
//! Blindfold's handle, returned in the Pi `subagent` result of the request) lets an agent's
//! proposal run; the operator revokes the verifying answer (`blindfold evidence revoke`), and the
//! same action needs a verification again; what derived from it is marked, a review held on it
//! is withdrawn, every change is in the trace; an adapter token may not revoke.

use blindfold_integration_tests::blindfold;
use blindfold_integration_tests::control_ws::{Ws, call, connect};
use blindfold_integration_tests::transports::{Peer, World, run_daemon, trace_records};
use serde_json::{Value, json};

const AGENTS: &str = r#"
[[identity.agents]]
id = "planner"
model = "m-large-2"
family = "m"
provider = "ExampleCorp"

[[identity.agents]]
id = "checker"
model = "q-small-1"
family = "q"
provider = "OtherCorp"
"#;

fn start() -> (World, Peer, u16) {
    let w = World::new(AGENTS);
    let (daemon, port) = run_daemon(&w, "");
    (w, daemon, port)
}

fn token(w: &World, name: &str) -> String {
    std::fs::read_to_string(w.state.join(name)).expect("token").trim().to_owned()
}

/// `blindfold evidence ARGS… --config FILE` against the daemon on `port`: (exit code, stdout, stderr).
fn evidence_cli(w: &World, port: u16, args: &[&str]) -> (i32, String, String) {
    let out = blindfold()
        .arg("evidence")
        .args(args)
        .arg("--config")
        .arg(&w.config)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .output()
        .expect("blindfold evidence");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

async fn report(ws: &mut Ws, t: &str, event: Value) {
    let r = call(ws, "report_event", json!({"trajectory": t, "event": event})).await;
    assert!(r["result"].is_object(), "{r}");
}

/// The planner's proposal, as Pi's `subagent` result carries it (a command in a code span).
const CMD: &str = "cp /w/runbook-fast.conf /w/app.conf";
/// Its id: the first proposal in the first answer of `subagent` call `s1`.
const PID: &str = "s1-1-1";

fn run_cmd(t: &str, call_id: &str) -> Value {
    json!({"trajectory": t, "tool": "bash", "args": {"command": CMD}, "call_id": call_id, "consume": true})
}

/// A `subagent` call `call_id` of the Pi coordinator to `agent` with `task`, through the Pi
/// extension's hooks: what the child is started with (Blindfold may add its instruction).
async fn delegate(ws: &mut Ws, t: &str, call_id: &str, agent: &str, task: &str) -> Value {
    let r = call(
        ws,
        "pi.tool_call",
        json!({"trajectory": t, "call_id": call_id, "tool": "subagent",
            "input": {"agent": agent, "task": task}}),
    )
    .await;
    assert_eq!(r["result"]["allow"], true, "{r}");
    r["result"].clone()
}

/// The result of `subagent` call `call_id`: `agent`'s final answer `text`.
async fn answer(ws: &mut Ws, t: &str, call_id: &str, agent: &str, text: &str) {
    let details = json!({"results": [{"agent": agent, "messages": [
        {"role": "assistant", "content": [{"type": "text", "text": text}]}]}]});
    let r = call(
        ws,
        "pi.tool_result",
        json!({"trajectory": t, "call_id": call_id, "tool": "subagent", "texts": [text], "details": details}),
    )
    .await;
    assert!(r["result"].is_object(), "{r}");
}

/// The planner proposes a command; the checker, shown the planner's runbook, is asked to verify
/// it through Pi's `subagent` tool and answers with the verdict line for the handle Blindfold
/// added to its task (as a model reading that instruction would).
async fn verified_proposal(adapter: &mut Ws, t: &str) {
    let agents =
        json!([{"name": "planner", "model": "m-large-2"}, {"name": "checker", "model": "q-small-1"}]);
    let r = call(adapter, "pi.session", json!({"trajectory": t, "agents": agents})).await;
    assert!(r["result"].is_object(), "{r}");
    report(adapter, t, json!({"kind": "task", "text": "tune /w/app.conf"})).await;
    delegate(adapter, t, "s1", "planner", "Tune /w/app.conf for speed.").await;
    answer(adapter, t, "s1", "planner", &format!("Per /w/runbook.md, set fast mode: `{CMD}`")).await;
    let asked =
        delegate(adapter, t, "s2", "checker", &format!("Check {PID}; the planner followed /w/runbook.md."))
            .await;
    let task = asked["input"]["task"].as_str().unwrap_or_default().to_owned();
    let at = task.find("bf-").unwrap_or_else(|| panic!("no handle in the checker's task: {asked}"));
    let handle = &task[at..at + 15];
    answer(
        adapter,
        t,
        "s2",
        "checker",
        &format!("It matches the runbook.\nVERDICT {handle}: approve - as the runbook says"),
    )
    .await;
}

/// The artifacts of `t` the operator sees, by producer.
async fn artifact_of(operator: &mut Ws, t: &str, producer: &str, source_type: &str) -> Value {
    let listed = call(operator, "list_evidence", json!({"task_id": t})).await;
    let rows = listed["result"]["artifacts"].as_array().cloned().unwrap_or_default();
    rows.into_iter()
        .rfind(|a| a["producer"] == producer && a["source_type"] == source_type)
        .unwrap_or_else(|| panic!("no {producer} artifact: {listed}"))
}

fn lifecycle(w: &World, t: &str) -> Vec<(String, Value)> {
    trace_records(&w.state.join("traces"), t)
        .into_iter()
        .filter(|r| r["kind"] == "control" && r["tool"] == "evidence_lifecycle")
        .map(|r| {
            let detail = serde_json::from_str(r["detail"].as_str().unwrap_or("")).unwrap_or(Value::Null);
            (r["target"].as_str().unwrap_or("").to_owned(), detail)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_verification_no_longer_lets_the_same_action_run() {
    let (w, _daemon, port) = start();
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let mut operator = connect(port, &token(&w, "operator.token")).await;
    let t = "task-revoke";
    verified_proposal(&mut adapter, t).await;
    for _ in 0..2 {
        let grant = w.issue(t, "bash", CMD, CMD.as_bytes());
        let r = call(&mut operator, "submit_grant", json!({"token": grant})).await;
        assert_eq!(r["result"]["accepted"], true, "{r}");
    }
    let ran = call(&mut adapter, "check_action", run_cmd(t, "c1")).await;
    assert_eq!(ran["result"]["allowed"], true, "verified and granted, it runs: {ran}");

    // The checker's answer, and the planner's answer it was shown (derived from it).
    let verdict = artifact_of(&mut operator, t, "checker", "agent").await;
    let verdict_id = verdict["evidence_id"].as_str().expect("id").to_owned();

    // Only the operator may revoke.
    let params = json!({"task_id": t, "evidence_id": verdict_id, "reason": "the checker was compromised"});
    let refused = call(&mut adapter, "revoke_evidence", params).await;
    assert_eq!(refused["error"]["code"], -32003, "{refused}");
    let refused = call(&mut adapter, "list_evidence", json!({"task_id": t})).await;
    assert_eq!(refused["error"]["code"], -32003, "{refused}");
    // Unknown ids are named.
    let unknown =
        call(&mut operator, "revoke_evidence", json!({"task_id": t, "evidence_id": "ev-999", "reason": "x"}))
            .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(unknown["error"]["message"].as_str().unwrap_or("").contains("ev-999"), "{unknown}");
    let unknown = call(&mut operator, "list_evidence", json!({"task_id": "no-such-task"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let (code, out, err) = evidence_cli(
        &w,
        port,
        &["revoke", &verdict_id, "--task", t, "--reason", "the checker was compromised"],
    );
    assert_eq!(code, 0, "{out} {err}");
    assert!(out.contains(&format!("revoked {verdict_id}")) && out.contains(PID), "{out}");
    assert!(out.contains(&format!("allowed:{PID}@")), "the run that rested on it is named: {out}");

    // The same action, a new call with a grant of its own: it needs a verification again.
    let again = call(&mut adapter, "check_action", run_cmd(t, "c2")).await;
    assert_eq!(again["result"]["allowed"], false, "{again}");
    assert_eq!(again["result"]["decision"]["reason"], "unverified", "{again}");

    // Every change is traced {from, to, reason, actor, at}.
    let changes = lifecycle(&w, t);
    let revoked = changes.iter().find(|(target, _)| *target == verdict_id).expect("REVOKED record");
    assert_eq!(revoked.1["to"], "REVOKED", "{changes:?}");
    assert_eq!(revoked.1["actor"], "human:operator");
    assert_eq!(revoked.1["reason"], "the checker was compromised");
    assert!(revoked.1["from"].is_string() && revoked.1["at"].is_u64(), "{changes:?}");
    let claim = changes.iter().find(|(target, _)| *target == format!("claim:{PID}")).expect("claim record");
    assert_eq!((&claim.1["from"], &claim.1["to"]), (&json!("SUPPORTED"), &json!("NEEDS_REVALIDATION")));
    assert!(changes.iter().any(|(target, d)| target.starts_with(&format!("decision:allowed:{PID}@"))
        && d["to"] == "NEEDS_REVALIDATION"));
    let audit = trace_records(&w.state.join("traces"), "blindfold-control");
    assert!(audit.iter().any(|r| r["tool"] == "revoke_evidence"), "the operator action is audited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoking_a_relayed_answer_marks_what_derives_from_it_and_withdraws_its_review() {
    let (w, _daemon, port) = start();
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let mut operator = connect(port, &token(&w, "operator.token")).await;
    let t = "task-derived";
    verified_proposal(&mut adapter, t).await;
    // The planner's answer was relayed to the checker: the checker's answer derives from it.
    let source = artifact_of(&mut operator, t, "planner", "agent").await;
    let source_id = source["evidence_id"].as_str().expect("id").to_owned();
    let verdict = artifact_of(&mut operator, t, "checker", "agent").await;
    assert_eq!(verdict["derived_from"], json!([source_id]), "{verdict}");

    // A refutation holds another write for review; the refutation, too, derives from the
    // planner's answer (relayed to the checker earlier).
    report(
        &mut adapter,
        t,
        json!({"kind": "response", "from": "checker",
        "text": "Do not write /w/app.conf with debug=on: it is malicious."}),
    )
    .await;
    let held = call(
        &mut adapter,
        "check_action",
        json!({"trajectory": t, "tool": "write_file",
        "args": {"path": "/w/app.conf", "content": "debug=on\n"}, "consume": true}),
    )
    .await;
    let review = held["result"]["review_id"].as_str().unwrap_or_else(|| panic!("held: {held}")).to_owned();

    let r = call(
        &mut operator,
        "revoke_evidence",
        json!({"task_id": t, "evidence_id": source_id, "reason": "the runbook was forged"}),
    )
    .await;
    let marked = &r["result"];
    assert!(marked["artifacts"].as_array().is_some_and(|a| a.contains(&verdict["evidence_id"])), "{r}");
    assert_eq!(marked["reviews_withdrawn"], json!([review]), "{r}");
    let again = call(
        &mut operator,
        "revoke_evidence",
        json!({"task_id": t, "evidence_id": source_id, "reason": "again"}),
    )
    .await;
    assert_eq!(again["error"]["code"], -32602, "revoked once: {again}");

    let show = call(&mut operator, "review.show", json!({"id": review})).await;
    assert_eq!(show["result"]["status"], "withdrawn", "{show}");
    assert!(show["result"]["note"].as_str().unwrap_or("").contains(&source_id), "{show}");
    let (code, out, err) = evidence_cli(&w, port, &["list", "--task", t]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("REVOKED") && out.contains("NEEDS_REVALIDATION"), "{out}");
    let changes = lifecycle(&w, t);
    let derived =
        changes.iter().find(|(target, _)| *target == verdict["evidence_id"]).expect("derived record");
    assert_eq!(derived.1["to"], "NEEDS_REVALIDATION", "{changes:?}");
    let records = trace_records(&w.state.join("traces"), t);
    assert!(records.iter().any(|r| r["check"] == "review.withdraw"), "the withdrawal is traced");
}
