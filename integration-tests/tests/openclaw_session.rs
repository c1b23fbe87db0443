//! The real OpenClaw (`openclaw@2026.9.6` on Node 24, offline, scripted model) set up exactly as
//! the docs say: the user's project (`openclaw.json` with its gateway, its provider pointing at
//! the scripted model, the planner `scout` on `gpt-5-mini` in `agents.entries` and the reviewer
//! `critic` on `claude-opus-4` in a file of its own through `$include` — or both in the legacy
//! `agents.list` roster), `blindfold init openclaw --yes` (no `extra_words`: the built-in lexicon
//! and the identities init records are all there is), `blindfold run --config blindfold.toml`,
//! then `openclaw gateway run` and `openclaw agent --agent main --message …`. The plugin and the
//! model-API proxy share one trajectory per session with no id typed by hand:
//!
//! - delegation reaches the sub-agent the coordinator named (the model server sees the planner's
//!   true model, then the reviewer's), the refuted destructive command is held by
//!   `P3.contradiction`, and the trace holds one record per event;
//! - after a daemon restart the same session keeps its aliases; a write without a grant is
//!   refused, `blindfold why` gives the exact grant command, and that command (`--submit`) lets
//!   the retry in the same session run; `trace summarize` counts the blocks the records show;
//! - no request the coordinator's model receives holds a sub-agent's model, family, tier or
//!   vendor word, by the independent leak oracle (`blindfold_leak_oracle`, no code shared with
//!   the anonymizer), though the planner and the reviewer name themselves in their answers;
//! - the whole session runs on both forms of sub-agent definition (`agents.entries` with
//!   `$include`, and the legacy `agents.list`);
//! - with the plugin disabled in a project whose agents are the legacy `agents.list` roster, the
//!   proxy refuses every tool call (`unpaired_session`) and `blindfold doctor` names what is missing.

use blindfold_integration_tests::openclaw::{Gateway, gateway_section, trace_records};
use blindfold_integration_tests::opencode::keygen;
use blindfold_integration_tests::pi::ModelServer;
use blindfold_integration_tests::session_checks::{
    alias_maps, answered_after, grant_command, kinds, last_refusal_id, run_printed, summary_agrees,
    trajectories,
};
use blindfold_integration_tests::{Daemon, blindfold, free_port, http_get};
use blindfold_leak_oracle::LeakOracle;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

const DESTRUCTIVE: &str = "rm -rf data && touch destroyed.marker";
const PROMPT: &str =
    "Free disk space in this workspace: get a plan from scout, have critic review it, then act.";
const NOTES: &str = "cleanup deferred: data kept\n";
const COORDINATOR: &str = "claw-coord-1";
/// The planner's and the reviewer's models: well-known ones, whose family and vendor `init`
/// finds from the model id.
const SCOUT_MODEL: &str = "gpt-5-mini";
const CRITIC_MODEL: &str = "claude-opus-4";
/// The sub-agents' identity as it must not reach the coordinator: (agent, model, family, tier,
/// vendor), the tier being what the planner calls itself ("a frontier-tier helper").
const AGENTS: [(&str, &str, &str, &str, &str); 2] = [
    ("scout", SCOUT_MODEL, "gpt", "frontier", "OpenAI"),
    ("critic", CRITIC_MODEL, "claude", "frontier", "Anthropic"),
];
/// Words of those models' names that are identity too, found by the built-in lexicon alone (the
/// configuration names no `extra_words`), as in the OpenCode harness test.
const MODEL_WORDS: [&str; 3] = ["gpt-5", "mini", "opus"];

/// How many OpenClaw projects (each a gateway, a daemon and a model server) run at once: the
/// test harness runs the tests of this file in parallel, and more than two gateways starting
/// together on a 2-core machine time out OpenClaw's own startup leases.
const AT_ONCE: usize = 2;

static RUNNING: (std::sync::Mutex<usize>, std::sync::Condvar) =
    (std::sync::Mutex::new(0), std::sync::Condvar::new());

/// One of the [`AT_ONCE`] places, held while a project lives.
struct Slot;

