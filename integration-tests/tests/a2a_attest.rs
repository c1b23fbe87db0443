//! `attest` and Blindfold's card signatures against real peers: three `a2a-sdk` agents — one
//! whose card the SDK signed with a key Blindfold trusts, one signed then altered, one unsigned —
//! behind Blindfold in `attest` mode. The `a2a-sdk` client sees verified identity (marked as
//! verified) only on the first; the trace flags the claims of the other two; every card it gets
//! carries Blindfold's own signature, which the SDK's verifier accepts with the published key.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{
    World, peer, python, python_peer, run_bounded, run_daemon, wait_port,
};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const ATTESTED: &str = "urn:blindfold:attested-identity:v1";

fn keygen(w: &World, name: &str) -> String {
    let out = blindfold_integration_tests::blindfold()
        .args(["keygen", "--out-dir"])
        .arg(w.path("cardkeys"))
        .args(["--name", name])
        .output()
        .expect("keygen");
    assert!(out.status.success(), "keygen: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf8").trim().to_owned()
}

fn client(port: u16) -> (Value, String) {
    let mut cmd = Command::new(python());
    cmd.arg(peer("a2a_client.py")).arg(format!("http://127.0.0.1:{port}")).args(["--no-stream", "hello"]);
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(90));
    assert_eq!(code, Some(0), "a2a client failed:\n{stdout}\n{stderr}");
    let line = stdout.lines().last().unwrap_or("").to_owned();
    (serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {stdout}")), line)
}

/// Every `card` record of the trace whose detail is an attestation, by agent alias.
fn attest_records(state: &Path, want: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(state.join("traces")).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            for line in text.lines() {
                let Ok(r) = serde_json::from_str::<Value>(line) else { continue };
                if r["kind"] == "card"
                    && let Some(d) = r["detail"].as_str().and_then(|d| serde_json::from_str::<Value>(d).ok())
                {
                    found.push(json!({"alias": r["actor_alias"], "attest": d["attest"]}));
                }
            }
        }
        if found.len() >= want || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn attest_shows_verified_identity_only_for_a_validly_signed_card_and_flags_the_rest() {
    let w = World::new("[modes]\nanonymize = false\nattest = true\n");
    let kid = keygen(&w, "upstream");
    let key = w.path("cardkeys/upstream.key.pem");
    let key = key.to_str().expect("utf8 path");
    let (p1, p2, p3) = (free_port(), free_port(), free_port());
    let _signed = python_peer(
        "a2a_agent.py",
        &[&p1.to_string(), "m-large-2", "m-large", "frontier", "Acme", key, &kid],
    );
    let _tampered = python_peer(
        "a2a_agent.py",
        &[&p2.to_string(), "s-mini-1", "s-mini", "efficient", "Borealis", key, &kid, "tamper"],
    );
    let _unsigned = python_peer("a2a_agent.py", &[&p3.to_string(), "c-pro-3", "c-pro", "pro", "Cobalt"]);
    for p in [p1, p2, p3] {
        wait_port(p, Duration::from_secs(60));
    }
    // No operator identity for these agents: only a signature can verify what they claim.
    let extra = format!(
        "[identity]\ncard_keys = [{:?}]\n\n\
         [[a2a.upstreams]]\nid = \"ag-signed\"\nurl = \"http://127.0.0.1:{p1}\"\n\n\
         [[a2a.upstreams]]\nid = \"ag-tampered\"\nurl = \"http://127.0.0.1:{p2}\"\n\n\
         [[a2a.upstreams]]\nid = \"ag-unsigned\"\nurl = \"http://127.0.0.1:{p3}\"\n",
        w.path("cardkeys/upstream.pub.pem"),
    );
    let (_daemon, port) = run_daemon(&w, &extra);
    let (r, raw) = client(port);

    let cards = r["cards"].as_object().expect("cards");
    assert_eq!(cards.len(), 3, "{raw}");
    let attested: Vec<(&String, &Value)> = cards
        .iter()
        .filter(|(_, c)| {
            c.pointer("/capabilities/extensions/0/uri").and_then(Value::as_str) == Some(ATTESTED)
        })
        .collect();
    assert_eq!(attested.len(), 1, "exactly the validly signed card shows verified identity: {raw}");
    let (signed_alias, signed_card) = attested[0];
    let params = &signed_card["capabilities"]["extensions"][0]["params"];
    assert_eq!(params["verified"], true, "{raw}");
    assert_eq!(params["verifiedBy"], "signature", "{raw}");
    assert_eq!(params["kid"], kid.as_str(), "{raw}");
    assert_eq!(params["provider.organization"], "Acme", "{raw}");
    let desc = signed_card["description"].as_str().expect("description");
    assert!(desc.contains("[verified identity (signature): "), "{desc}");
    for (alias, card) in cards.iter().filter(|(a, _)| *a != signed_alias) {
        let shown = card.to_string();
        // (The family names are not configured here and a bare "(x family)" in a card's prose is
        // not a self-identification the lexicon learns, so they are left out of this scan.)
        let leaks =
            oracle_leaks(shown.as_bytes(), &["s-mini-1", "Borealis", "c-pro-3", "Cobalt", "efficient"]);
        assert_eq!(leaks, 0, "unverified identity reached the client on {alias}: {shown}");
        assert_eq!(card["name"], alias.as_str(), "{shown}");
    }
    // Every card carries Blindfold's signature only, and the SDK's verifier accepts it.
    for (alias, card) in cards {
        assert_eq!(r["signature"][alias], "verified", "{alias}: {raw}");
        assert_eq!(card["signatures"].as_array().map(Vec::len), Some(1), "{alias}: {raw}");
    }

    // The trace flags what was stripped: a bad signature on one, nothing verifiable on the other.
    let records = attest_records(&w.state, 3);
    let by = |pred: &dyn Fn(&Value) -> bool| records.iter().find(|r| pred(r)).cloned();
    let signed = by(&|r| r["alias"] == signed_alias.as_str()).unwrap_or_else(|| panic!("{records:?}"));
    assert_eq!(signed["attest"]["verified"]["kid"], kid.as_str(), "{signed}");
    assert_eq!(signed["attest"]["flags"], json!([]), "{signed}");
    let flagged = |agent: &str| {
        by(&|r| r["attest"]["flags"].as_array().is_some_and(|f| f.iter().any(|x| x["agent"] == agent)))
            .unwrap_or_else(|| panic!("no flags for {agent}: {records:?}"))
    };
    let tampered = flagged("ag-tampered");
    let flags = tampered["attest"]["flags"].as_array().expect("flags");
    assert!(flags.iter().all(|f| f["problem"] == "bad_signature"), "{tampered}");
    assert!(
        flags.iter().any(|f| f["field"] == "provider.organization" && f["claim"] == "Borealis"),
        "{tampered}"
    );
    assert_eq!(tampered["attest"]["verified"], json!({}), "{tampered}");
    let unsigned = flagged("ag-unsigned");
    let flags = unsigned["attest"]["flags"].as_array().expect("flags");
    assert!(flags.iter().all(|f| f["problem"] == "unverified"), "{unsigned}");
    assert!(flags.iter().any(|f| f["field"] == "name" && f["claim"] == "c-pro-3 helper"), "{unsigned}");
}

