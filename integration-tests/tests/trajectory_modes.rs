//! Mode toggles per trajectory: `set_modes {trajectory}` overrides the global modes for that
//! trajectory only (live, traced), `clear` returns it to the global modes, and only the
//! operator may do either.

use blindfold_integration_tests::Daemon;
use blindfold_integration_tests::control_ws::{call, connect};
use blindfold_integration_tests::transports::World;
use serde_json::{Value, json};

fn write(trajectory: &str) -> Value {
    json!({"trajectory": trajectory, "tool": "write_file", "args": {"path": "/w/m.txt", "content": "x"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trajectory_override_beats_the_global_modes_and_is_traced() {
    let w = World::new("");
    let daemon = Daemon::start(&w.state, &[]);
    let mut adapter = connect(daemon.port, &daemon.adapter_token()).await;
    let mut op = connect(daemon.port, &daemon.operator_token()).await;

    let forbidden = call(&mut adapter, "set_modes", json!({"trajectory": "t-obs", "name": "off"})).await;
    assert_eq!(forbidden["error"]["code"], -32003, "{forbidden}");

    let set = call(&mut op, "set_modes", json!({"trajectory": "t-obs", "name": "off"})).await;
    assert_eq!(set["result"]["modes"]["enforce"], false, "{set}");
    let observed = call(&mut adapter, "check_action", write("t-obs")).await;
    assert_eq!(observed["result"]["enforced"], false, "{observed}");
    assert_eq!(observed["result"]["allowed"], true, "observe records only: {observed}");
    let other = call(&mut adapter, "check_action", write("t-enf")).await;
    assert_eq!(other["result"]["allowed"], false, "other trajectories keep the global modes: {other}");
    assert_eq!(other["result"]["decision"]["reason"], "no_grant");
    let status = call(&mut adapter, "status", json!({})).await;
    assert_eq!(status["result"]["modes"]["enforce"], true, "the global modes are untouched: {status}");

    // The global modes change; the override still wins for its trajectory.
    call(&mut op, "set_modes", json!({"name": "all"})).await;
    assert_eq!(call(&mut adapter, "check_action", write("t-obs")).await["result"]["allowed"], true);

    let cleared = call(&mut op, "set_modes", json!({"trajectory": "t-obs", "clear": true})).await;
    assert_eq!(cleared["result"]["modes"]["enforce"], true, "{cleared}");
    assert_eq!(call(&mut adapter, "check_action", write("t-obs")).await["result"]["allowed"], false);

    let traces = std::fs::read_dir(w.state.join("traces")).expect("traces");
    let text: String =
        traces.map(|e| std::fs::read_to_string(e.expect("entry").path()).unwrap_or_default()).collect();
    let changes: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["kind"] == "control" && r["tool"] == "set_modes")
        .collect();
    assert_eq!(changes.len(), 3, "{changes:?}");
    assert_eq!(changes[0]["target"], "trajectory:t-obs");
    assert!(changes[0]["detail"].as_str().is_some_and(|d| d.ends_with("enforce: false }")), "{changes:?}");
    assert_eq!(changes[1]["target"], "modes");
    assert_eq!(changes[2]["target"], "trajectory:t-obs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_operator_ends_a_trajectory_so_an_adapter_cannot_wipe_its_override() {
    let w = World::new("");
    let daemon = Daemon::start(&w.state, &[]);
    let mut adapter = connect(daemon.port, &daemon.adapter_token()).await;
    let mut op = connect(daemon.port, &daemon.operator_token()).await;
    call(&mut op, "set_modes", json!({"name": "off"})).await;
    call(&mut op, "set_modes", json!({"trajectory": "t-strict", "name": "all"})).await;
    let denied = call(&mut adapter, "check_action", write("t-strict")).await;
    assert_eq!(denied["result"]["allowed"], false, "{denied}");

    let forbidden = call(&mut adapter, "end_trajectory", json!({"trajectory": "t-strict"})).await;
    assert_eq!(forbidden["error"]["code"], -32003, "{forbidden}");
    let still = call(&mut adapter, "check_action", write("t-strict")).await;
    assert_eq!(still["result"]["allowed"], false, "the override and the state stay: {still}");

    let ended = call(&mut op, "end_trajectory", json!({"trajectory": "t-strict"})).await;
    assert!(ended["result"].is_object(), "{ended}");
}
