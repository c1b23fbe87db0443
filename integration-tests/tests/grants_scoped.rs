//! Scoped grants through a real `blindfold run`: issued with `blindfold grant issue --scope`,
//! submitted over the control API, checked per action (in scope, outside it, critical inside a
//! wildcard, a chained command), counted uses that survive a restart, listed with `grant list`,
//! and revoked with `grant revoke` — new effects stop at once, reads and the configured
//! reconciliation operations go on.

use blindfold_integration_tests::openclaw::control_call;
use blindfold_integration_tests::{Daemon, blindfold};
use serde_json::{Value, json};
use std::path::PathBuf;

struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
    key: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().expect("tmp");
        let made = blindfold()
            .args(["keygen", "--out-dir"])
            .arg(dir.path())
            .args(["--name", "ops"])
            .output()
            .expect("keygen");
        assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src")).expect("mkdir");
        let config = dir.path().join("blindfold.toml");
        std::fs::write(
            &config,
            format!(
                "[grants]\ntrusted_keys = [\"{}\"]\nleeway_s = 0\nmax_ttl_s = 86400\nreconciliation = [\"delivery_status\"]\n\
                 [workspace]\nroot = \"{}\"\n",
                dir.path().join("ops.pub.pem").display(),
                ws.display()
            ),
        )
        .expect("config");
        Setup { key: dir.path().join("ops.key.pem"), config, dir }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// `blindfold` with this setup's configuration and daemon.
    fn cli(&self, daemon: &Daemon, args: &[&str]) -> std::process::Output {
        let mut cmd = blindfold();
        cmd.args(args)
            .arg("--config")
            .arg(&self.config)
            .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", daemon.port))
            .env("BLINDFOLD_STATE__DIR", self.state());
        cmd.output().expect("blindfold")
    }

    fn issue(&self, task: &str, scope: &[&str], max_uses: u32) -> String {
        let mut cmd = blindfold();
        cmd.args(["grant", "issue", "--key"]).arg(&self.key).args(["--task", task, "--ttl", "3600"]);
        cmd.args(["--max-uses", &max_uses.to_string()]);
        for s in scope {
            cmd.args(["--scope", s]);
        }
        let out = cmd.output().expect("issue");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

/// Starts `blindfold run` on this setup's configuration and state directory.
fn start(setup: &Setup) -> Daemon {
    let port = blindfold_integration_tests::free_port();
    let child = blindfold()
        .arg("run")
        .arg("--config")
        .arg(&setup.config)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .env("BLINDFOLD_STATE__DIR", setup.state())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("spawn blindfold run");
    let daemon = Daemon { child, port, state_dir: setup.state() };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if blindfold_integration_tests::http_get(port, "/healthz").is_ok_and(|(c, _)| c == 200) {
            return daemon;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("blindfold did not answer /healthz");
}

fn submit(d: &Daemon, token: &str) -> Value {
    let r = control_call(d.port, &d.operator_token(), "submit_grant", json!({ "token": token }));
    assert_eq!(r["result"]["accepted"], true, "{r}");
    r["result"].clone()
}

/// One effectful call at the moment of forwarding (a grant use is taken when allowed).
fn act(d: &Daemon, task: &str, tool: &str, args: Value) -> Value {
    let r = control_call(
        d.port,
        &d.adapter_token(),
        "check_action",
        json!({"trajectory": task, "tool": tool, "args": args, "consume": true}),
    );
    r["result"].clone()
}

fn reason(v: &Value) -> String {
    v["decision"]["reason"].as_str().unwrap_or_default().to_owned()
}

fn write(path: &str) -> Value {
    json!({"path": path, "content": "fn main() {}\n"})
}

#[test]
fn a_scoped_grant_is_checked_per_action_and_spent_across_a_restart() {
    let s = Setup::new();
    let task = "scoped-restart";
    let token = s.issue(task, &["write_file,edit_file:src/**", "bash:cargo test*", "delete_file:src/**"], 3);
    let d = start(&s);
    let submitted = submit(&d, &token);
    assert_eq!(submitted["kind"], "scoped", "{submitted}");

    // Outside the scope, critical inside a wildcard, a chained command: refused, no use taken.
    let out = act(&d, task, "write_file", write("README.md"));
    assert_eq!(reason(&out), "target_denied", "{out}");
    assert!(
        out["decision"]["detail"].as_str().unwrap_or("").contains("src/**"),
        "the refusal names the scope: {out}"
    );
    assert_eq!(reason(&act(&d, task, "delete_file", json!({"path": "src/old.rs"}))), "critical_action");
    assert_eq!(reason(&act(&d, task, "bash", json!({"command": "cargo test; rm -rf /"}))), "target_denied");

    // Two uses, then a restart with nothing re-submitted.
    assert_eq!(act(&d, task, "write_file", write("src/a.rs"))["allowed"], true);
    assert_eq!(act(&d, task, "bash", json!({"command": "cargo test --lib"}))["allowed"], true);
    assert_eq!(d.stop_with("KILL"), None);
    let d = start(&s);
    let listed = s.cli(&d, &["grant", "list", "--json"]);
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    let listed: Value = serde_json::from_slice(&listed.stdout).expect("json");
    let row = &listed["grants"][0];
    assert_eq!(
        (row["kind"].as_str(), row["uses"].as_u64(), row["uses_left"].as_u64()),
        (Some("scoped"), Some(2), Some(1)),
        "{listed}"
    );
    assert_eq!(act(&d, task, "edit_file", write("src/b.rs"))["allowed"], true, "the third use");
    let spent = act(&d, task, "write_file", write("src/c.rs"));
    assert_eq!(reason(&spent), "replayed_grant", "max_uses is spent across the restart: {spent}");
    assert_eq!(d.stop_with("KILL"), None);
    // Re-submitting the same token after another restart does not bring its uses back.
    let d = start(&s);
    submit(&d, &token);
    assert_eq!(reason(&act(&d, task, "write_file", write("src/d.rs"))), "replayed_grant");
}

#[test]
fn revoking_a_task_stops_effects_at_once_and_leaves_reads_and_reconciliation() {
    let s = Setup::new();
    let task = "scoped-revoke";
    let token = s.issue(task, &["write_file,delivery_status:src/**"], 50);
    let d = start(&s);
    submit(&d, &token);
    assert_eq!(act(&d, task, "write_file", write("src/a.rs"))["allowed"], true);

    let revoked = s.cli(&d, &["grant", "revoke", "--task", task]);
    assert!(revoked.status.success(), "{}", String::from_utf8_lossy(&revoked.stderr));
    let out = act(&d, task, "write_file", write("src/b.rs"));
    assert_eq!(reason(&out), "revoked_grant", "{out}");
    assert_eq!(act(&d, task, "read_file", json!({"path": "src/a.rs"}))["allowed"], true, "reads go on");
    assert_eq!(
        act(&d, task, "delivery_status", json!({"path": "src/a.rs"}))["allowed"],
        true,
        "the configured reconciliation operation goes on under the revoked grant"
    );
    let shown = s.cli(&d, &["grant", "list", "--json"]);
    let shown: Value = serde_json::from_slice(&shown.stdout).expect("json");
    assert_eq!(shown["grants"][0]["status"], "revoked", "{shown}");

    // A new grant issued under a later version works again.
    let version = shown["revocations"][0]["task_before"]["version"].as_u64().expect("version");
    let mut cmd = blindfold();
    cmd.args(["grant", "issue", "--key"]).arg(&s.key);
    cmd.args(["--task", task, "--ttl", "600", "--max-uses", "5", "--scope", "write_file:src/**"]);
    cmd.args(["--grant-version", &version.to_string()]);
    let fresh = cmd.output().expect("issue");
    submit(&d, String::from_utf8_lossy(&fresh.stdout).trim());
    assert_eq!(act(&d, task, "write_file", write("src/c.rs"))["allowed"], true);
}

#[test]
fn review_approve_with_a_scope_releases_the_held_action_and_similar_ones() {
    let s = Setup::new();
    let mut text = std::fs::read_to_string(&s.config).expect("config");
    text.push_str("[[rules]]\ntool = \"write_file\"\npattern = \"*generated/*\"\naction = \"critical\"\n");
    std::fs::write(&s.config, text).expect("config");
    let task = "scoped-review";
    let d = start(&s);
    let held = act(&d, task, "write_file", write("src/generated/a.rs"));
    assert_eq!(held["decision"]["decision"], "review", "{held}");
    let rv = held["review_id"].as_str().expect("review id").to_owned();
    assert_eq!(reason(&act(&d, task, "write_file", write("src/b.rs"))), "no_grant", "nothing granted yet");

    let key = s.key.to_str().expect("utf8").to_owned();
    let approved = s.cli(
        &d,
        &["review", "approve", &rv, "--key", &key, "--scope", "write_file:src/**", "--max-uses", "3"],
    );
    assert!(approved.status.success(), "{}", String::from_utf8_lossy(&approved.stderr));
    let said = String::from_utf8_lossy(&approved.stdout);
    assert!(said.contains("scoped grant") && said.contains(&format!("approved {rv}")), "{said}");
    assert_eq!(act(&d, task, "write_file", write("src/generated/a.rs"))["allowed"], true, "the held action");
    assert_eq!(act(&d, task, "write_file", write("src/b.rs"))["allowed"], true, "a similar one");
    let critical = act(&d, task, "write_file", write("src/generated/c.rs"));
    assert_eq!(
        critical["decision"]["decision"], "review",
        "the scope does not name the critical asset exactly: {critical}"
    );
}