#[test]
fn anonymize_replaces_upstream_signatures_with_blindfolds_own() {
    let w = World::new("");
    let kid = keygen(&w, "upstream");
    let key = w.path("cardkeys/upstream.key.pem");
    let p1 = free_port();
    let _signed = python_peer(
        "a2a_agent.py",
        &[&p1.to_string(), "m-large-2", "m-large", "frontier", "Acme", key.to_str().expect("utf8"), &kid],
    );
    wait_port(p1, Duration::from_secs(60));
    let extra = format!(
        "[[a2a.upstreams]]\nid = \"signed\"\nurl = \"http://127.0.0.1:{p1}\"\nmodel = \"m-large-2\"\n\
         family = \"m-large\"\ntier = \"frontier\"\nprovider = \"Acme\"\n"
    );
    let (_daemon, port) = run_daemon(&w, &extra);
    let (r, raw) = client(port);
    let (alias, card) = r["cards"].as_object().and_then(|c| c.iter().next()).expect("one card");
    assert_eq!(r["signature"][alias], "verified", "{raw}");
    let sigs = card["signatures"].as_array().expect("signatures");
    assert_eq!(sigs.len(), 1, "{raw}");
    assert!(!raw.contains(&kid), "the upstream's signature was dropped: {raw}");
    assert_eq!(oracle_leaks(card.to_string().as_bytes(), &["m-large-2", "m-large", "frontier", "Acme"]), 0);
    // The key was generated into the state dir, private, its public half next to it.
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(w.state.join("card-signing.key.pem")).expect("card key");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(w.state.join("card-signing.pub.pem").is_file());
}