impl Slot {
    fn take() -> Slot {
        let (count, freed) = &RUNNING;
        let mut n = count.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while *n >= AT_ONCE {
            n = freed.wait(n).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *n += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let (count, freed) = &RUNNING;
        *count.lock().unwrap_or_else(std::sync::PoisonError::into_inner) -= 1;
        freed.notify_one();
    }
}

/// A user's OpenClaw project before Blindfold, and the ports and state its Blindfold will use.
struct ClawProject {
    root: tempfile::TempDir,
    dir: PathBuf,
    toml: PathBuf,
    state: PathBuf,
    port: u16,
    proxy_port: u16,
    server: ModelServer,
    /// Dropped last.
    _slot: Slot,
}

impl ClawProject {
    /// The project: `openclaw.json` (gateway, provider, the coordinator `main`, `scout` inline in
    /// `agents.entries`, `critic` through `$include`; or all three in the legacy `agents.list`
    /// roster) and the data the destructive command would delete.
    fn new(legacy_list: bool) -> ClawProject {
        let slot = Slot::take();
        let mut root = tempfile::tempdir().expect("tempdir");
        // BF_KEEP=1 keeps the folder (OpenClaw's and Blindfold's logs, the trace) to look at.
        if std::env::var_os("BF_KEEP").is_some() {
            root.disable_cleanup(true);
            eprintln!("kept {}", root.path().display());
        }
        let server = ModelServer::start_for_openclaw(&root.path().join("requests.jsonl"));
        let dir = root.path().join("project");
        std::fs::create_dir_all(dir.join("data")).expect("data");
        std::fs::create_dir_all(dir.join("agents")).expect("agents");
        std::fs::write(dir.join("data/keep.txt"), "the only copy\n").expect("data file");
        let token = format!("gw-{}", std::process::id());
        let models: Vec<Value> =
            [COORDINATOR, SCOUT_MODEL, CRITIC_MODEL].iter().map(|id| json!({"id": id, "name": id})).collect();
        let mut config = json!({
            "gateway": gateway_section(&token),
            "models": {"providers": {"probe": {"baseUrl": format!("http://127.0.0.1:{}/v1", server.port),
                "apiKey": "k", "api": "openai-completions", "models": models}}},
            "agents": {
                "ownership": "explicit",
                "defaults": {"model": {"primary": format!("probe/{COORDINATOR}")}, "workspace": dir},
                "entries": {
                    "main": {"workspace": dir, "subagents": {"allowAgents": ["*"]}},
                    "scout": {"model": format!("probe/{SCOUT_MODEL}"), "workspace": dir.join("scout")},
                    "critic": {"$include": "./agents/critic.json"}
                }
            },
            "tools": {"exec": {"mode": "full"}}
        });
        if legacy_list {
            config["agents"] = json!({
                "defaults": {"model": {"primary": format!("probe/{COORDINATOR}")}, "workspace": dir},
                "list": [
                    {"id": "main", "default": true, "workspace": dir, "subagents": {"allowAgents": ["*"]}},
                    {"id": "scout", "model": format!("probe/{SCOUT_MODEL}"), "workspace": dir.join("scout")},
                    {"id": "critic", "model": {"primary": format!("probe/{CRITIC_MODEL}")}, "workspace": dir.join("critic")}
                ]
            });
        }
        let critic =
            json!({"model": {"primary": format!("probe/{CRITIC_MODEL}")}, "workspace": dir.join("critic")});
        std::fs::write(dir.join("agents/critic.json"), critic.to_string()).expect("critic");
        std::fs::write(dir.join("openclaw.json"), serde_json::to_string_pretty(&config).expect("json"))
            .expect("openclaw.json");
        let state = root.path().join("state");
        ClawProject {
            toml: dir.join("blindfold.toml"),
            dir,
            state,
            port: free_port(),
            proxy_port: free_port(),
            server,
            root,
            _slot: slot,
        }
    }

