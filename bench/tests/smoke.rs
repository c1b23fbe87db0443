//! A short smoke of every benchmark arm: a few calls each way, answers checked, no timing
//! asserted (the full measurement is `make bench`).

use blindfold_bench::arms::{Arm, mcp_round, start_http};
use blindfold_bench::control;
use blindfold_bench::loadgen::Payload;
use blindfold_bench::proc::{blindfold_config, free_port, sibling};
use std::path::PathBuf;

fn blindfold() -> PathBuf {
    let path = sibling("blindfold");
    assert!(path.exists(), "{} missing: run `cargo build --workspace --bins` first", path.display());
    path
}

#[test]
fn every_mcp_arm_answers_tools_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = blindfold_config(dir.path(), free_port(), "");
    for arm in Arm::ALL {
        let r =
            mcp_round(arm, &blindfold(), &config, 5, 20).unwrap_or_else(|e| panic!("{}: {e}", arm.name()));
        assert_eq!(r.sequential.n, 5, "{}", arm.name());
        assert!(r.pipelined_per_s > 0.0, "{}", arm.name());
    }
}

#[test]
fn every_http_arm_answers_a2a_sse_and_chat_and_the_control_api_checks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let topo = start_http(dir.path(), &blindfold()).expect("topology");
    assert!(topo.a2a_path.starts_with("/a2a/"), "{}", topo.a2a_path);
    for payload in [Payload::A2aSend, Payload::A2aStream, Payload::Chat] {
        for arm in Arm::ALL {
            let r = topo.load(arm, payload, 0.0, 2, 0.3).expect("load");
            let ctx = format!("{payload:?} via {}: {:?}", arm.name(), r.first_error);
            assert_eq!(r.errors, 0, "{ctx}");
            assert!(r.ok > 0, "{ctx}");
        }
    }
    let token = control::adapter_token(&topo.state_dir).expect("token");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let (rate, lat) =
        rt.block_on(control::sequential_checks(topo.blindfold_port, &token, 1, 0.3)).expect("checks");
    assert!(rate > 0.0 && lat.n > 0);
    rt.block_on(control::pipelined_checks(topo.blindfold_port, &token, 2, 4, 0, 40, 3)).expect("pipelined");
    let socks = rt.block_on(control::hold_open(topo.blindfold_port, &token, 5)).expect("open sockets");
    assert_eq!(socks.len(), 5);
}
