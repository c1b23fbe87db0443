//! `blindfold init opencode`: the plugin and its settings, the project's `blindfold.toml` (the
//! sub-agents' true identities from every form OpenCode defines them in: the `agent` key of
//! `opencode.json(c)` and `.opencode/agent/*.md`), and the provider's base URL pointed at the
//! model-API proxy — a minimal edit of the user's config (order, rules and comments kept), shown
//! as a diff and written on a yes. `--remove` undoes it. The permission rules are the user's:
//! the plugin decides every tool call whatever they say, and `opencode run` keeps working.

use super::agents::{SubAgent, field, markdown_agents};
use super::project::{ProxyRoute, adapter_settings, blindfold_toml, kept_upstream, route};
use super::{Change, apply, json_edit, read};
use crate::config;
use crate::harnesses::opencode::setup::{CONTROL_TS, PLUGIN_TS};
use crate::runtime::state::{Tokens, ensure_private_dir};
use clap::Args;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `init opencode`.
#[derive(Debug, Args)]
pub struct OpencodeArgs {
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Write without asking.
    #[arg(long)]
    pub yes: bool,
    /// Blindfold config whose listen address and state dir the plugin should use (default: the
    /// project's blindfold.toml when there is one, else the built-in defaults).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Undo what init wrote: the plugin and its settings go, the provider points at its model
    /// API again (blindfold.toml stays).
    #[arg(long)]
    pub remove: bool,
    /// Also make OpenCode ask before edit, bash, webfetch, external_directory and task (existing
    /// rules kept, a `deny` never loosened), for `[opencode] serve_url`, where Blindfold answers
    /// OpenCode's permission requests; `opencode run` refuses every `ask`.
    #[arg(long)]
    pub ask: bool,
    /// Leave the provider's base URL alone (no model-API proxy in front of it).
    #[arg(long)]
    pub no_model_proxy: bool,
}

/// Permission keys `--ask` makes ask.
const ASK_KEYS: [&str; 5] = ["edit", "bash", "webfetch", "external_directory", "task"];

/// A permission value at least as strict as `ask`: `deny` stays, anything else becomes `ask`; a
/// pattern map keeps its `deny` rules, turns the rest into `ask`, and gains `"*": "ask"` first.
fn at_least_ask(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(s)) if s == "deny" => json!("deny"),
        Some(Value::Object(rules)) => {
            let mut out = serde_json::Map::new();
            if !rules.contains_key("*") {
                out.insert("*".into(), json!("ask"));
            }
            for (pattern, action) in rules {
                out.insert(pattern.clone(), if action == "deny" { json!("deny") } else { json!("ask") });
            }
            Value::Object(out)
        }
        _ => json!("ask"),
    }
}

/// `text` with `ask` for [`ASK_KEYS`] (minimal edits: only those keys change).
fn with_ask(text: &str, config: &Value) -> Result<String, String> {
    let mut out = text.to_owned();
    if let Some(Value::String(all)) = config.get("permission") {
        out = json_edit::set(&out, &[], "permission", &json!({"*": all}))?;
    }
    for key in ASK_KEYS {
        let now = json_edit::get(&out, &["permission", key])?;
        let strict = at_least_ask(now.as_ref());
        if now.as_ref() != Some(&strict) {
            out = json_edit::set(&out, &["permission"], key, &strict)?;
        }
    }
    Ok(out)
}

/// Runs `blindfold init opencode`.
pub fn run(args: OpencodeArgs) -> ExitCode {
    match opencode(&args) {
        Ok(code) => code,
        Err(e) => super::super::usage_error(e),
    }
}

/// The project's OpenCode config: `opencode.json`, else `opencode.jsonc`, else a new
/// `opencode.json`.
fn config_path(dir: &Path) -> PathBuf {
    let json = dir.join("opencode.json");
    let jsonc = dir.join("opencode.jsonc");
    if !json.exists() && jsonc.exists() { jsonc } else { json }
}

/// Every sub-agent OpenCode defines for this project (JSON `agent` entries, then markdown files
/// in `.opencode/agent/` and `.opencode/agents/`), with its true identity; primary agents are the
/// coordinator's own and are left out.
pub(crate) fn sub_agents(dir: &Path, config: &Value) -> Vec<SubAgent> {
    let mut out: Vec<SubAgent> = Vec::new();
    let default_model = config.get("model").and_then(Value::as_str).unwrap_or_default();
    for (name, a) in config.get("agent").and_then(Value::as_object).into_iter().flatten() {
        if a.get("mode").and_then(Value::as_str) == Some("primary") {
            continue;
        }
        let model = a.get("model").and_then(Value::as_str).unwrap_or(default_model);
        out.push(SubAgent::new(name, model, "", "", "opencode.json"));
    }
    for folder in [".opencode/agent", ".opencode/agents"] {
        for (name, fm) in markdown_agents(&dir.join(folder)) {
            if field(&fm, "mode") == "primary" || out.iter().any(|a| a.id == name) {
                continue;
            }
            let model = Some(field(&fm, "model")).filter(|m| !m.is_empty()).unwrap_or(default_model);
            out.push(SubAgent::new(&name, model, "", "", &format!("{folder}/{name}.md")));
        }
    }
    out
}

