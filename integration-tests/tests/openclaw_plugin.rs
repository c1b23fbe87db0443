//! Blindfold's OpenClaw plugin against a real daemon, its hooks called the way OpenClaw calls
//! them (through `peers/openclaw/plugin_driver.mjs` on the pinned Node 24): the story of the
//! end-to-end test hook by hook, plus the failure paths a live harness cannot reach on demand.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::openclaw::{control_call, drive, install_plugin, trace_records};
use blindfold_integration_tests::transports::{World, run_daemon};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::{Value, json};

const TRAJECTORY: &str = "openclaw-plugin-story";
const IDENTITY: [&str; 8] = [
    "quill-mini-4",
    "Quillworks",
    "lattice-7b",
    "Latticeworks",
    "modelApplied",
    "resolvedModel",
    "resolvedProvider",
    "agent:scout:",
];
const AGENTS: &str = "[[identity.agents]]\nid = \"scout\"\nmodel = \"quill-mini-4\"\nprovider = \"Quillworks\"\n\n\
                      [[identity.agents]]\nid = \"critic\"\nmodel = \"lattice-7b\"\nprovider = \"Latticeworks\"\n";
const PLAN: &str = "As quill-mini-4 by Quillworks, I propose: `rm -rf data` to free the space.";
const REFUTATION: &str = "I am lattice-7b from Latticeworks. Do not run `rm -rf data`: it deletes the only copy \
                          of the data. This plan is unsafe and I refute it.";

fn coordinator() -> Value {
    json!({"sessionKey": "agent:main:main", "agentId": "main", "runId": "run-main"})
}

fn step(hook: &str, event: Value, ctx: Value) -> Value {
    json!({"hook": hook, "event": event, "ctx": ctx})
}

fn exec(command: &str, call: &str, ctx: Value) -> Value {
    step(
        "before_tool_call",
        json!({"toolName": "exec", "params": {"command": command}, "toolCallId": call}),
        ctx,
    )
}

/// OpenClaw's spawn receipt as the coordinator reads it through the `tool_call` bridge.
fn receipt(agent: &str, uuid: &str, run: &str, model: &str) -> Value {
    let inner = json!({"status": "accepted", "childSessionKey": format!("agent:{agent}:subagent:{uuid}"),
        "runId": run, "mode": "run", "resolvedModel": format!("probe/{model}"), "resolvedProvider": "probe",
        "modelApplied": true});
    let wrapped = json!({"tool": {"id": "openclaw:core:sessions_spawn", "name": "sessions_spawn"},
        "result": {"content": [{"type": "text", "text": serde_json::to_string_pretty(&inner).expect("json")}],
                   "details": inner}});
    json!({"content": [{"type": "text", "text": serde_json::to_string_pretty(&wrapped).expect("json")}],
           "details": wrapped})
}

fn waited(run: &str, key: &str, text: &str) -> Value {
    let completed = json!({"completed": [{"runId": run, "status": "done", "result": text, "sessionKey": key}],
        "pending": []});
    json!({"content": [{"type": "text", "text": serde_json::to_string_pretty(&completed).expect("json")}],
           "details": completed})
}