    /// `blindfold init openclaw --dir <project> --yes` on this test's ports and state dir.
    fn init(&self) {
        let out = blindfold()
            .args(["init", "openclaw", "--yes", "--dir"])
            .arg(&self.dir)
            .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", self.port))
            .env("BLINDFOLD_STATE__DIR", &self.state)
            .env("BLINDFOLD_MODEL_PROXY__LISTEN", format!("127.0.0.1:{}", self.proxy_port))
            .output()
            .expect("init openclaw");
        assert!(out.status.success(), "init failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let printed = String::from_utf8_lossy(&out.stdout);
        // The next step names the commands this test runs.
        let config = std::fs::canonicalize(&self.dir).expect("dir").join("openclaw.json");
        for step in [
            "blindfold run --config ".to_owned(),
            format!("export OPENCLAW_CONFIG_PATH={}", config.display()),
            "openclaw gateway run".to_owned(),
            "openclaw agent --agent main --message".to_owned(),
        ] {
            assert!(printed.contains(&step), "{step} is not in the next step: {printed}");
        }
    }

    /// `blindfold run --config blindfold.toml`; waits for `/healthz`.
    fn start_daemon(&self) -> Daemon {
        let log =
            std::fs::OpenOptions::new().create(true).append(true).open(self.root.path().join("daemon.log"));
        let child = blindfold()
            .arg("run")
            .arg("--config")
            .arg(&self.toml)
            .stdout(Stdio::null())
            .stderr(log.expect("daemon log"))
            .spawn()
            .expect("blindfold run");
        let mut d = Daemon { child, port: self.port, state_dir: self.state.clone() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !http_get(self.port, "/healthz").is_ok_and(|(c, _)| c == 200) {
            assert!(d.child.try_wait().expect("wait").is_none(), "blindfold run exited early");
            assert!(Instant::now() < deadline, "blindfold did not answer /healthz in time");
            std::thread::sleep(Duration::from_millis(50));
        }
        d
    }

    /// `openclaw gateway run` on the project's `openclaw.json`.
    fn gateway(&self) -> Gateway {
        Gateway::start_on(&self.root.path().join("openclaw"), &self.dir.join("openclaw.json"))
            .unwrap_or_else(|e| panic!("the OpenClaw gateway did not start: {e}"))
    }

    /// A `blindfold` command against this project's daemon (`--config blindfold.toml` appended).
    fn cli(&self, args: &[&str]) -> Output {
        // In the test's folder: `why` writes the refused bytes to a file there for the grant.
        let mut cmd = blindfold();
        cmd.args(args).arg("--config").arg(&self.toml).current_dir(self.root.path());
        cmd.output().expect("blindfold")
    }

    /// `blindfold doctor --dir <project>`: its exit code, the first line of each `FAIL`, the text.
    fn doctor(&self) -> (Option<i32>, Vec<String>, String) {
        let out = blindfold().args(["doctor", "--dir"]).arg(&self.dir).output().expect("doctor");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let fails = text.lines().filter_map(|l| l.strip_prefix("FAIL  ")).map(str::to_owned).collect();
        (out.status.code(), fails, text)
    }

    fn exists(&self, rel: &str) -> bool {
        self.dir.join(rel).exists()
    }

    /// The sub-agents' models the scripted server was asked for, first time each, in order.
    fn sub_models(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.server.requests() {
            let m = r["model"].as_str().unwrap_or_default().to_owned();
            if m != COORDINATOR && !out.contains(&m) {
                out.push(m);
            }
        }
        out
    }

    /// Every trajectory id of the trace, in order of first appearance.
    fn trajectories(&self) -> Vec<String> {
        trajectories(&self.state.join("traces"))
    }

    /// `blindfold.toml` as init wrote it: each sub-agent recorded with its true model and the
    /// family and vendor its model id shows, and no `extra_words` (what a user gets).
    fn recorded(&self) -> String {
        let toml = std::fs::read_to_string(&self.toml).expect("blindfold.toml");
        for (id, model, family, _, vendor) in AGENTS {
            let stanza = format!(
                "id = \"{id}\"\nmodel = \"{model}\"\nfamily = \"{family}\"\ntier = \"\"\nprovider = \"{vendor}\""
            );
            assert!(toml.contains(&stanza), "{id} is not recorded as {stanza}: {toml}");
        }
        assert!(!toml.contains("extra_words"), "init wrote extra words: {toml}");
        toml
    }

    /// The sub-agents' model, family, tier and vendor words (and their agent ids, which the
    /// coordinator reads as aliases) in the requests the coordinator's model received, by the
    /// leak oracle: (request number, word, count). The `model` field is left out: it is the
    /// coordinator's own routing address (`claw-coord-1`).
    fn coordinator_leaks(&self) -> Vec<(usize, String, usize)> {
        let words = AGENTS.iter().flat_map(|(a, m, f, t, v)| [*a, *m, *f, *t, *v]).chain(MODEL_WORDS);
        let oracle = LeakOracle::new(words);
        let mut out = Vec::new();
        for (n, mut r) in self.server.requests().into_iter().filter(|r| r["model"] == COORDINATOR).enumerate()
        {
            if let Some(map) = r.as_object_mut() {
                map.remove("model");
            }
            out.extend(oracle.report_json(&r).into_iter().map(|(w, c)| (n, w, c)));
        }
        out
    }
}

/// One `openclaw agent` turn; fails the test unless it ended normally.
fn turn(gateway: &Gateway, message: &str) -> String {
    let (code, stdout, stderr) = gateway.agent(message);
    assert_eq!(code, Some(0), "openclaw agent failed:\n{stdout}\n{stderr}");
    stdout
}

#[test]
fn one_openclaw_session_one_trajectory_through_plugin_and_proxy_restart_grant_and_retry() {
    session(false);
}

#[test]
fn the_same_session_with_the_sub_agents_in_the_legacy_agents_list() {
    session(true);
}

/// The whole session on a project whose sub-agents are in `agents.entries` (`critic` through
/// `$include`), or with `legacy_list` in the legacy `agents.list` roster.
fn session(legacy_list: bool) {
    let started = Instant::now();
    let p = ClawProject::new(legacy_list);
    let keys = keygen(&p.root.path().join("keys"));
    p.init();
    // Both agents recorded, the included (or listed) one too.
    let toml = p.recorded();
    std::fs::write(
        &p.toml,
        format!("{toml}\n[grants]\ntrusted_keys = [{:?}]\n", keys.public.display().to_string()),
    )
    .expect("trust the key");
    let daemon = p.start_daemon();
    let gateway = p.gateway();

    // 1. The coordinator asks the planner, then the reviewer (by the names its prompt shows it),
    //    then runs the refuted command.
    turn(&gateway, PROMPT);
    assert_eq!(p.sub_models(), [SCOUT_MODEL, CRITIC_MODEL], "each delegation reached the agent named");
    assert!(!p.exists("destroyed.marker") && p.exists("data/keep.txt"), "the refuted command ran");
    let ids = p.trajectories();
    assert_eq!(ids.len(), 1, "one trajectory for the session: {ids:?}");
    let trajectory = ids[0].clone();
    assert!(trajectory.starts_with("openclaw-"), "{trajectory}");
    let records = trace_records(&p.state.join("traces"), &trajectory);
    assert_eq!(kinds(&records, "delegate").len(), 2, "each delegation once: {records:?}");
    assert_eq!(kinds(&records, "response").len(), 2, "each answer once: {records:?}");
    let held: Vec<&Value> =
        kinds(&records, "tool_call").into_iter().filter(|r| r["target"] == DESTRUCTIVE).collect();
    assert_eq!(held.len(), 1, "the destructive call once: {held:?}");
    let decided = (held[0]["check"].as_str(), held[0]["decision"].as_str(), held[0]["reason"].as_str());
    assert_eq!(decided, (Some("P3.contradiction"), Some("review"), Some("contradicted")), "{records:#?}");
    let late = answered_after(&records, held[0]);
    assert!(late.is_empty(), "decided before the answers it follows were observed: {late:?}");
    // The reviewer refutes the planner's proposal; the planner's own answer refutes nothing.
    let responses = kinds(&records, "response");
    let says = |r: &Value, what: &str| {
        r["relations"].as_array().is_some_and(|a| a.iter().any(|x| x["relation"] == what))
    };
    let refuters: Vec<&Value> = responses.iter().copied().filter(|r| says(r, "REFUTES")).collect();
    assert_eq!(refuters.len(), 1, "one answer refutes: {responses:?}");
    assert!(
        refuters[0]["proposals"].as_array().is_none_or(Vec::is_empty),
        "the proposer refuted itself: {responses:?}"
    );
    let before = alias_maps(&records);
    assert_eq!(before.len(), 1, "{before:?}");
    let (code, fails, text) = p.doctor();
    assert_eq!((code, fails.len()), (Some(0), 0), "doctor on the wired project: {text}");

    // 2. The daemon restarts; the session goes on with its aliases; a write without a grant is
    //    refused with a refusal id the model reads.
    drop(daemon);
    let daemon = p.start_daemon();
    let out = turn(&gateway, "Now write the notes.");
    assert!(!p.exists("notes.txt"), "the write ran without a grant");
    let id = last_refusal_id(&p.server.requests(), &out).unwrap_or_else(|| panic!("no refusal id in {out}"));
    assert_eq!(
        p.trajectories(),
        std::slice::from_ref(&trajectory),
        "the same session is the same trajectory"
    );
    let after = alias_maps(&trace_records(&p.state.join("traces"), &trajectory));
    assert!(
        after.iter().all(|m| *m == before[0]),
        "aliases changed after the restart: {before:?} → {after:?}"
    );

    // 3. `blindfold why` names the exact grant; that command lets the retry run.
    let why = p.cli(&["why", &id]);
    let text = String::from_utf8_lossy(&why.stdout).into_owned();
    assert!(why.status.success(), "{text}\n{}", String::from_utf8_lossy(&why.stderr));
    assert!(text.contains("operation write_file") && text.contains(trajectory.as_str()), "{text}");
    let words = grant_command(&text);
    let command = words.join(" ");
    let issued = run_printed(&words, p.root.path());
    assert!(issued.status.success(), "{command}: {}", String::from_utf8_lossy(&issued.stderr));
    assert!(String::from_utf8_lossy(&issued.stdout).contains("accepted grant"), "{command}");
    let out = turn(&gateway, "Now write the notes.");
    let written = std::fs::read_to_string(p.dir.join("notes.txt"))
        .unwrap_or_else(|_| panic!("the granted retry did not write notes.txt: {out}"));
    assert_eq!(written, NOTES);

    // 4. The trace: one record per decided write, and `trace summarize` counts what the records
    //    show (the held command makes a contradicted trajectory whose proposal never executed).
    let records = trace_records(&p.state.join("traces"), &trajectory);
    let writes: Vec<(&str, &str)> = kinds(&records, "tool_call")
        .into_iter()
        .filter(|r| r["tool"] == "write_file")
        .map(|r| (r["decision"].as_str().unwrap_or(""), r["reason"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(writes, [("deny", "no_grant"), ("allow", "allowed")], "one record per decided write");
    summary_agrees(&p.state.join("traces"), &records);
    // The picture's legend names each alias the coordinator saw with its true model.
    let svg = blindfold()
        .args(["trace", "render", "--format", "svg", "--trajectory", &trajectory])
        .arg(p.state.join("traces"))
        .output()
        .expect("render");
    let svg = String::from_utf8_lossy(&svg.stdout);
    for (agent, model, ..) in AGENTS {
        let line = format!("{} → {model}", before[0][agent].as_str().unwrap_or("?"));
        assert!(svg.contains(&line), "{line} not in the legend: {svg}");
    }

    // 5. Identity: the planner and the reviewer named their model and vendor in their answers,
    //    which reached the coordinator's model; it read none of those words in any request of
    //    the three turns.
    let read: String =
        p.server.requests().iter().filter(|r| r["model"] == COORDINATOR).map(Value::to_string).collect();
    for said in ["to free the space", "I refute it"] {
        assert!(read.contains(said), "the answer saying {said:?} did not reach the coordinator");
    }
    let leaked = p.coordinator_leaks();
    assert_eq!(leaked, [], "the sub-agents' identity reached the coordinator's model (request, word, count)");
    drop(gateway);
    drop(daemon);
    let form = if legacy_list { "agents.list" } else { "agents.entries + $include" };
    eprintln!("openclaw session test ({form}): {:?}", started.elapsed());
}

#[test]
fn without_the_plugin_the_proxy_refuses_every_openclaw_tool_call() {
    let p = ClawProject::new(true);
    p.init();
    p.recorded();
    let _daemon = p.start_daemon();
    // The plugin is gone from the gateway (its entry disabled), the provider still through the proxy.
    let path = p.dir.join("openclaw.json");
    let mut cfg: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    cfg["plugins"]["entries"]["blindfold"]["enabled"] = json!(false);
    std::fs::write(&path, serde_json::to_string_pretty(&cfg).expect("json")).expect("write");
    let gateway = p.gateway();
    let out = turn(&gateway, PROMPT);
    let requests = p.server.requests();
    let told = requests
        .iter()
        .filter(|r| r["model"] == COORDINATOR)
        .any(|r| r.to_string().contains("unpaired_session"));
    assert!(told || out.contains("unpaired_session"), "the proxy's refusal reaches the coordinator: {out}");
    assert_eq!(p.sub_models(), Vec::<String>::new(), "a sub-agent ran");
    assert!(!p.exists("destroyed.marker") && p.exists("data/keep.txt"));
    // `blindfold doctor` names what is missing.
    let (code, fails, text) = p.doctor();
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        fails,
        [
            format!("OpenClaw loads the plugin ({})", path.display()),
            "0 openclaw session(s) registered by the plugin since the daemon started".to_owned()
        ],
        "{text}"
    );
    assert!(text.contains("plugins.entries.blindfold.enabled is not true"), "{text}");
}

const STEP: &str = "touch built.marker";

/// A project set up by init (the agents' true families, which a verdict needs to count, are the
/// ones init finds from their model ids: `gpt` and `claude`), with a trusted grant key and
/// `extra` config; its daemon and gateway.
fn verdict_project(extra: &str) -> (ClawProject, Daemon, Gateway) {
    let p = ClawProject::new(false);
    let keys = keygen(&p.root.path().join("keys"));
    p.init();
    let toml = p.recorded();
    let trusted =
        format!("{toml}\n[grants]\ntrusted_keys = [{:?}]\n{extra}\n", keys.public.display().to_string());
    std::fs::write(&p.toml, trusted).expect("trust the key");
    let daemon = p.start_daemon();
    let gateway = p.gateway();
    (p, daemon, gateway)
}

/// (decision, check) of each decided run of the build step in the project's one trajectory.
fn step_decisions(p: &ClawProject) -> Vec<(String, String)> {
    let ids = p.trajectories();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let records = trace_records(&p.state.join("traces"), &ids[0]);
    kinds(&records, "tool_call")
        .into_iter()
        .filter(|r| r["target"] == STEP)
        .map(|r| {
            (r["decision"].as_str().unwrap_or("").to_owned(), r["check"].as_str().unwrap_or("").to_owned())
        })
        .collect()
}

fn pair(d: &str, c: &str) -> (String, String) {
    (d.to_owned(), c.to_owned())
}

#[test]
fn through_openclaw_a_prose_approval_holds_the_step_and_a_refusal_disputes_it() {
    for (verb, check) in [("check", "P3.verification"), ("vet", "P3.contradiction")] {
        let (p, _daemon, gateway) = verdict_project("");
        turn(
            &gateway,
            &format!(
                "Record the build: get a build step from scout and have critic {verb} it; the build is recorded in built.marker."
            ),
        );
        assert!(!p.exists("built.marker"), "{verb}: the step ran");
        assert_eq!(step_decisions(&p), [pair("review", check)], "{verb}");
    }
}

#[test]
fn through_openclaw_a_step_nobody_checked_waits_for_review_unless_a_verifier_is_configured() {
    let prompt =
        "Record the build: get a build step from scout, then run it; the build is recorded in built.marker.";
    let without = {
        let (p, _daemon, gateway) = verdict_project("");
        turn(&gateway, prompt);
        step_decisions(&p)
    };
    assert_eq!(without, [pair("review", "P3.verification")], "without verifiers");

    let port = free_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("verifier.jsonl");
    let _verifier = blindfold_integration_tests::transports::python_peer(
        "chat_verifier.py",
        &[&port.to_string(), "approve", record.to_str().expect("utf8")],
    );
    blindfold_integration_tests::transports::wait_port(port, Duration::from_secs(20));
    let verifier = format!(
        "[[preverify.verifiers]]\nid = \"second-opinion\"\nchat_url = \"http://127.0.0.1:{port}/v1/chat/completions\"\n\
         model = \"r-small\"\nfamily = \"r\"\n"
    );
    let (q, _daemon, gateway) = verdict_project(&verifier);
    turn(&gateway, prompt);
    let with = step_decisions(&q);
    assert_eq!(with, [pair("deny", "P3.grant")], "with a verifier: verified, then refused for its grant");
    assert_eq!(std::fs::read_to_string(&record).unwrap_or_default().lines().count(), 1);
    eprintln!(
        "openclaw: legitimate build step held for review — without verifiers {}/1, with verifiers {}/1",
        without.iter().filter(|d| d.0 == "review").count(),
        with.iter().filter(|d| d.0 == "review").count()
    );
}

#[test]
fn a_verdict_request_through_openclaw_verifies_the_step_and_its_grant_runs_it() {
    let (p, _daemon, gateway) = verdict_project("");

    // The coordinator spawns scout for a build step, then critic to verify it (the step quoted),
    // then runs it: critic answers Blindfold's instruction with prose and the verdict line.
    let out = turn(
        &gateway,
        "Record the build: get a build step from scout and have critic verify it; the build is recorded in built.marker.",
    );
    assert!(!p.exists("built.marker"), "the step ran without a grant");
    let ids = p.trajectories();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let records = trace_records(&p.state.join("traces"), &ids[0]);
    let steps: Vec<&Value> =
        kinds(&records, "tool_call").into_iter().filter(|r| r["target"] == STEP).collect();
    let decided: Vec<(&str, &str)> = steps
        .iter()
        .map(|r| (r["decision"].as_str().unwrap_or(""), r["check"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(decided, [("deny", "P3.grant")], "verified, refused only for its grant: {records:#?}");
    let late = answered_after(&records, steps[0]);
    assert!(late.is_empty(), "decided before the answers it follows were observed: {late:?}");
    let requests = p.server.requests();
    let critic: Vec<String> =
        requests.iter().filter(|r| r["model"] == CRITIC_MODEL).map(Value::to_string).collect();
    assert!(
        critic.iter().any(|r| r.contains("[blindfold:verify]") && r.contains("- bf-")),
        "the critic read Blindfold's instruction with a handle: {critic:?}"
    );
    let coordinator: String =
        requests.iter().filter(|r| r["model"] == COORDINATOR).map(Value::to_string).collect();
    assert!(
        !coordinator.contains("blindfold:verify")
            && blindfold_integration_tests::session_checks::handles_in(&coordinator).is_empty(),
        "{coordinator}"
    );

    // `why` gives the grant; with it the next turn's step runs.
    let id = last_refusal_id(&requests, &out).unwrap_or_else(|| panic!("no refusal id in {out}"));
    let why = p.cli(&["why", &id]);
    let text = String::from_utf8_lossy(&why.stdout).into_owned();
    assert!(why.status.success(), "{text}");
    let issued = run_printed(&grant_command(&text), p.root.path());
    assert!(issued.status.success(), "{}", String::from_utf8_lossy(&issued.stderr));
    turn(&gateway, "Now run the build step.");
    assert!(p.exists("built.marker"), "the verified, granted step did not run");
    drop(gateway);
}

#[test]
fn a_gateway_started_before_the_daemon_fails_closed_then_works_once_it_is_up() {
    let p = ClawProject::new(false);
    p.init();
    // The gateway first: the plugin cannot reach Blindfold, nor can the model traffic (the
    // provider goes through the proxy) — nothing runs.
    let gateway = p.gateway();
    let (_code, stdout, stderr) = gateway.agent(PROMPT);
    assert!(
        !p.exists("destroyed.marker") && p.exists("data/keep.txt"),
        "ran without Blindfold:\n{stdout}\n{stderr}"
    );
    assert!(p.sub_models().is_empty(), "a sub-agent ran without Blindfold: {:?}", p.sub_models());
    // The daemon starts later: the same gateway's plugin reaches it, without a restart.
    let _daemon = p.start_daemon();
    turn(&gateway, PROMPT);
    assert_eq!(p.sub_models(), [SCOUT_MODEL, CRITIC_MODEL], "each delegation reached the agent named");
    assert!(!p.exists("destroyed.marker"), "the refuted command ran");
    let ids = p.trajectories();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let records = trace_records(&p.state.join("traces"), &ids[0]);
    let held: Vec<&Value> =
        kinds(&records, "tool_call").into_iter().filter(|r| r["target"] == DESTRUCTIVE).collect();
    assert_eq!(held.len(), 1, "{records:#?}");
    assert_eq!(held[0]["check"], "P3.contradiction", "the plugin reported the answers: {}", held[0]);
    assert_eq!(kinds(&records, "delegate").len(), 2, "the plugin reported the delegations: {records:#?}");
}
