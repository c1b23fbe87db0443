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

#[test]
fn the_scale_out_workload_takes_one_redis_round_trip_per_decision_and_times_revocations() {
    let out = tempfile::tempdir().expect("tempdir");
    let run = std::process::Command::new(sibling("bench-runner"))
        .args(["--only", "scaleout", "--rounds", "3", "--secs", "0.2", "--revocations", "3", "--no-gate"])
        .arg("--blindfold")
        .arg(blindfold())
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("bench-runner");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "bench-runner --only scaleout: {stderr}");
    let file =
        std::fs::read_dir(out.path()).expect("results").next().expect("one result file").expect("entry");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(file.path()).expect("read")).expect("json");
    let s = &report["results"]["scaleout"];
    for arm in ["redis", "redis-everysec"] {
        let a = &s["arms"][arm];
        let decisions = a["decisions"].as_u64().expect("decisions");
        assert!(decisions > 0, "{arm}: {s}");
        // Blindfold's own count of the decision path's round trips: one use per decision.
        assert_eq!(a["round_trips"].as_u64(), Some(decisions), "{arm}: {s}");
        // Redis's count of the scripts it ran (the feed's catch-ups run one too, so at least).
        assert!(a["redis_scripts"].as_u64() >= Some(decisions), "{arm}: {s}");
    }
    // Three revocations, each timed on the two instances that did not issue it.
    assert_eq!(s["revocation_ms"]["samples"], 6, "{s}");
}