/// The provider of `model` (`provider/model`) and its `options.baseURL`, if it has one.
fn provider_url(config: &Value, model: &str) -> Option<(String, String)> {
    let provider = model.split_once('/')?.0;
    let url = config.pointer(&format!("/provider/{provider}/options/baseURL"))?.as_str()?;
    Some((provider.to_owned(), url.to_owned()))
}

/// The providers to route through the proxy: the coordinator's and every provider with the same
/// base URL; or why not.
fn proxy_plan(
    config: &Value,
    cfg: &config::Config,
    kept: Option<&str>,
) -> Result<(ProxyRoute, Vec<String>), String> {
    let model = config.get("model").and_then(Value::as_str).ok_or("opencode.json names no `model`")?;
    let (_, url) = provider_url(config, model)
        .ok_or_else(|| format!("the provider of `{model}` has no options.baseURL"))?;
    let r = route(&url, &cfg.model_proxy.listen.to_string(), kept)?;
    let same: Vec<String> = config
        .get("provider")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, p)| {
            p.pointer("/options/baseURL").and_then(Value::as_str).is_some_and(|u| {
                route(u, &cfg.model_proxy.listen.to_string(), kept).ok().as_ref() == Some(&r)
            })
        })
        .map(|(name, _)| name.clone())
        .collect();
    Ok((r, same))
}

fn opencode(args: &OpencodeArgs) -> Result<ExitCode, String> {
    let dir = std::fs::canonicalize(&args.dir).map_err(|e| format!("--dir {}: {e}", args.dir.display()))?;
    let toml_path = dir.join("blindfold.toml");
    let cfg_file = args.config.clone().or_else(|| toml_path.exists().then(|| toml_path.clone()));
    let cfg = config::load(cfg_file.as_deref()).map_err(|e| e.to_string())?;
    let config_path = config_path(&dir);
    let text = read(&config_path)?
        .unwrap_or_else(|| "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n".to_owned());
    let config: Value = serde_json::from_str(&json_edit::strip_comments(&text))
        .map_err(|e| format!("{}: {e}", config_path.display()))?;
    let kept = kept_upstream(&toml_path);
    let plan = if args.no_model_proxy {
        Err("--no-model-proxy".to_owned())
    } else {
        proxy_plan(&config, &cfg, kept.as_deref())
    };
    let mut edited = text.clone();
    let mut changes = Vec::new();
    if args.remove {
        if let (Some(up), Ok((_, providers))) = (&kept, &plan) {
            for p in providers {
                let url = json!(format!("{up}/v1"));
                edited = json_edit::replace(&edited, &["provider", p, "options", "baseURL"], &url)?;
            }
        }
        changes.push(Change { path: config_path.clone(), old: Some(text), new: Some(edited) });
        for f in ["plugins/blindfold.ts", "blindfold-common/control.ts", "blindfold.json"] {
            changes.push(Change::removal(dir.join(".opencode").join(f))?);
        }
        let next = format!(
            "Blindfold is out of this project; {} stays (delete it if you like).",
            toml_path.display()
        );
        return apply(&dir, changes, args.yes, &next);
    }
    let upstream = match &plan {
        Ok((r, providers)) => {
            for p in providers {
                edited =
                    json_edit::replace(&edited, &["provider", p, "options", "baseURL"], &json!(r.through))?;
            }
            Some(r.upstream.clone())
        }
        Err(why) => {
            println!("note: the model-API proxy is not set up: {why}");
            None
        }
    };
    if args.ask {
        edited = with_ask(&edited, &config)?;
    }
    if read(&config_path)?.is_none() || edited != text {
        changes.push(Change { path: config_path.clone(), old: read(&config_path)?, new: Some(edited) });
    }
    let settings = adapter_settings(&cfg, 5000, upstream.is_some());
    changes.push(Change::to(dir.join(".opencode/plugins/blindfold.ts"), PLUGIN_TS.to_owned())?);
    changes.push(Change::to(dir.join(".opencode/blindfold-common/control.ts"), CONTROL_TS.to_owned())?);
    let settings_text = serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())? + "\n";
    changes.push(Change::to(dir.join(".opencode/blindfold.json"), settings_text)?);
    if !toml_path.exists() {
        let agents = sub_agents(&dir, &config);
        changes.push(Change::to(
            toml_path.clone(),
            blindfold_toml("OpenCode", &toml_path, &cfg, upstream.as_deref(), &agents),
        )?);
    }
    ensure_private_dir(&cfg.state_dir).map_err(|e| format!("state dir {}: {e}", cfg.state_dir.display()))?;
    Tokens::load_or_create(&cfg.state_dir)?;
    let next = format!(
        "Next:\n  blindfold run --config {}     # the daemon (keep it running)\n  cd {} && opencode                # or: opencode run <your request>",
        toml_path.display(),
        dir.display()
    );
    let next = format!("{next}\n{}", super::project::OWN_USER_HINT);
    apply(&dir, changes, args.yes, &next)
}
