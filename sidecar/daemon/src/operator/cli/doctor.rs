//! `blindfold doctor [--dir DIR]`: checks that a harness project is wired to Blindfold and says
//! what is missing — the project's `blindfold.toml`, the daemon answering, the adapter installed
//! as shipped (OpenClaw's also loaded, allowed and enabled) and pointed at this daemon, the harness's model provider going through the
//! model-API proxy (and the proxy answering), and sessions whose plugin registered and whose
//! model requests the proxy paired. Exit 0 when everything holds, 1 otherwise.

use super::review::{Client, Failure};
use crate::config::Config;
use clap::Args;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `blindfold doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The harness project (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// The daemon's configuration (default: the project's blindfold.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

struct Report(bool);

impl Report {
    fn check(&mut self, ok: bool, what: &str, fix: &str) {
        if ok {
            println!("ok    {what}");
        } else {
            self.0 = false;
            println!("FAIL  {what}\n      {fix}");
        }
    }
}

/// `GET path` on `addr`: true on a 200.
fn answers(addr: &str, path: &str) -> bool {
    let Ok(mut s) = std::net::TcpStream::connect(addr) else { return false };
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(3)));
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    let mut raw = String::new();
    s.write_all(req.as_bytes()).is_ok()
        && s.read_to_string(&mut raw).is_ok()
        && raw.starts_with("HTTP/1.1 200")
}

/// The harness of `dir`, its adapter settings file and the base URL its provider uses now.
fn harness(dir: &Path) -> Option<(&'static str, PathBuf, Vec<String>)> {
    let json = |p: &Path| -> Option<Value> {
        serde_json::from_str(&super::init::strip_json_comments(&std::fs::read_to_string(p).ok()?)).ok()
    };
    if dir.join(".opencode").exists()
        || dir.join("opencode.json").exists()
        || dir.join("opencode.jsonc").exists()
    {
        let cfg = json(&dir.join("opencode.json")).or_else(|| json(&dir.join("opencode.jsonc")))?;
        let model = cfg.get("model").and_then(Value::as_str).unwrap_or_default();
        let provider = model.split('/').next().unwrap_or_default();
        let url = cfg.pointer(&format!("/provider/{provider}/options/baseURL")).and_then(Value::as_str);
        return Some((
            "opencode",
            dir.join(".opencode/blindfold.json"),
            url.map(str::to_owned).into_iter().collect(),
        ));
    }
    if dir.join("openclaw.json").exists() {
        let cfg = json(&dir.join("openclaw.json"))?;
        let urls = cfg.pointer("/models/providers").and_then(Value::as_object).into_iter().flatten();
        let urls = urls.filter_map(|(_, p)| p.get("baseUrl")?.as_str().map(str::to_owned)).collect();
        return Some(("openclaw", dir.join("openclaw.json"), urls));
    }
    if dir.join(".pi").exists() {
        let settings = json(&dir.join(".pi/blindfold.json")).unwrap_or(json!({}));
        let urls = settings.get("providers").and_then(Value::as_object).into_iter().flatten();
        let urls = urls.filter_map(|(_, u)| u.as_str().map(str::to_owned)).collect();
        return Some(("pi", dir.join(".pi/blindfold.json"), urls));
    }
    None
}

/// The adapter's settings (the OpenClaw plugin's are in its entry of openclaw.json).
fn settings(kind: &str, file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or(json!({}));
    if kind == "openclaw" {
        v.pointer("/plugins/entries/blindfold/config").cloned().unwrap_or(json!({}))
    } else {
        v
    }
}

/// Runs `blindfold doctor`.
pub fn run(a: DoctorArgs) -> ExitCode {
    let dir = std::fs::canonicalize(&a.dir).unwrap_or(a.dir.clone());
    let toml_path = a.config.clone().unwrap_or_else(|| dir.join("blindfold.toml"));
    let mut r = Report(true);
    let cfg = crate::config::load(Some(&toml_path));
    r.check(
        cfg.is_ok(),
        &format!("{} is a valid Blindfold config", toml_path.display()),
        &format!(
            "run `blindfold init <harness> --dir {}` ({})",
            dir.display(),
            cfg.as_ref().err().map(ToString::to_string).unwrap_or_default()
        ),
    );
    let Ok(cfg) = cfg else { return ExitCode::from(1) };
    let Some((kind, settings_file, urls)) = harness(&dir) else {
        r.check(
            false,
            "a harness project (OpenCode, Pi or OpenClaw)",
            "run doctor in the project's directory, or pass --dir",
        );
        return ExitCode::from(1);
    };
    let listen = cfg.server.listen.to_string();
    r.check(
        answers(&listen, "/healthz"),
        &format!("the daemon answers on {listen}"),
        &format!("start it: blindfold run --config {}", toml_path.display()),
    );
    adapter_checks(&mut r, kind, &dir, &settings_file);
    let s = settings(kind, &settings_file);
    let url = format!("ws://{listen}/v1/control");
    r.check(
        s["url"] == json!(url),
        &format!("the {kind} adapter points at {url}"),
        &format!(
            "its settings ({}) say {}: run `blindfold init {kind} --dir {}` again",
            settings_file.display(),
            s["url"],
            dir.display()
        ),
    );
    let token = Path::new(s["tokenFile"].as_str().unwrap_or_default());
    r.check(
        std::fs::read_to_string(token).is_ok(),
        &format!("the adapter token {} is readable", token.display()),
        "the harness's user must read it: see 'running the daemon as its own user' in docs/harnesses/",
    );
    proxy_checks(&mut r, &cfg, &urls);
    session_checks(&mut r, &cfg, kind);
    if r.0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// The adapter's main file is where init put it, as this Blindfold ships it; OpenClaw's plugin is
/// also loaded, allowed and enabled in `openclaw.json` (a plugin OpenClaw does not load gates
/// nothing).
fn adapter_checks(r: &mut Report, kind: &str, dir: &Path, settings_file: &Path) {
    let again = format!("run `blindfold init {kind} --dir {}` again", dir.display());
    let Some((rel, shipped)) = super::init::shipped_adapter(kind) else { return };
    let path = dir.join(rel);
    let installed = std::fs::read_to_string(&path);
    let what = format!("the {kind} adapter is installed as shipped ({})", path.display());
    let fix = match &installed {
        Err(_) => format!("it is missing: {again}"),
        Ok(_) => format!("it differs from this Blindfold's: {again}"),
    };
    r.check(installed.is_ok_and(|t| t == shipped), &what, &fix);
    if kind != "openclaw" {
        return;
    }
    let text = std::fs::read_to_string(settings_file).unwrap_or_default();
    let cfg: Value = serde_json::from_str(&super::init::strip_json_comments(&text)).unwrap_or(json!({}));
    let plugin_dir = path.parent().map(|p| p.display().to_string()).unwrap_or_default();
    let loaded = cfg
        .pointer("/plugins/load/paths")
        .and_then(Value::as_array)
        .is_some_and(|l| l.iter().filter_map(Value::as_str).any(|p| p.trim_end_matches('/') == plugin_dir));
    let allowed = cfg
        .pointer("/plugins/allow")
        .and_then(Value::as_array)
        .is_none_or(|l| l.iter().any(|p| p.as_str() == Some("blindfold")));
    let enabled = cfg.pointer("/plugins/entries/blindfold/enabled") == Some(&json!(true));
    let missing: Vec<&str> = [
        (loaded, "plugins.load.paths does not name it"),
        (allowed, "plugins.allow does not name blindfold"),
        (enabled, "plugins.entries.blindfold.enabled is not true"),
    ]
    .iter()
    .filter(|(ok, _)| !ok)
    .map(|(_, why)| *why)
    .collect();
    r.check(
        missing.is_empty(),
        &format!("OpenClaw loads the plugin ({})", settings_file.display()),
        &format!("{}: {again}", missing.join("; ")),
    );
}

fn proxy_checks(r: &mut Report, cfg: &Config, urls: &[String]) {
    let Some(upstream) = &cfg.model_proxy.upstream else {
        r.check(false, "the model-API proxy is configured", "without it a harness whose plugin is missing runs tools unchecked: give the provider an http:// base URL and run init again");
        return;
    };
    let listen = cfg.model_proxy.listen.to_string();
    let through = format!("http://{listen}/v1");
    r.check(
        urls.iter().any(|u| u.trim_end_matches('/') == through),
        &format!("the provider goes through the proxy ({through})"),
        &format!("the provider's base URL is {urls:?}: run init again"),
    );
    r.check(
        answers(&listen, "/healthz"),
        &format!("the proxy answers on {listen} (upstream {upstream})"),
        "is the daemon running with this config?",
    );
    r.check(
        cfg.model_proxy.require_session,
        "the proxy requires a registered session",
        "set [model_proxy] sessions = \"required\"",
    );
}

fn session_checks(r: &mut Report, cfg: &Config, kind: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let Ok(runtime) = runtime else { return };
    let client = Client { cfg: cfg.clone() };
    match runtime.block_on(client.call("sessions", json!({}))) {
        Ok(v) => {
            let mine: Vec<&Value> =
                v["sessions"].as_array().into_iter().flatten().filter(|s| s["harness"] == kind).collect();
            r.check(!mine.is_empty(), &format!("{} {kind} session(s) registered by the plugin since the daemon started", mine.len()),
                &format!("start {kind} in the project: its plugin registers on its first call (if it did and nothing shows, the plugin is not loaded)"));
            if !mine.is_empty() && cfg.model_proxy.upstream.is_some() {
                let paired = mine.iter().filter(|s| s["proxy_ms"].as_u64() > Some(0)).count();
                r.check(paired > 0, &format!("{paired} of them paired with their model requests at the proxy"),
                    "the provider's requests do not carry the session tag: is the plugin's modelProxy setting on?");
            }
        }
        Err(Failure::Refused(m) | Failure::Usage(m)) => r.check(false, "the daemon lists its sessions", &m),
    }
}
