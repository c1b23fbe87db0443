//! `blindfold init openclaw`: installs the OpenClaw plugin into a project
//! (`.openclaw/plugins/blindfold/`), adds it to the project's `openclaw.json` by minimal edits
//! (load path, allow list when there is one, enabled, conversation access for its run hook, its
//! settings; every other byte kept), points the providers at the model-API proxy and writes
//! `blindfold.toml` with the daemon's address and state dir the plugin uses and the sub-agents'
//! identities — showing a diff and asking before writing. `--remove` undoes it.

use super::agents::SubAgent;
use super::project::{adapter_settings, blindfold_toml, kept_upstream, route};
use super::{Change, apply, json_edit, read};
use crate::config;
use crate::runtime::state::{Tokens, ensure_private_dir};
use clap::Args;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// The plugin's files (paths below `.openclaw/plugins/`), embedded at build time; the shared
/// control client sits next to the plugin's folder, where `index.ts` imports it from.
pub(super) const FILES: [(&str, &str); 4] = [
    ("blindfold/index.ts", include_str!("../../../../../../adapters/openclaw-plugin/index.ts")),
    ("blindfold-common/control.ts", include_str!("../../../../../../adapters/blindfold-common/control.ts")),
    (
        "blindfold/openclaw.plugin.json",
        include_str!("../../../../../../adapters/openclaw-plugin/openclaw.plugin.json"),
    ),
    ("blindfold/README.md", include_str!("../../../../../../adapters/openclaw-plugin/README.md")),
];

/// The plugin id (its manifest's `id`).
const PLUGIN_ID: &str = "blindfold";

/// Arguments of `blindfold init openclaw`.
#[derive(Debug, Args)]
pub struct OpenclawArgs {
    /// The project directory holding (or to hold) `openclaw.json` (default: the current one).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Write without asking.
    #[arg(long)]
    pub yes: bool,
    /// Undo what init wrote: the plugin leaves openclaw.json, the providers point at their model
    /// API again (blindfold.toml stays).
    #[arg(long)]
    pub remove: bool,
    /// Blindfold config whose listen address and state dir the plugin should use.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Per-request timeout of the plugin, milliseconds (OpenClaw's hook budget is 15 s).
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub timeout_ms: u64,
}

/// Runs `blindfold init openclaw`.
pub fn run(args: OpenclawArgs) -> ExitCode {
    match openclaw(&args) {
        Ok(code) => code,
        Err(e) => super::super::usage_error(e),
    }
}

