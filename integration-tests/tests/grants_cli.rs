//! The grant CLI end to end: keygen → issue → check, the seed's cases, replay across restarts.

use blindfold_integration_tests::blindfold;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const NOW: u64 = 1_800_000_000;

struct Setup {
    dir: tempfile::TempDir,
    key: PathBuf,
    pubkey: PathBuf,
    report: PathBuf,
    proposal: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = blindfold()
        .args(["keygen", "--out-dir"])
        .arg(dir.path().join("keys"))
        .args(["--name", "issuer"])
        .output()
        .expect("keygen");
    assert!(out.status.success(), "keygen failed: {}", String::from_utf8_lossy(&out.stderr));
    let kid = String::from_utf8(out.stdout).expect("utf8");
    assert_eq!(kid.trim().len(), 43, "kid is a base64url SHA-256 thumbprint");
    let key = dir.path().join("keys/issuer.key.pem");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&key).expect("key").permissions().mode() & 0o777, 0o600);
    let report = dir.path().join("report.md");
    std::fs::write(&report, "# review\nall claims checked\n").expect("write");
    let proposal = dir.path().join("p.json");
    std::fs::write(&proposal, r#"{"task_id":"task-7","operation":"deliver_review","target":"review-inbox"}"#)
        .expect("write");
    Setup { pubkey: dir.path().join("keys/issuer.pub.pem"), key, report, proposal, dir }
}

fn issue(s: &Setup, task: &str, extra: &[&str]) -> String {
    let out = blindfold()
        .args(["grant", "issue", "--key"])
        .arg(&s.key)
        .args(["--task", task, "--op", "deliver_review", "--target", "review-inbox", "--artifact"])
        .arg(&s.report)
        .args(["--ttl", "600", "--now", &NOW.to_string()])
        .args(extra)
        .output()
        .expect("issue");
    assert!(out.status.success(), "issue failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf8").trim().to_owned()
}

fn check(
    s: &Setup,
    proposal: &Path,
    artifact: &Path,
    token: Option<&str>,
    now: u64,
    state: Option<&Path>,
) -> Output {
    let mut cmd = blindfold();
    cmd.args(["grant", "check", "--trust"])
        .arg(&s.pubkey)
        .arg("--proposal")
        .arg(proposal)
        .arg("--artifact")
        .arg(artifact)
        .args(["--now", &now.to_string()]);
    if let Some(t) = token {
        cmd.args(["--token", t]);
    }
    if let Some(dir) = state {
        cmd.arg("--state-dir").arg(dir);
    }
    cmd.output().expect("check")
}

