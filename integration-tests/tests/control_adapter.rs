//! Control API methods for harness adapters: `check_action` decides a tool call through the
//! daemon's gate (refusal text and the grant that would unblock it), a submitted grant then
//! allows exactly those bytes once, `report_event` feeds events, and only the operator may
//! `set_modes`.

use blindfold_integration_tests::Daemon;
use blindfold_integration_tests::control_ws::{call, connect};
use blindfold_integration_tests::transports::World;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adapters_check_actions_and_only_operators_toggle_modes() {
    let w = World::new("");
    let daemon = Daemon::start(
        &w.state,
        &[("BLINDFOLD_GRANTS__TRUSTED_KEYS", w.path("keys/issuer.pub.pem").display().to_string())],
    );
    let mut adapter = connect(daemon.port, &daemon.adapter_token()).await;
    let mut operator = connect(daemon.port, &daemon.operator_token()).await;
    let write = json!({"trajectory": "task-ctl", "tool": "write_file", "args": {"path": "/w/a.txt", "content": "hello"}, "consume": true});

    let r = call(&mut adapter, "check_action", write.clone()).await;
    assert_eq!(r["result"]["allowed"], false, "{r}");
    assert_eq!(r["result"]["decision"]["reason"], "no_grant");
    assert_eq!(r["result"]["refusal"]["detail"]["needed_grant"]["target"], "/w/a.txt");
    let read = json!({"trajectory": "task-ctl", "tool": "read_file", "args": {"path": "/w/a.txt"}});
    assert_eq!(call(&mut adapter, "check_action", read).await["result"]["allowed"], true);

    let token = w.issue("task-ctl", "write_file", "/w/a.txt", b"hello");
    let r = call(&mut operator, "submit_grant", json!({"token": token})).await;
    assert_eq!(r["result"]["accepted"], true, "{r}");
    assert_eq!(call(&mut adapter, "check_action", write.clone()).await["result"]["allowed"], true);
    let again = call(&mut adapter, "check_action", write).await;
    assert_eq!(again["result"]["allowed"], false, "a single-use grant is spent: {again}");

    let ev = json!({"trajectory": "task-ctl", "event": {"kind": "tool_result", "tool": "read_file", "content": "hi"}});
    assert!(call(&mut adapter, "report_event", ev).await["result"].is_object());
    let bad = call(&mut adapter, "report_event", json!({"trajectory": "t", "event": {"kind": "nope"}})).await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

    let denied = call(&mut adapter, "set_modes", json!({"name": "off"})).await;
    assert_eq!(denied["error"]["code"], -32003, "{denied}");
    let off = call(&mut operator, "set_modes", json!({"name": "off"})).await;
    assert_eq!(off["result"]["modes"]["enforce"], false, "{off}");
    let status = call(&mut adapter, "status", json!({})).await;
    assert_eq!(status["result"]["modes"]["grants"], false, "{status}");
}
