//! Harness frames: OpenCode, OpenClaw, Pi.

use super::{anonymizer, tokens};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::json;
use std::borrow::Cow;

#[test]
fn opencode_agent_list_gets_aliases() {
    let anon = anonymizer();
    let a = anon.aliases().alias_of("researcher").expect("alias");
    let c = anon.aliases().alias_of("checker").expect("alias");
    let text = "Launch a new agent.\nAvailable agent types and the tools they have access to:\n\
- general: General-purpose agent for research.\n\
- researcher: m-large-2 (frontier tier) deep research by Acme AI\n\
- checker: The efficient model that checks claims\n";
    let out = anon.rewrite_agent_list(text);
    assert_eq!(
        out,
        format!(
            "Launch a new agent.\nAvailable agent types and the tools they have access to:\n\
- general: General-purpose agent for research.\n\
- {a}: [model] ([tier] tier) deep research by [provider]\n\
- {c}: The [tier] model that checks claims\n"
        )
    );
    let plain = "- general: General-purpose agent.\n- explore: Fast agent for exploring code\n";
    assert!(matches!(anon.rewrite_agent_list(plain), Cow::Borrowed(_)));
}

#[test]
fn opencode_task_result_and_metadata() {
    let anon = anonymizer();
    let output = "task_id: ses_1 (for resuming to continue this task if needed)\n\n<task_result>\nAs m-large-2 I found the bug.\n</task_result>";
    assert!(anon.rewrite_text(output).contains("As [model] I found the bug."));
    let mut meta = json!({"sessionId": "ses_1", "model": {"modelID": "m-large-2", "providerID": "acme"}});
    anon.scrub_harness_json(&mut meta);
    assert_eq!(meta, json!({"sessionId": "ses_1"}));
}

#[test]
fn openclaw_spawn_result_and_session_keys() {
    let anon = anonymizer();
    let a = anon.aliases().alias_of("researcher").expect("alias");
    let mut spawn = json!({"status": "accepted", "childSessionKey": "agent:researcher:subagent:9f2c",
        "runId": "r1", "mode": "run", "note": "spawned researcher on m-large-2",
        "modelApplied": "acme/m-large-2", "resolvedModel": "m-large-2", "resolvedProvider": "Acme AI"});
    anon.scrub_harness_json(&mut spawn);
    assert_eq!(
        spawn,
        json!({"status": "accepted", "childSessionKey": format!("agent:{a}:subagent:9f2c"),
        "runId": "r1", "mode": "run", "note": format!("spawned {a} on [model]")})
    );
}

#[test]
fn pi_details_lose_model_and_agent_names() {
    let anon = anonymizer();
    let mut details = json!({"results": [{"agent": "checker", "task": "verify", "exitCode": 0,
        "usage": {"input": 10}, "model": "q-small-1.5", "stopReason": "stop"}]});
    anon.scrub_harness_json(&mut details);
    assert_eq!(details["results"][0]["agent"], anon.aliases().alias_of("checker").expect("alias"));
    assert!(details["results"][0].get("model").is_none());
    assert_eq!(oracle_leaks(serde_json::to_vec(&details).expect("json"), &tokens()), 0);
}
