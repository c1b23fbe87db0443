//! `blindfold mcp-stdio --agent ID`: a relay that carries a sub-agent's own MCP calls (the official
//! Python `mcp` SDK client and server) decides them as that agent's actions. With a grant for
//! exactly the bytes, the coordinator's write runs; the same write carried for sub-agent `scout`
//! is refused `unverified` (a sub-agent's effectful action needs an independent verification
//! first), and the trace names the call's actor by scout's alias, not as the coordinator.

use blindfold_integration_tests::blindfold_bin;
use blindfold_integration_tests::transports::{World, arg, mcp_client, peer, python, trace_records};
use serde_json::{Value, json};
use std::ffi::{OsStr, OsString};

const IDENTITY: &str = r#"
[[identity.agents]]
id = "scout"
model = "quill-nano-2"
family = "quill"
provider = "Quillworks"
"#;

fn relay(w: &World, task: &str, agent: Option<&str>, server: &[&OsStr]) -> Vec<OsString> {
    let mut v: Vec<OsString> =
        vec!["--".into(), blindfold_bin().into(), "mcp-stdio".into(), "--config".into()];
    v.push(w.config.clone().into());
    v.extend(["--task".into(), task.into(), "--trusted".into()]);
    if let Some(a) = agent {
        v.extend(["--agent".into(), a.into()]);
    }
    v.push("--".into());
    v.extend(server.iter().map(OsString::from));
    v
}

fn reason(r: &Value) -> &str {
    r["meta"]["blindfold/decision"]["decision"]["reason"].as_str().unwrap_or("")
}

#[test]
fn a_relay_for_a_sub_agent_decides_its_calls_as_that_agents_actions() {
    let w = World::new(IDENTITY);
    let (py, server_py) = (python(), peer("mcp_server.py"));
    let server = [arg(&py), arg(&server_py)];
    for (task, agent) in [("mcp-coordinator", None), ("mcp-scout", Some("scout"))] {
        let out = w.path(&format!("{task}.txt"));
        let out_s = out.to_str().expect("utf8").to_owned();
        let staged = w.path(&format!("{task}.jwt"));
        std::fs::write(&staged, w.issue(task, "write_file", &out_s, b"approved bytes")).expect("stage");
        let ops = json!([
            {"drop": [staged, w.state.join("grants").join(format!("{task}.jwt"))]},
            {"call": "write_file", "args": {"path": out_s, "content": "approved bytes"}},
        ]);
        let r = mcp_client(&ops, "2026-07-28", &relay(&w, task, agent, &server));
        let call = &r["results"][1];
        let calls: Vec<Value> = trace_records(&w.state.join("traces"), task)
            .into_iter()
            .filter(|rec| rec["kind"] == "tool_call" && rec["tool"] == "write_file")
            .collect();
        assert_eq!(calls.len(), 1, "{calls:?}");
        match agent {
            None => {
                assert_eq!(call["isError"], false, "the coordinator's granted write runs: {r}");
                assert_eq!(std::fs::read_to_string(&out).expect("written"), "approved bytes");
                assert_eq!(calls[0]["actor_alias"], "coordinator", "{calls:?}");
            }
            Some(_) => {
                assert_eq!(call["isError"], true, "{r}");
                assert_eq!(reason(call), "unverified", "a sub-agent's write needs a verification: {r}");
                assert!(!out.exists(), "the sub-agent's unverified write ran");
                let actor = calls[0]["actor_alias"].as_str().unwrap_or_default();
                assert!(actor.starts_with("agent-"), "the actor is scout's alias: {calls:?}");
            }
        }
    }
}