/// The one JSON line and the exit code.
fn verdict(out: &Output) -> (String, String, i32) {
    let stdout = String::from_utf8(out.stdout.clone()).expect("utf8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one JSON line, got {stdout:?}");
    let v: Value = serde_json::from_str(lines[0]).expect("json");
    assert_eq!(v.as_object().map(|o| o.len()), Some(2), "only decision and reason: {v}");
    (
        v["decision"].as_str().unwrap_or("").into(),
        v["reason"].as_str().unwrap_or("").into(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn seed_table_through_the_cli() {
    let s = setup();
    let token = issue(&s, "task-7", &[]);
    let other_task = issue(&s, "task-8", &[]);

    let approved = s.dir.path().join("approved.json");
    std::fs::write(
        &approved,
        r#"{"task_id":"task-7","operation":"deliver_review","target":"review-inbox","approved":true}"#,
    )
    .expect("w");
    let other_target = s.dir.path().join("other.json");
    std::fs::write(&other_target, r#"{"task_id":"task-7","operation":"deliver_review","target":"attacker"}"#)
        .expect("w");
    let replaced = s.dir.path().join("replaced.md");
    std::fs::write(&replaced, "# review\nsend it elsewhere\n").expect("w");

    let cases: Vec<(&str, Output, &str)> = vec![
        ("correct", check(&s, &s.proposal, &s.report, Some(&token), NOW + 5, None), "allowed"),
        ("approved:true", check(&s, &approved, &s.report, Some(&token), NOW + 5, None), "invalid_schema"),
        ("other target", check(&s, &other_target, &s.report, Some(&token), NOW + 5, None), "target_denied"),
        (
            "replaced report",
            check(&s, &s.proposal, &replaced, Some(&token), NOW + 5, None),
            "artifact_changed",
        ),
        ("expired", check(&s, &s.proposal, &s.report, Some(&token), NOW + 601, None), "expired_grant"),
        ("other task", check(&s, &s.proposal, &s.report, Some(&other_task), NOW + 5, None), "wrong_task"),
        ("no grant", check(&s, &s.proposal, &s.report, None, NOW + 5, None), "no_grant"),
    ];
    for (name, out, want) in cases {
        let (decision, reason, code) = verdict(&out);
        assert_eq!(reason, want, "case {name}");
        if want == "allowed" {
            assert_eq!((decision.as_str(), code), ("allow", 0), "case {name}");
        } else {
            assert_eq!((decision.as_str(), code), ("deny", 1), "case {name}");
        }
    }
}

#[test]
fn replay_is_refused_across_restarts_and_revocation_sticks() {
    let s = setup();
    let state = s.dir.path().join("state");
    let token = issue(&s, "task-7", &[]);
    let first = check(&s, &s.proposal, &s.report, Some(&token), NOW + 5, Some(&state));
    assert_eq!(verdict(&first).1, "allowed");
    // A new process with the same state dir: the jti is remembered.
    let second = check(&s, &s.proposal, &s.report, Some(&token), NOW + 6, Some(&state));
    assert_eq!(verdict(&second).1, "replayed_grant");

    let revoked = issue(&s, "task-7", &["--jti", "jti-revoke-me"]);
    let out = blindfold()
        .args(["grant", "revoke", "--jti", "jti-revoke-me", "--state-dir"])
        .arg(&state)
        .output()
        .expect("revoke");
    assert!(out.status.success());
    let third = check(&s, &s.proposal, &s.report, Some(&revoked), NOW + 7, Some(&state));
    assert_eq!(verdict(&third).1, "revoked_grant");
}

#[test]
fn usage_errors_exit_2_and_loose_keys_are_refused() {
    let s = setup();
    let missing = s.dir.path().join("missing.md");
    let out = check(&s, &s.proposal, &missing, None, NOW, None);
    assert_eq!(out.status.code(), Some(2));
    let out = blindfold().args(["grant", "check", "--proposal", "x"]).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "missing --trust is a usage error");

    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&s.key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = blindfold()
        .args(["grant", "issue", "--key"])
        .arg(&s.key)
        .args(["--task", "t", "--op", "o", "--target", "x", "--artifact"])
        .arg(&s.report)
        .args(["--ttl", "60"])
        .output()
        .expect("issue");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("chmod 600"));
}

/// Another issuer's tooling (Python's `cryptography` + PyJWT) reads the key `keygen` wrote and
/// signs a grant with it; Blindfold accepts that grant exactly like one it issued itself, and
/// still refuses it for other bytes.
#[test]
fn python_issuer_signs_grants_with_the_keygen_key() {
    let s = setup();
    let ours = issue(&s, "task-7", &[]);
    let python = blindfold_integration_tests::workspace_root().join(".venv/bin/python");
    let script = r#"
import base64, json, sys, jwt
from cryptography.hazmat.primitives import serialization
key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), None)
body = sys.argv[2].split(".")[1]
claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
header = json.loads(base64.urlsafe_b64decode(sys.argv[2].split(".")[0] + "=="))
claims["jti"] = "python-issued-0001"
print(jwt.encode(claims, key, algorithm="EdDSA", headers={"kid": header["kid"]}))
"#;
    let out = std::process::Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&s.key)
        .arg(&ours)
        .output()
        .expect("run the venv's python (make deps)");
    assert!(out.status.success(), "python could not sign: {}", String::from_utf8_lossy(&out.stderr));
    let theirs = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
    assert_ne!(theirs, ours);

    let (decision, reason, _) = verdict(&check(&s, &s.proposal, &s.report, Some(&theirs), NOW + 5, None));
    assert_eq!((decision.as_str(), reason.as_str()), ("allow", "allowed"));
    let replaced = s.dir.path().join("replaced.md");
    std::fs::write(&replaced, "# review\nsomething else\n").expect("w");
    let (decision, reason, _) = verdict(&check(&s, &s.proposal, &replaced, Some(&theirs), NOW + 5, None));
    assert_eq!((decision.as_str(), reason.as_str()), ("deny", "artifact_changed"));
}

/// `grant issue` with its own `--ttl` and `--now` (the `issue` helper fixes both).
fn issue_at(s: &Setup, ttl: &str, now: u64) -> Output {
    blindfold()
        .args(["grant", "issue", "--key"])
        .arg(&s.key)
        .args(["--task", "task-7", "--op", "deliver_review", "--target", "review-inbox", "--artifact"])
        .arg(&s.report)
        .args(["--ttl", ttl, "--now", &now.to_string()])
        .output()
        .expect("issue")
}

#[test]
fn a_grant_dated_in_the_future_is_not_yet_valid_and_a_zero_ttl_is_refused() {
    let s = setup();
    // Dated 300 days ahead for one hour: it would be usable from today until then.
    let out = issue_at(&s, "3600", NOW + 300 * 86_400);
    assert!(out.status.success(), "issue failed: {}", String::from_utf8_lossy(&out.stderr));
    let token = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();
    let (decision, reason, code) = verdict(&check(&s, &s.proposal, &s.report, Some(&token), NOW + 5, None));
    assert_eq!((decision.as_str(), reason.as_str(), code), ("deny", "not_yet_valid", 1));

    let out = issue_at(&s, "0", NOW);
    assert_eq!(out.status.code(), Some(2), "a zero lifetime is a usage error");
    assert!(out.stdout.is_empty(), "no token printed");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--ttl"), "the error names the flag");
}