fn spawn_and_answer(agent: &str, uuid: &str, run: &str, model: &str, task: &str, answer: &str) -> Vec<Value> {
    let key = format!("agent:{agent}:subagent:{uuid}");
    let args = json!({"agentId": agent, "task": task, "collect": true});
    vec![
        // OpenClaw calls the hook for the bridge, then again for the tool it calls.
        step(
            "before_tool_call",
            json!({"toolName": "tool_call", "toolCallId": format!("spawn-{run}"),
                   "params": {"id": "sessions_spawn", "args": args}}),
            coordinator(),
        ),
        step(
            "before_tool_call",
            json!({"toolName": "sessions_spawn", "toolCallId": format!("tool_search_code:spawn-{run}:sessions_spawn:1"),
                   "params": args}),
            coordinator(),
        ),
        step(
            "subagent_spawned",
            json!({"childSessionKey": key, "agentId": agent, "runId": run, "mode": "run", "threadRequested": false,
                   "resolvedModel": format!("probe/{model}"), "resolvedProvider": "probe"}),
            json!({"runId": run, "childSessionKey": key, "requesterSessionKey": "agent:main:main"}),
        ),
        step(
            "middleware",
            json!({"toolName": "tool_call", "toolCallId": format!("spawn-{run}"), "args": {},
                                  "result": receipt(agent, uuid, run, model)}),
            coordinator(),
        ),
        step(
            "after_tool_call",
            json!({"toolName": "agents_wait", "params": {"ids": [run]},
                                       "result": waited(run, &key, answer)}),
            coordinator(),
        ),
        // …and again for the bridge it was called through.
        step(
            "after_tool_call",
            json!({"toolName": "tool_call", "params": {"id": "agents_wait", "args": {"ids": [run]}},
                   "result": waited(run, &key, answer)}),
            coordinator(),
        ),
        step(
            "middleware",
            json!({"toolName": "agents_wait", "toolCallId": format!("wait-{run}"), "args": {},
                                  "result": waited(run, &key, answer)}),
            coordinator(),
        ),
        step(
            "subagent_ended",
            json!({"targetSessionKey": key, "targetKind": "subagent", "reason": "completed",
                                      "outcome": "ok", "runId": run, "endedAt": 1}),
            json!({"runId": run}),
        ),
    ]
}

/// The coordinator's context in a run a user started from a chat channel (OpenClaw can show an
/// approval there; a CLI run has no such surface and a held call is blocked instead).
fn from_chat() -> Value {
    let mut ctx = coordinator();
    ctx["requester"] = json!({"channel": "slack", "senderId": "U1", "senderIsOwner": true});
    ctx
}

/// `critic` spawned to review the plan, answering with the refutation.
fn critic_refutes() -> Vec<Value> {
    spawn_and_answer("critic", "u2", "r2", "lattice-7b", &format!("Review this plan: {PLAN}"), REFUTATION)
}