/// The plugin's entry (`plugins.entries.blindfold`): enabled, allowed to see the conversation for
/// its run hook, its settings over whatever settings it had.
fn plugin_entry(existing: Option<Value>, settings: &Value) -> Value {
    let mut entry = match existing {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    entry.insert("enabled".into(), json!(true));
    let hooks = entry.entry("hooks").or_insert_with(|| json!({}));
    if let Some(h) = hooks.as_object_mut() {
        h.insert("allowConversationAccess".into(), json!(true));
    }
    let cfg = entry.entry("config").or_insert_with(|| json!({}));
    if let (Some(c), Some(s)) = (cfg.as_object_mut(), settings.as_object()) {
        for (k, v) in s {
            c.insert(k.clone(), v.clone());
        }
    }
    Value::Object(entry)
}

/// `text` (an `openclaw.json`) with the plugin added by minimal edits — its load path, the allow
/// list when there is one, its entry — and every provider in `routed` pointed at the proxy.
pub(crate) fn add_plugin(
    text: &str,
    plugin_dir: &str,
    settings: &Value,
    routed: &[(String, String)],
) -> Result<String, String> {
    let mut out = text.to_owned();
    let mut paths = json_edit::get(&out, &["plugins", "load", "paths"])?.unwrap_or_else(|| json!([]));
    let list = paths.as_array_mut().ok_or("plugins.load.paths is not a list")?;
    if !list.iter().any(|p| p.as_str() == Some(plugin_dir)) {
        list.push(json!(plugin_dir));
        out = json_edit::set(&out, &["plugins", "load"], "paths", &paths)?;
    }
    // An allow list admits only what it names: the plugin joins one that exists.
    if let Some(mut allow) = json_edit::get(&out, &["plugins", "allow"])? {
        let list = allow.as_array_mut().ok_or("plugins.allow is not a list")?;
        if !list.iter().any(|p| p.as_str() == Some(PLUGIN_ID)) {
            list.push(json!(PLUGIN_ID));
            out = json_edit::set(&out, &["plugins"], "allow", &allow)?;
        }
    }
    let existing = json_edit::get(&out, &["plugins", "entries", PLUGIN_ID])?;
    let entry = plugin_entry(existing.clone(), settings);
    if existing.as_ref() != Some(&entry) {
        out = json_edit::set(&out, &["plugins", "entries"], PLUGIN_ID, &entry)?;
    }
    for (provider, url) in routed {
        out = json_edit::replace(&out, &["models", "providers", provider, "baseUrl"], &json!(url))?;
    }
    Ok(out)
}

/// `text` without the plugin (its load path, allow entry and entry), the providers in `routed`
/// pointed back at their model API.
fn remove_plugin(text: &str, plugin_dir: &str, routed: &[(String, String)]) -> Result<String, String> {
    let mut out = text.to_owned();
    for (key, list_path) in [(plugin_dir, vec!["plugins", "load"]), (PLUGIN_ID, vec!["plugins"])] {
        let leaf = if list_path.len() == 2 { "paths" } else { "allow" };
        let mut full = list_path.clone();
        full.push(leaf);
        if let Some(Value::Array(mut list)) = json_edit::get(&out, &full)? {
            list.retain(|p| p.as_str() != Some(key));
            out = json_edit::set(&out, &list_path, leaf, &Value::Array(list))?;
        }
    }
    out = json_edit::remove(&out, &["plugins", "entries"], PLUGIN_ID)?;
    for (provider, url) in routed {
        out = json_edit::replace(&out, &["models", "providers", provider, "baseUrl"], &json!(url))?;
    }
    Ok(out)
}

/// Every agent of `config` (its `$include`s resolved) but the coordinator's own `main`
/// (`agents.entries` and the legacy `agents.list`), with the model it runs (its own, else the
/// defaults').
fn sub_agents(config: &Value) -> Vec<SubAgent> {
    let model_of = |v: Option<&Value>| match v {
        Some(Value::String(m)) => m.clone(),
        Some(Value::Object(m)) => m.get("primary").and_then(Value::as_str).unwrap_or_default().to_owned(),
        _ => String::new(),
    };
    let default = model_of(config.pointer("/agents/defaults/model"));
    let mut out: Vec<SubAgent> = Vec::new();
    let entries = config.pointer("/agents/entries").and_then(Value::as_object);
    let listed = config.pointer("/agents/list").and_then(Value::as_array);
    let all = entries.into_iter().flatten().map(|(id, a)| (id.clone(), a, "agents.entries"));
    let all = all.chain(
        listed
            .into_iter()
            .flatten()
            .filter_map(|a| Some((a.get("id")?.as_str()?.to_owned(), a, "agents.list"))),
    );
    for (id, agent, source) in all {
        if id == "main" || out.iter().any(|a| a.id == id) {
            continue;
        }
        let own = model_of(agent.get("model"));
        let model = if own.is_empty() { default.clone() } else { own };
        out.push(SubAgent::new(&id, &model, "", "", source));
    }
    out
}

/// The providers of `models.providers` to route through the proxy: (upstream, [(provider, URL
/// through the proxy)]), or why not.
fn proxy_plan(
    config: &Value,
    listen: &str,
    kept: Option<&str>,
) -> Result<(String, Vec<(String, String)>), String> {
    let providers = config
        .pointer("/models/providers")
        .and_then(Value::as_object)
        .ok_or("openclaw.json names no models.providers")?;
    let mut upstream = kept.map(str::to_owned);
    let mut routed = Vec::new();
    for (name, p) in providers {
        let Some(url) = p.get("baseUrl").and_then(Value::as_str) else { continue };
        match route(url, listen, upstream.as_deref()) {
            Ok(r) if upstream.as_deref().is_none_or(|u| u == r.upstream) => {
                upstream = Some(r.upstream);
                routed.push((name.clone(), r.through));
            }
            Ok(_) => println!("note: provider {name} uses another model API: not routed through the proxy"),
            Err(e) => println!("note: provider {name}: {e}"),
        }
    }
    match upstream {
        Some(u) if !routed.is_empty() => Ok((u, routed)),
        _ => Err("no provider has a plain-HTTP base URL ending in /v1".into()),
    }
}

fn openclaw(args: &OpenclawArgs) -> Result<ExitCode, String> {
    let dir = std::fs::canonicalize(&args.dir).map_err(|e| format!("--dir {}: {e}", args.dir.display()))?;
    let toml_path = dir.join("blindfold.toml");
    let cfg_file = args.config.clone().or_else(|| toml_path.exists().then(|| toml_path.clone()));
    let cfg = config::load(cfg_file.as_deref()).map_err(|e| e.to_string())?;
    let config_path = dir.join("openclaw.json");
    let old = read(&config_path)?;
    let text = old.clone().unwrap_or_else(|| "{}\n".to_owned());
    let parsed: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: {e}; it is not plain JSON (JSON5 would be rewritten without its comments): add {} to \
             plugins.load.paths and plugins.entries.{PLUGIN_ID} yourself (see the plugin's README.md)",
            config_path.display(),
            dir.join(".openclaw/plugins/blindfold").display()
        )
    })?;
    let plugin_dir = dir.join(".openclaw/plugins/blindfold").display().to_string();
    let kept = kept_upstream(&toml_path);
    let plan = proxy_plan(&parsed, &cfg.model_proxy.listen.to_string(), kept.as_deref());
    let mut changes = Vec::new();
    if args.remove {
        let back: Vec<(String, String)> = match (&kept, &plan) {
            (Some(up), Ok((_, routed))) => {
                routed.iter().map(|(p, _)| (p.clone(), format!("{up}/v1"))).collect()
            }
            _ => Vec::new(),
        };
        changes.push(Change { path: config_path, old, new: Some(remove_plugin(&text, &plugin_dir, &back)?) });
        for (name, _) in FILES {
            changes.push(Change::removal(dir.join(".openclaw/plugins").join(name))?);
        }
        let next = format!(
            "Blindfold is out of this project; {} stays (delete it if you like).",
            toml_path.display()
        );
        return apply(&dir, changes, args.yes, &next);
    }
    let (upstream, routed) = match plan {
        Ok((u, r)) => (Some(u), r),
        Err(why) => {
            println!("note: the model-API proxy is not set up: {why}");
            (None, Vec::new())
        }
    };
    let settings = adapter_settings(&cfg, args.timeout_ms, upstream.is_some());
    let merged = add_plugin(&text, &plugin_dir, &settings, &routed)?;
    changes.push(Change { path: config_path.clone(), old, new: Some(merged) });
    for (name, body) in FILES {
        changes.push(Change::to(dir.join(".openclaw/plugins").join(name), body.to_owned())?);
    }
    if !toml_path.exists() {
        let agents = sub_agents(&super::includes::resolve(&parsed, &dir, &dir));
        changes.push(Change::to(
            toml_path.clone(),
            blindfold_toml("OpenClaw", &toml_path, &cfg, upstream.as_deref(), &agents),
        )?);
    }
    ensure_private_dir(&cfg.state_dir).map_err(|e| format!("state dir {}: {e}", cfg.state_dir.display()))?;
    Tokens::load_or_create(&cfg.state_dir)?;
    let next = format!(
        "Next:\n  blindfold run --config {}     # the daemon (keep it running)\n  \
         export OPENCLAW_CONFIG_PATH={}     # in each shell that runs openclaw\n  \
         openclaw gateway run     # the plugin's hooks run in the gateway (keep it running)\n  \
         openclaw agent --agent main --message <request>   # a turn through that gateway\n  \
         blindfold doctor --dir {}     # checks the wiring",
        toml_path.display(),
        config_path.display(),
        dir.display()
    );
    let next = format!("{next}\n{}", super::project::OWN_USER_HINT);
    apply(&dir, changes, args.yes, &next)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"{
  "models": {"providers": {"probe": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k"}}},
  "agents": {"entries": {"scout": {"model": "probe/quill-mini-4"}, "critic": {"model": {"primary": "probe/lattice-7b"}}, "main": {}}},
  "plugins": {"allow": ["other"], "load": {"paths": ["/x"]},
    "entries": {"other": {"enabled": false}, "blindfold": {"config": {"keep": 1}}}}
}
"#;

    #[test]
    fn the_plugin_joins_an_existing_config_by_minimal_edits_and_leaves_it_again() {
        let routed = vec![("probe".to_owned(), "http://127.0.0.1:7701/v1".to_owned())];
        let out =
            add_plugin(CONFIG, "/p/blindfold", &json!({"url": "ws://h/v1/control"}), &routed).expect("add");
        let m: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(m["agents"], serde_json::from_str::<Value>(CONFIG).expect("json")["agents"]);
        assert_eq!(m["plugins"]["load"]["paths"], json!(["/x", "/p/blindfold"]));
        assert_eq!(m["plugins"]["allow"], json!(["other", "blindfold"]));
        assert_eq!(m["plugins"]["entries"]["other"], json!({"enabled": false}));
        let e = &m["plugins"]["entries"]["blindfold"];
        assert_eq!(
            (e["enabled"].clone(), e["hooks"]["allowConversationAccess"].clone()),
            (json!(true), json!(true))
        );
        assert_eq!(e["config"], json!({"keep": 1, "url": "ws://h/v1/control"}));
        assert_eq!(m["models"]["providers"]["probe"]["baseUrl"], "http://127.0.0.1:7701/v1");
        // The first line (the user's `models` line up to the URL) is untouched: keys keep their order.
        assert!(out.starts_with("{\n  \"models\": {\"providers\": {\"probe\": {\"baseUrl\": \"http://127.0.0.1:7701/v1\", \"apiKey\""), "{out}");
        assert_eq!(
            add_plugin(&out, "/p/blindfold", &json!({"url": "ws://h/v1/control"}), &routed).expect("again"),
            out
        );
        let back = vec![("probe".to_owned(), "http://127.0.0.1:9/v1".to_owned())];
        let removed: Value =
            serde_json::from_str(&remove_plugin(&out, "/p/blindfold", &back).expect("remove")).expect("json");
        assert_eq!(removed["plugins"]["load"]["paths"], json!(["/x"]));
        assert_eq!(removed["plugins"]["allow"], json!(["other"]));
        assert!(removed["plugins"]["entries"].get("blindfold").is_none());
        assert_eq!(removed["models"]["providers"]["probe"]["baseUrl"], "http://127.0.0.1:9/v1");
    }

    #[test]
    fn agents_with_their_models_become_identity_entries() {
        let c: Value = serde_json::from_str(CONFIG).expect("json");
        let agents = sub_agents(&c);
        let ids: Vec<(&str, &str)> = agents.iter().map(|a| (a.id.as_str(), a.model.as_str())).collect();
        assert_eq!(ids, [("critic", "lattice-7b"), ("scout", "quill-mini-4")]);
    }
}
