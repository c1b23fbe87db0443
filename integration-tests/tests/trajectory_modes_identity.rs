//! A per-trajectory mode override drives identity stripping too: with `anonymize` off for one
//! trajectory (`set_modes {trajectory, modes}`), the model-API proxy served by `blindfold run`
//! forwards that trajectory's requests as they are, while every other trajectory's are still
//! scrubbed; `clear` returns it to the global modes. A global change of `anonymize` applies to
//! new trajectories only: one that started scrubbed stays scrubbed.

mod model_proxy_support;

use blindfold_integration_tests::openclaw::control_call;
use blindfold_integration_tests::transports::{Peer, World, http_post, run_daemon};
use model_proxy_support::ScriptedModel;
use serde_json::{Value, json};

const AGENTS: &str = "[[identity.agents]]\nid = \"opus-reviewer\"\nmodel = \"claude-opus-4\"\n\
                      family = \"claude\"\ntier = \"frontier\"\nprovider = \"Anthropic\"\n";
const SYSTEM: &str = "Delegate reviews to opus-reviewer, the frontier claude-opus-4 from Anthropic.";

/// Sends one chat request for `trajectory` (named by the harness's header, with the adapter token
/// of the daemon whose proxy port is `proxy_port`) through the proxy and returns the body the
/// model received.
fn through_proxy(proxy_port: u16, model: &ScriptedModel, trajectory: &str) -> String {
    let before = model.requests().len();
    let body = json!({"model": "m", "messages": [
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": "say-hello"}]});
    let token = ADAPTER.with(|t| t.borrow().clone());
    let headers = [
        ("Content-Type", "application/json"),
        ("X-Blindfold-Task", trajectory),
        ("X-Blindfold-Token", token.as_str()),
    ];
    let (code, _, text) = http_post(proxy_port, "/v1/chat/completions", &headers, &body.to_string());
    assert_eq!(code, 200, "{text}");
    let requests = model.requests();
    assert_eq!(requests.len(), before + 1, "one request reached the model");
    requests[before]["body"].to_string()
}

thread_local! {
    /// The adapter token of the daemon this test thread talks to.
    static ADAPTER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

fn modes(port: u16, operator: &str, params: Value) {
    let set = control_call(port, operator, "set_modes", params);
    assert!(set.get("result").is_some(), "{set}");
}

/// The daemon behind a model proxy to `model`: its handle, control port, proxy port and
/// operator token.
fn daemon_with_proxy(w: &World, model: &ScriptedModel) -> (Peer, u16, u16, String) {
    let proxy_port = blindfold_integration_tests::free_port();
    let extra = format!(
        "[model_proxy]\nupstream = \"http://127.0.0.1:{}\"\nlisten = \"127.0.0.1:{proxy_port}\"\n",
        model.port
    );
    let (daemon, port) = run_daemon(w, &extra);
    let operator = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");
    let adapter = std::fs::read_to_string(w.state.join("adapter.token")).expect("adapter token");
    ADAPTER.with(|t| *t.borrow_mut() = adapter.trim().to_owned());
    (daemon, port, proxy_port, operator.trim().to_owned())
}

fn names_an_identity(seen: &str) -> bool {
    ["claude-opus-4", "opus-reviewer", "Anthropic"].iter().any(|w| seen.contains(w))
}

#[test]
fn anonymize_off_for_one_trajectory_reaches_the_proxy_and_only_that_trajectory() {
    let w = World::new(AGENTS);
    let model = ScriptedModel::start(w.dir.path());
    let (_daemon, port, proxy_port, operator) = daemon_with_proxy(&w, &model);
    let operator = operator.as_str();

    // Global modes: both trajectories are scrubbed.
    for t in ["t-plain", "t-blind"] {
        let seen = through_proxy(proxy_port, &model, t);
        assert!(!seen.contains("claude-opus-4") && !seen.contains("opus-reviewer"), "{t}: {seen}");
    }
    let off =
        json!({"anonymize": false, "attest": false, "preverify": true, "grants": true, "enforce": true});
    modes(port, operator, json!({"trajectory": "t-plain", "modes": off}));
    let plain = through_proxy(proxy_port, &model, "t-plain");
    assert!(plain.contains("claude-opus-4") && plain.contains("opus-reviewer"), "{plain}");
    let blind = through_proxy(proxy_port, &model, "t-blind");
    assert!(!blind.contains("claude-opus-4") && !blind.contains("Anthropic"), "{blind}");

    modes(port, operator, json!({"trajectory": "t-plain", "clear": true}));
    let cleared = through_proxy(proxy_port, &model, "t-plain");
    assert!(!cleared.contains("claude-opus-4") && !cleared.contains("opus-reviewer"), "{cleared}");
}

#[test]
fn a_global_anonymize_off_leaves_a_started_trajectory_scrubbed_and_reaches_new_ones() {
    let w = World::new(AGENTS);
    let model = ScriptedModel::start(w.dir.path());
    let (_daemon, port, proxy_port, operator) = daemon_with_proxy(&w, &model);

    let first = through_proxy(proxy_port, &model, "t-started");
    assert!(!names_an_identity(&first), "{first}");
    modes(port, &operator, json!({"name": "off"}));
    let after = through_proxy(proxy_port, &model, "t-started");
    assert!(!names_an_identity(&after), "a started trajectory stays scrubbed: {after}");
    let fresh = through_proxy(proxy_port, &model, "t-fresh");
    assert!(fresh.contains("claude-opus-4") && fresh.contains("opus-reviewer"), "{fresh}");

    // Turned on again: the trajectory that started unscrubbed stays as it started.
    modes(port, &operator, json!({"name": "all"}));
    let still = through_proxy(proxy_port, &model, "t-fresh");
    assert!(still.contains("claude-opus-4"), "{still}");
    let newest = through_proxy(proxy_port, &model, "t-newest");
    assert!(!names_an_identity(&newest), "{newest}");
}
