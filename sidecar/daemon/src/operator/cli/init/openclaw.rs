//! `blindfold init openclaw`: installs the OpenClaw plugin into a project
//! (`.openclaw/plugins/blindfold/`), adds it to the project's `openclaw.json` (load path, allow
//! list when there is one, enabled, conversation access for its run hook, its settings) and writes
//! `blindfold.toml` with the sub-agents' identities — showing a diff and asking before writing.

use super::{Change, read, show_and_confirm, write_all};
use crate::config;
use crate::runtime::state::{Tokens, ensure_private_dir};
use clap::Args;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The plugin's files (paths below `.openclaw/plugins/`), embedded at build time; the shared
/// control client sits next to the plugin's folder, where `index.ts` imports it from.
const FILES: [(&str, &str); 4] = [
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

/// `config` (an `openclaw.json`, `None` when there is none) with the plugin added; every other
/// setting is kept. `plugin_dir` is where the plugin lives, `settings` its config.
pub(crate) fn merge_plugin(
    config: Option<&Value>,
    plugin_dir: &str,
    settings: Value,
) -> Result<Value, String> {
    let mut root = match config {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err("openclaw.json is not a JSON object".into()),
    };
    let plugins = object(&mut root, "plugins")?;
    let load = object(plugins, "load")?;
    let paths = load.entry("paths").or_insert_with(|| json!([]));
    let paths = paths.as_array_mut().ok_or("plugins.load.paths is not a list")?;
    if !paths.iter().any(|p| p.as_str() == Some(plugin_dir)) {
        paths.push(json!(plugin_dir));
    }
    // An allow list admits only what it names: the plugin joins one that exists.
    if let Some(allow) = plugins.get_mut("allow") {
        let allow = allow.as_array_mut().ok_or("plugins.allow is not a list")?;
        if !allow.iter().any(|p| p.as_str() == Some(PLUGIN_ID)) {
            allow.push(json!(PLUGIN_ID));
        }
    }
    let entries = object(plugins, "entries")?;
    let entry = object(entries, PLUGIN_ID)?;
    entry.insert("enabled".into(), json!(true));
    object(entry, "hooks")?.insert("allowConversationAccess".into(), json!(true));
    let cfg = object(entry, "config")?;
    if let Value::Object(s) = settings {
        for (k, v) in s {
            cfg.insert(k, v);
        }
    }
    Ok(Value::Object(root))
}

fn object<'a>(map: &'a mut Map<String, Value>, key: &str) -> Result<&'a mut Map<String, Value>, String> {
    map.entry(key)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| format!("{key} is not an object"))
}

/// `[[identity.agents]]` for every agent of `config` with its model (the coordinator's own
/// `agents.defaults` model is not a sub-agent identity).
fn project_config(dir: &Path, config: Option<&Value>, trajectory: &str) -> String {
    let mut out = format!(
        "# Blindfold for this OpenClaw project. Start it with: blindfold run --config {}\n\
         # Grants for this project's actions name the trajectory `{trajectory}` (the plugin pins it).\n\n\
         # Scoped grants' path globs are rooted here; paths are resolved here, links followed.\n\
         [workspace]\nroot = {root:?}\n\n\
         # To also pass the coordinator's own model traffic through Blindfold (what no plugin hook\n\
         # rewrites, e.g. the prompt), set the model API's URL, point the harness's provider URL at\n\
         # `listen` and uncomment. The plugin takes a grant's use when the tool runs; the proxy checks:\n\
         # [model_proxy]\n# upstream = \"http://127.0.0.1:8080\"\n# listen = \"127.0.0.1:7701\"\n\
         # consume_grants = false\n",
        dir.join("blindfold.toml").display(),
        root = dir.display().to_string(),
    );
    let entries = config.and_then(|c| c.pointer("/agents/entries")).and_then(Value::as_object);
    for (id, agent) in entries.into_iter().flatten() {
        let model = match agent.get("model") {
            Some(Value::String(m)) => m.clone(),
            Some(Value::Object(m)) => m.get("primary").and_then(Value::as_str).unwrap_or_default().to_owned(),
            _ => String::new(),
        };
        let model = model.rsplit('/').next().unwrap_or_default();
        let body = format!(
            "[[identity.agents]]\nid = {id:?}\nmodel = {model:?}\nfamily = \"\"\ntier = \"\"\nprovider = \"\"\n"
        );
        out.push_str(&format!("\n# True identity of the `{id}` agent (hidden from the coordinator):\n"));
        if model.is_empty() {
            out.extend(body.lines().map(|l| format!("# {l}\n")));
        } else {
            out.push_str(&body);
        }
    }
    out
}