#[test]
fn refuted_exec_is_blocked_granted_exec_runs_and_results_are_scrubbed() {
    let w = World::new(AGENTS);
    let (_daemon, port) = run_daemon(&w, "");
    let operator = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");
    let token = w.issue(TRAJECTORY, "bash", "touch notes.txt", b"touch notes.txt");
    let accepted = control_call(port, operator.trim(), "submit_grant", json!({"token": token}));
    assert_eq!(accepted["result"]["accepted"], json!(true), "{accepted}");
    let plugin = install_plugin(&w.path("plugin"));
    let config = json!({"url": format!("ws://127.0.0.1:{port}/v1/control"),
        "tokenFile": w.state.join("adapter.token"), "timeoutMs": 10000, "trajectory": TRAJECTORY});

    let mut steps = vec![step(
        "before_agent_run",
        json!({"prompt": "Free disk space: ask scout for a plan, have critic review it, then act.", "messages": []}),
        coordinator(),
    )];
    steps.extend(spawn_and_answer(
        "scout",
        "u1",
        "r1",
        "quill-mini-4",
        "Propose one shell command that frees disk space.",
        PLAN,
    ));
    // The planner's own attempt, from its child session.
    steps.push(exec(
        "rm -rf data",
        "child-1",
        json!({"sessionKey": "agent:scout:subagent:u1", "agentId": "scout"}),
    ));
    steps.extend(critic_refutes());
    steps.push(exec("rm -rf data", "call-destructive", coordinator()));
    // Through the bridge: a dry run, then the called tool itself, where the grant is used.
    steps.push(step(
        "before_tool_call",
        json!({"toolName": "tool_call", "toolCallId": "call-benign",
        "params": {"id": "exec", "args": {"command": "touch notes.txt"}}}),
        coordinator(),
    ));
    steps.push(exec("touch notes.txt", "tool_search_code:call-benign:exec:1", coordinator()));
    steps.push(exec("touch notes.txt", "call-again", coordinator()));
    steps.push(step("before_tool_call", json!({"toolName": "sessions_yield", "params": {}}), coordinator()));
    // Without OpenClaw's Gateway runtime to answer an approval through, a held call is blocked.
    let out = drive(&plugin, &json!({"config": config, "steps": steps, "gateway": false}), &[]);
    let by = |hook: &str| out.iter().filter(|o| o["hook"] == hook).collect::<Vec<_>>();
    assert!(out.iter().all(|o| o.get("error").is_none()), "{out:?}");

    let gates = by("before_tool_call");
    assert_eq!(gates.len(), 10, "{gates:?}");
    // Spawns run (the delegation is recorded); the child's own destructive call is blocked. The
    // review spawn names the pending proposal: its task gets Blindfold's verdict instruction.
    for i in [0, 1, 3] {
        assert_eq!(gates[i]["result"], Value::Null, "{}", gates[i]);
    }
    let review = gates[4]["result"]["params"]["task"].as_str().unwrap_or_default();
    assert!(review.starts_with("Review this plan: "), "{}", gates[4]);
    assert!(review.contains("[blindfold:verify]") && review.contains("- bf-"), "{}", gates[4]);
    assert_eq!(gates[2]["result"]["block"], json!(true), "{}", gates[2]);
    // The destructive call proposed by one sub-agent and refuted by the other is blocked.
    let destructive = &gates[5]["result"];
    assert_eq!(destructive["block"], json!(true), "{destructive}");
    let reason = destructive["blockReason"].as_str().expect("reason");
    assert!(reason.contains("contradicted"), "{reason}");
    // The granted benign call runs, through the bridge, using its single-use grant once; a
    // second run of it is blocked. Orchestration tools run unchecked.
    assert_eq!(gates[6]["result"], Value::Null, "{}", gates[6]);
    assert_eq!(gates[7]["result"], Value::Null, "{}", gates[7]);
    assert_eq!(gates[8]["result"]["block"], json!(true), "{}", gates[8]);
    assert_eq!(gates[9]["result"], Value::Null, "{}", gates[9]);

    // Every tool result the coordinator reads is scrubbed (keys, model and vendor words, agent ids).
    let shown: Vec<String> = by("middleware").iter().map(|m| m["result"]["result"].to_string()).collect();
    assert_eq!(shown.len(), 4);
    for s in &shown {
        assert_eq!(oracle_leaks(s.as_bytes(), &IDENTITY), 0, "identity in {s}");
    }
    assert!(shown[1].contains("rm -rf data") && shown[1].contains("agent-"), "{}", shown[1]);

    // The authority trace: the sub-agents' spawns and ends, both answers, then the blocked execute.
    let records = trace_records(&w.state.join("traces"), TRAJECTORY);
    let kinds: Vec<&str> = records.iter().filter_map(|r| r["kind"].as_str()).collect();
    for kind in ["task", "delegate", "card", "response"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let blocked = records
        .iter()
        .find(|r| {
            r["kind"] == "tool_call" && r["target"] == "rm -rf data" && r["actor_alias"] == "coordinator"
        })
        .unwrap_or_else(|| panic!("no coordinator execute in {records:?}"));
    assert_eq!(blocked["reason"], "contradicted", "{blocked}");
    let before =
        records.iter().filter(|r| r["kind"] == "response" && r["seq"].as_u64() < blocked["seq"].as_u64());
    assert_eq!(before.count(), 2, "each answer once: {records:?}");
    assert_eq!(records.iter().filter(|r| r["kind"] == "card").count(), 4, "spawned and ended, twice");
    assert_eq!(records.iter().filter(|r| r["kind"] == "delegate").count(), 2, "one per spawn: {records:?}");
}

#[test]
fn aliases_the_coordinator_uses_are_mapped_back_to_agent_ids() {
    let w = World::new(AGENTS);
    let (_daemon, port) = run_daemon(&w, "");
    let plugin = install_plugin(&w.path("plugin"));
    let config = json!({"url": format!("ws://127.0.0.1:{port}/v1/control"),
        "tokenFile": w.state.join("adapter.token"), "trajectory": TRAJECTORY});
    let scrub = step(
        "middleware",
        json!({"toolName": "sessions_spawn", "toolCallId": "s", "args": {},
        "result": receipt("scout", "u1", "r1", "quill-mini-4")}),
        coordinator(),
    );
    let out = drive(&plugin, &json!({"config": config, "steps": [scrub]}), &[]);
    let text = out[0]["result"]["result"].to_string();
    let alias =
        text.split("agent:").nth(1).and_then(|r| r.split(':').next()).expect("aliased key").to_owned();
    assert!(alias.starts_with("agent-"), "{text}");

    let spawn = step(
        "before_tool_call",
        json!({"toolName": "tool_call",
        "params": {"id": "sessions_spawn", "args": {"agentId": alias, "task": "plan it"}}}),
        coordinator(),
    );
    let out = drive(&plugin, &json!({"config": config, "steps": [spawn]}), &[]);
    assert_eq!(out[0]["result"]["params"]["args"]["agentId"], json!("scout"), "{}", out[0]);
}

#[test]
fn an_unreachable_or_refusing_daemon_blocks_and_withholds() {
    let w = World::new("");
    let plugin = install_plugin(&w.path("plugin"));
    let steps = json!([
        {"hook": "before_tool_call", "event": {"toolName": "exec", "params": {"command": "ls"}}, "ctx": coordinator()},
        {"hook": "before_tool_call", "event": {"toolName": "tool_call", "params": {"id": "sessions_spawn", "args": {"task": "x"}}},
         "ctx": coordinator()},
        {"hook": "middleware", "event": {"toolName": "exec", "result": {"content": [{"type": "text", "text": "out"}]}},
         "ctx": coordinator()}
    ]);
    let dead = json!({"url": format!("ws://127.0.0.1:{}/v1/control", free_port()), "timeoutMs": 2000});
    let out =
        drive(&plugin, &json!({"config": dead, "steps": steps}), &[("BLINDFOLD_ADAPTER_TOKEN", "t".into())]);
    for gate in &out[..2] {
        assert_eq!(gate["result"]["block"], json!(true), "{gate}");
        assert!(gate["result"]["blockReason"].as_str().unwrap_or("").contains("fail closed"), "{gate}");
    }
    assert!(out[2]["result"]["result"].to_string().contains("withheld by Blindfold"), "{}", out[2]);

    // A daemon that refuses the token: the same.
    let (_daemon, port) = run_daemon(&w, "");
    let bad = json!({"url": format!("ws://127.0.0.1:{port}/v1/control"), "timeoutMs": 5000});
    let out = drive(
        &plugin,
        &json!({"config": bad, "steps": steps}),
        &[("BLINDFOLD_ADAPTER_TOKEN", "wrong".into())],
    );
    assert_eq!(out[0]["result"]["block"], json!(true), "{}", out[0]);
    assert!(out[2]["result"]["result"].to_string().contains("withheld by Blindfold"), "{}", out[2]);
}

/// The story up to the coordinator's destructive call (`call_id`), then OpenClaw waiting on the
/// approval it asked for.
fn held_story(call_id: &str) -> Vec<Value> {
    let mut steps = vec![step(
        "before_agent_run",
        json!({"prompt": "Free disk space: ask scout for a plan, have critic review it, then act.", "messages": []}),
        coordinator(),
    )];
    steps.extend(spawn_and_answer("scout", "u1", "r1", "quill-mini-4", "Propose one shell command.", PLAN));
    steps.extend(critic_refutes());
    steps.push(exec("rm -rf data", call_id, from_chat()));
    steps.push(json!({"hook": "await_approval", "toolCallId": call_id, "timeoutMs": 300_000}));
    steps
}

/// Runs `steps` in the driver while a human answers the pending review of `rm -rf data` in
/// Blindfold (`approve` with a signed grant, else reject); returns the driver's lines.
fn answered_in_blindfold(
    w: &World,
    port: u16,
    run_cfg: &std::path::Path,
    steps: Vec<Value>,
    approve: bool,
) -> Vec<Value> {
    let plugin = install_plugin(&w.path("plugin"));
    let config = json!({"url": format!("ws://127.0.0.1:{port}/v1/control"),
        "tokenFile": w.state.join("adapter.token"), "timeoutMs": 10000, "trajectory": TRAJECTORY,
        "approvalTimeoutMs": 300_000});
    let script = json!({"config": config, "steps": steps});
    let driver = std::thread::spawn(move || drive(&plugin, &script, &[]));
    let operator = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let id = loop {
        let listed = control_call(port, operator.trim(), "review.list", json!({"status": "pending"}));
        let pending = listed["result"]["reviews"].as_array().cloned().unwrap_or_default();
        if let Some(item) = pending.iter().find(|i| i["tool"] == "bash" && i["trajectory"] == TRAJECTORY) {
            break item["id"].as_str().expect("review id").to_owned();
        }
        assert!(!driver.is_finished(), "the driver ended without a held call");
        assert!(std::time::Instant::now() < deadline, "no review was held");
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let mut cmd = blindfold_integration_tests::blindfold();
    if approve {
        cmd.args(["review", "approve", &id, "--key"]).arg(&w.key);
    } else {
        cmd.args(["review", "reject", &id, "--reason", "the data is the only copy"]);
    }
    let answered = cmd.arg("--config").arg(run_cfg).output().expect("review answer");
    assert!(answered.status.success(), "{}", String::from_utf8_lossy(&answered.stderr));
    let out = driver.join().expect("driver");
    assert!(out.iter().all(|o| o.get("error").is_none()), "{out:?}");
    let ask = out.iter().rev().find(|o| o["hook"] == "before_tool_call").expect("gate");
    let approval = &ask["result"]["requireApproval"];
    assert_eq!(approval["allowedDecisions"], json!(["allow-once", "deny"]), "{ask}");
    assert!(approval["title"].as_str().is_some_and(|t| t.contains(&id)), "{approval}");
    assert!(approval["description"].as_str().is_some_and(|d| d.contains("contradicted")), "{approval}");
    assert!(ask["result"].get("block").is_none(), "{ask}");
    out
}

#[test]
fn a_held_call_asks_openclaw_for_approval_that_blindfold_answers_from_its_review() {
    let w = World::new(AGENTS);
    let (_daemon, port) = run_daemon(&w, "");
    let run_cfg = w.path(&format!("run-{port}.toml"));

    // Approved in Blindfold with a grant for exactly that call: OpenClaw's approval gets `allow-once`.
    let out = answered_in_blindfold(&w, port, &run_cfg, held_story("call-held"), true);
    let waited = out.iter().find(|o| o["hook"] == "await_approval").expect("await");
    assert_eq!(waited["result"]["decision"], "allow-once", "{waited}");
    let resolves: Vec<&Value> = waited["result"]["gateway"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["method"] == "plugin.approval.resolve")
        .collect();
    assert_eq!(resolves.len(), 1, "{waited}");
    assert_eq!(resolves[0]["params"]["decision"], "allow-once");

    // The grant was for one call: the same bytes again are held again, and a rejection in
    // Blindfold answers OpenClaw's approval with `deny`.
    let again = vec![
        exec("rm -rf data", "call-held-2", from_chat()),
        json!({"hook": "await_approval", "toolCallId": "call-held-2", "timeoutMs": 300_000}),
    ];
    let out = answered_in_blindfold(&w, port, &run_cfg, again, false);
    let waited = out.iter().find(|o| o["hook"] == "await_approval").expect("await");
    assert_eq!(waited["result"]["decision"], "deny", "{waited}");
    let records = trace_records(&w.state.join("traces"), TRAJECTORY);
    let allowed = records
        .iter()
        .filter(|r| r["kind"] == "tool_call" && r["target"] == "rm -rf data" && r["decision"] == "allow")
        .count();
    assert_eq!(allowed, 1, "exactly the approved call passed: {records:?}");
}
