//! An OpenCode project set up the way the docs say — the user's `opencode.json` (its provider
//! pointing at the scripted model, one sub-agent there and one in `.opencode/agent/*.md`), then
//! `blindfold init opencode --yes` and `blindfold run --config blindfold.toml` — for the tests
//! that run the real harness through the plugin and the model-API proxy together.

use crate::opencode::{Keys, Project};
use crate::{Daemon, blindfold, free_port, http_get};
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// A project and the ports and state dir its Blindfold uses.
pub struct InitProject {
    /// The OpenCode project (model server, offline environment).
    pub project: Project,
    /// `blindfold.toml` in the project.
    pub toml: PathBuf,
    /// The daemon's state dir.
    pub state: PathBuf,
    /// The daemon's port.
    pub port: u16,
    /// The model-API proxy's port.
    pub proxy_port: u16,
}

impl InitProject {
    /// The project for `scenario`, its second sub-agent (`auditor`) defined as a markdown file.
    pub fn new(scenario: &str) -> InitProject {
        let project = Project::new(scenario, None);
        let dir = project.dir();
        let path = dir.join("opencode.json");
        let mut cfg: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("opencode.json")).expect("json");
        let auditor = cfg["agent"].as_object_mut().and_then(|a| a.remove("auditor")).expect("auditor");
        std::fs::write(&path, serde_json::to_string_pretty(&cfg).expect("json")).expect("write");
        let md = format!(
            "---\ndescription: {}\nmode: subagent\nmodel: {}\n---\nYou review commands before they run.\n",
            auditor["description"].as_str().unwrap_or_default(),
            auditor["model"].as_str().unwrap_or_default()
        );
        std::fs::create_dir_all(dir.join(".opencode/agent")).expect("agent dir");
        std::fs::write(dir.join(".opencode/agent/auditor.md"), md).expect("md agent");
        let state = project.root.path().join("state");
        InitProject {
            toml: dir.join("blindfold.toml"),
            state,
            port: free_port(),
            proxy_port: free_port(),
            project,
        }
    }

    /// `blindfold init opencode --dir <project> --yes`, on this test's ports and state dir.
    pub fn init(&self, extra: &[&str]) -> Output {
        let out = blindfold()
            .args(["init", "opencode", "--dir"])
            .arg(self.project.dir())
            .arg("--yes")
            .args(extra)
            .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", self.port))
            .env("BLINDFOLD_STATE__DIR", &self.state)
            .env("BLINDFOLD_MODEL_PROXY__LISTEN", format!("127.0.0.1:{}", self.proxy_port))
            .output()
            .expect("init opencode");
        assert!(out.status.success(), "init failed:\n{}", String::from_utf8_lossy(&out.stderr));
        out
    }

    /// Trusts `keys` for grants (what the docs have the user add to blindfold.toml).
    pub fn trust(&self, keys: &Keys) {
        let mut text = std::fs::read_to_string(&self.toml).expect("blindfold.toml");
        text.push_str(&format!("\n[grants]\ntrusted_keys = [{:?}]\n", keys.public.display().to_string()));
        std::fs::write(&self.toml, text).expect("write");
    }

    /// `blindfold run --config blindfold.toml`; waits for `/healthz`.
    pub fn start_daemon(&self) -> Daemon {
        let child = blindfold()
            .arg("run")
            .arg("--config")
            .arg(&self.toml)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(self.project.root.path().join("daemon.log")).expect("log"))
            .spawn()
            .expect("spawn blindfold run");
        let mut d = Daemon { child, port: self.port, state_dir: self.state.clone() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(status) = d.child.try_wait().expect("wait") {
                panic!("blindfold run exited early: {status}");
            }
            if http_get(self.port, "/healthz").is_ok_and(|(c, _)| c == 200) {
                return d;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("blindfold did not answer /healthz in time");
    }

    /// A `blindfold` command against this project's daemon (`--config blindfold.toml` appended).
    pub fn cli(&self, args: &[&str]) -> Output {
        blindfold()
            .args(args)
            .arg("--config")
            .arg(&self.toml)
            .current_dir(self.project.root.path())
            .output()
            .expect("blindfold")
    }
}