fn openclaw(args: &OpenclawArgs) -> Result<ExitCode, String> {
    let dir = std::fs::canonicalize(&args.dir).map_err(|e| format!("--dir {}: {e}", args.dir.display()))?;
    let cfg = config::load(args.config.as_deref()).map_err(|e| e.to_string())?;
    let config_path = dir.join("openclaw.json");
    let old_config = read(&config_path)?;
    let parsed: Option<Value> = match &old_config {
        Some(text) => Some(serde_json::from_str(text).map_err(|e| {
            format!(
                "{}: {e}; it is not plain JSON (JSON5 comments would be lost): add {} to plugins.load.paths and \
                 plugins.entries.{PLUGIN_ID} yourself (see the plugin's README.md)",
                config_path.display(),
                dir.join(".openclaw/plugins/blindfold").display()
            )
        })?),
        None => None,
    };
    let plugin_dir = dir.join(".openclaw/plugins/blindfold");
    // Keep a trajectory pinned earlier (grants already issued name it).
    let pinned = parsed
        .as_ref()
        .and_then(|c| c.pointer(&format!("/plugins/entries/{PLUGIN_ID}/config/trajectory")))
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map_or_else(|| format!("openclaw-{:08x}", rand::random::<u32>()), str::to_owned);
    let settings = json!({
        "url": format!("ws://{}/v1/control", cfg.server.listen),
        "tokenFile": cfg.state_dir.join("adapter.token"),
        "timeoutMs": args.timeout_ms,
        "trajectory": pinned,
    });
    let merged = merge_plugin(parsed.as_ref(), &plugin_dir.display().to_string(), settings)?;
    let mut changes = vec![Change {
        path: config_path,
        old: old_config,
        new: serde_json::to_string_pretty(&merged).map_err(|e| e.to_string())? + "\n",
    }];
    for (name, text) in FILES {
        changes.push(Change::to(dir.join(".openclaw/plugins").join(name), text.to_owned())?);
    }
    let toml_path = dir.join("blindfold.toml");
    if !toml_path.exists() {
        changes.push(Change {
            new: project_config(&dir, parsed.as_ref(), &pinned),
            old: None,
            path: toml_path,
        });
    }
    changes.retain(|c| c.old.as_deref() != Some(c.new.as_str()));
    if changes.is_empty() {
        println!("{} is already set up for Blindfold; nothing to change.", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    if !show_and_confirm(&changes, args.yes)? {
        println!("Nothing written.");
        return Ok(ExitCode::from(1));
    }
    ensure_private_dir(&cfg.state_dir).map_err(|e| format!("state dir {}: {e}", cfg.state_dir.display()))?;
    Tokens::load_or_create(&cfg.state_dir)?;
    write_all(&changes)?;
    println!(
        "Next: blindfold run --config {} (then start the OpenClaw gateway with OPENCLAW_CONFIG_PATH={}).",
        dir.join("blindfold.toml").display(),
        dir.join("openclaw.json").display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_joins_an_existing_config_without_loosening_it() {
        let old = json!({"agents": {"entries": {"scout": {"model": "probe/quill-mini-4"}}},
            "plugins": {"allow": ["other"], "load": {"paths": ["/x"]},
                "entries": {"other": {"enabled": false}, "blindfold": {"config": {"keep": 1}}}}});
        let m = merge_plugin(Some(&old), "/p/blindfold", json!({"url": "ws://h/v1/control"})).expect("merge");
        assert_eq!(m["agents"], old["agents"]);
        assert_eq!(m["plugins"]["load"]["paths"], json!(["/x", "/p/blindfold"]));
        assert_eq!(m["plugins"]["allow"], json!(["other", "blindfold"]));
        assert_eq!(m["plugins"]["entries"]["other"], json!({"enabled": false}));
        let e = &m["plugins"]["entries"]["blindfold"];
        assert_eq!(e["enabled"], json!(true));
        assert_eq!(e["hooks"]["allowConversationAccess"], json!(true));
        assert_eq!(e["config"], json!({"keep": 1, "url": "ws://h/v1/control"}));
        // Idempotent: merging again changes nothing.
        let again =
            merge_plugin(Some(&m), "/p/blindfold", json!({"url": "ws://h/v1/control"})).expect("merge");
        assert_eq!(again, m);
    }

    #[test]
    fn no_allow_list_is_created_and_a_non_object_is_refused() {
        let m = merge_plugin(None, "/p", json!({})).expect("merge");
        assert!(m["plugins"].get("allow").is_none());
        assert!(merge_plugin(Some(&json!([1])), "/p", json!({})).is_err());
    }

    #[test]
    fn agents_with_a_model_become_identity_entries() {
        let c = json!({"agents": {"entries": {"scout": {"model": "probe/quill-mini-4"},
            "critic": {"model": {"primary": "probe/lattice-7b"}}, "main": {}}}});
        let t = project_config(Path::new("/p"), Some(&c), "openclaw-1");
        assert!(t.contains("id = \"scout\"\nmodel = \"quill-mini-4\""), "{t}");
        assert!(t.contains("id = \"critic\"\nmodel = \"lattice-7b\""), "{t}");
        assert!(t.contains("# id = \"main\""), "{t}");
        let parsed: toml::Value = toml::from_str(&t).expect("valid TOML");
        assert_eq!(parsed["identity"]["agents"].as_array().map(Vec::len), Some(2));
    }
}
