//! `blindfold init pi`: installs the Pi extension into a project (`.pi/extensions/blindfold/`,
//! auto-discovered by the coordinator and by every child `pi` process started in it), its
//! settings (`.pi/blindfold.json`: this Blindfold's control URL and adapter token file, and the
//! providers the extension routes through the model-API proxy), Pi's own `models.json` (the same
//! providers through the proxy, so that a run without the extension is refused by the proxy, not
//! let through; `--keep-models-json` leaves it alone) and the project's `blindfold.toml` with the sub-agents' true
//! identities (`.pi/agents/*.md` and the user's `agents/*.md`). The shared control client goes
//! to `.pi/extensions/blindfold-common/` (no `index.ts`: Pi does not load it as an extension).

use super::agents::{SubAgent, field, markdown_agents};
use super::project::{adapter_settings, blindfold_toml, kept_upstream, route};
use super::{Change, apply, json_edit, read};
use crate::config;
use crate::runtime::state::{Tokens, ensure_private_dir};
use clap::Args;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The extension's files (paths below `.pi/extensions/`), embedded at build time.
pub(super) const FILES: [(&str, &str); 2] = [
    ("blindfold/index.ts", include_str!("../../../../../../adapters/pi-extension/index.ts")),
    ("blindfold-common/control.ts", include_str!("../../../../../../adapters/blindfold-common/control.ts")),
];

/// Arguments of `blindfold init pi`.
#[derive(Debug, Args)]
pub struct InitPiArgs {
    /// The Pi project directory (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Write without asking.
    #[arg(long)]
    pub yes: bool,
    /// Blindfold config whose listen address and state dir the extension should use (default:
    /// the project's blindfold.toml when there is one, else the built-in defaults).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Per-request timeout of the extension, milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub timeout_ms: u64,
    /// Leave Pi's own `models.json` as it is: only the extension routes this project's providers
    /// through the model-API proxy, so a Pi run without the extension reaches the model directly
    /// and nothing gates its tools (fails open; not recommended).
    #[arg(long)]
    pub keep_models_json: bool,
    /// Undo what init wrote (the extension and its settings go, `models.json`'s providers point
    /// at their model API again; blindfold.toml stays).
    #[arg(long)]
    pub remove: bool,
}

/// Pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
fn agent_dir() -> PathBuf {
    match std::env::var_os("PI_CODING_AGENT_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".pi/agent"),
    }
}

/// The sub-agents Pi's `subagent` tool can start here: the project's `.pi/agents/*.md`, then the
/// user's `agents/*.md` (a project agent of the same name wins).
fn sub_agents(dir: &Path, agent_dir: &Path) -> Vec<SubAgent> {
    let mut out: Vec<SubAgent> = Vec::new();
    for (folder, shown) in [
        (dir.join(".pi/agents"), ".pi/agents".to_owned()),
        (agent_dir.join("agents"), agent_dir.join("agents").display().to_string()),
    ] {
        for (stem, fm) in markdown_agents(&folder) {
            let name = Some(field(&fm, "name")).filter(|n| !n.is_empty()).unwrap_or(&stem).to_owned();
            if out.iter().any(|a| a.id == name) {
                continue;
            }
            let mut a = SubAgent::new(
                &name,
                field(&fm, "model"),
                field(&fm, "family"),
                field(&fm, "provider"),
                &format!("{shown}/{stem}.md"),
            );
            a.tier = field(&fm, "tier").to_owned();
            out.push(a);
        }
    }
    out
}

/// The providers of Pi's `models.json` to route through the proxy (the first plain-HTTP one and
/// every other with the same upstream): upstream and provider → base URL through the proxy.
fn proxy_plan(
    models: &Value,
    listen: &str,
    kept: Option<&str>,
) -> Result<(String, Map<String, Value>), String> {
    let providers =
        models.get("providers").and_then(Value::as_object).ok_or("models.json names no providers")?;
    let mut upstream: Option<String> = kept.map(str::to_owned);
    let mut routed = Map::new();
    let mut why = Vec::new();
    for (name, p) in providers {
        let Some(url) = p.get("baseUrl").and_then(Value::as_str) else { continue };
        match route(url, listen, upstream.as_deref()) {
            Ok(r) if upstream.as_deref().is_none_or(|u| u == r.upstream) => {
                upstream = Some(r.upstream);
                routed.insert(name.clone(), json!(r.through));
            }
            Ok(r) => why.push(format!("{name}: another model API ({})", r.upstream)),
            Err(e) => why.push(format!("{name}: {e}")),
        }
    }
    for w in &why {
        println!("note: provider {w}: not routed through the model-API proxy");
    }
    match upstream {
        Some(u) if !routed.is_empty() => Ok((u, routed)),
        _ => Err("no provider of models.json has a plain-HTTP base URL ending in /v1".into()),
    }
}

/// The change pointing `models.json`'s providers routed through the proxy back at their model
/// API (the upstream `blindfold.toml` names), if any is routed.
fn unrouted_models(
    models_path: &Path,
    cfg: &config::Config,
    toml_path: &Path,
) -> Result<Option<Change>, String> {
    let Some(text) = read(models_path)? else { return Ok(None) };
    let models: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", models_path.display()))?;
    let Some(upstream) = kept_upstream(toml_path) else { return Ok(None) };
    let through = format!("http://{}/v1", cfg.model_proxy.listen);
    let mut out = text.clone();
    for (name, p) in models.get("providers").and_then(Value::as_object).into_iter().flatten() {
        if p.get("baseUrl").and_then(Value::as_str).map(|u| u.trim_end_matches('/')) == Some(through.as_str())
        {
            out =
                json_edit::replace(&out, &["providers", name, "baseUrl"], &json!(format!("{upstream}/v1")))?;
        }
    }
    (out != text).then(|| Change::to(models_path.to_path_buf(), out)).transpose()
}

/// What the reference `subagent` tool needs to start the project's own agents (`.pi/agents/`),
/// when there are any: it reads that folder only for a call with `agentScope`, and asks first in
/// the interactive mode.
fn project_agents_hint(agents: &[SubAgent]) -> Option<String> {
    let names: Vec<&str> =
        agents.iter().filter(|a| a.source.starts_with(".pi/agents/")).map(|a| a.id.as_str()).collect();
    (!names.is_empty()).then(|| {
        format!(
            "The project's agents in .pi/agents/ ({}) start only when a subagent call sets agentScope \"both\" \
             (or \"project\"): say so in your request (\"… they are project agents\"), or keep them in the user's \
             agents folder instead. Interactively, Pi asks \"Run project-local agents?\" before it starts one.",
            names.join(", ")
        )
    })
}

/// Writes the extension and its settings; exit 0, 1 when declined, 2 naming what failed.
pub fn run(args: InitPiArgs) -> ExitCode {
    match pi(&args) {
        Ok(code) => code,
        Err(e) => super::super::usage_error(e),
    }
}

fn pi(args: &InitPiArgs) -> Result<ExitCode, String> {
    std::fs::create_dir_all(&args.dir).map_err(|e| format!("--dir {}: {e}", args.dir.display()))?;
    let dir = std::fs::canonicalize(&args.dir).map_err(|e| format!("--dir {}: {e}", args.dir.display()))?;
    let toml_path = dir.join("blindfold.toml");
    let cfg_file = args.config.clone().or_else(|| toml_path.exists().then(|| toml_path.clone()));
    let cfg = config::load(cfg_file.as_deref()).map_err(|e| e.to_string())?;
    let pi_dir = dir.join(".pi");
    let mut changes = Vec::new();
    if args.remove {
        for (name, _) in FILES {
            changes.push(Change::removal(pi_dir.join("extensions").join(name))?);
        }
        changes.push(Change::removal(pi_dir.join("blindfold.json"))?);
        if let Some(change) = unrouted_models(&agent_dir().join("models.json"), &cfg, &toml_path)? {
            changes.push(change);
        }
        let next = format!(
            "Blindfold is out of this project; {} stays (delete it if you like).",
            toml_path.display()
        );
        return apply(&dir, changes, args.yes, &next);
    }
    let agents_home = agent_dir();
    let models_path = agents_home.join("models.json");
    let models_text = read(&models_path)?;
    let models: Value = match &models_text {
        Some(text) => serde_json::from_str(text).map_err(|e| format!("{}: {e}", models_path.display()))?,
        None => json!({}),
    };
    let plan = proxy_plan(&models, &cfg.model_proxy.listen.to_string(), kept_upstream(&toml_path).as_deref());
    let (upstream, routed) = match plan {
        Ok((u, r)) => (Some(u), r),
        Err(why) => {
            println!("note: the model-API proxy is not set up: {why} ({})", models_path.display());
            (None, Map::new())
        }
    };
    let mut settings = adapter_settings(&cfg, args.timeout_ms, upstream.is_some());
    settings["providers"] = Value::Object(routed);
    for (name, text) in FILES {
        changes.push(Change::to(pi_dir.join("extensions").join(name), text.to_owned())?);
    }
    // Pi's own provider goes through the proxy too, so that a run without the extension (deleted,
    // not loaded) has its tool calls refused by the proxy instead of reaching the model directly.
    if let (Some(text), false) = (&models_text, args.keep_models_json) {
        let mut out = text.clone();
        for (provider, url) in &settings["providers"].as_object().cloned().unwrap_or_default() {
            out = json_edit::replace(&out, &["providers", provider, "baseUrl"], url)?;
        }
        changes.push(Change::to(models_path.clone(), out)?);
    } else if args.keep_models_json {
        println!(
            "note: {} is left as it is: a pi run without the extension reaches the model directly",
            models_path.display()
        );
    }
    let settings_text = serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())? + "\n";
    changes.push(Change::to(pi_dir.join("blindfold.json"), settings_text)?);
    let agents = sub_agents(&dir, &agents_home);
    if !toml_path.exists() {
        changes.push(Change::to(
            toml_path.clone(),
            blindfold_toml("Pi", &toml_path, &cfg, upstream.as_deref(), &agents),
        )?);
    }
    ensure_private_dir(&cfg.state_dir).map_err(|e| format!("state dir {}: {e}", cfg.state_dir.display()))?;
    Tokens::load_or_create(&cfg.state_dir)?;
    let mut next = format!(
        "Next:\n  blindfold run --config {}     # the daemon (keep it running)\n  cd {} && pi                      # or: pi -p <request>, pi --mode rpc\n\
         Every pi process here (sub-agents' too) joins its session's trajectory by itself: no BLINDFOLD_TRAJECTORY needed.",
        toml_path.display(),
        dir.display()
    );
    if models_text.is_some() && !args.keep_models_json && upstream.is_some() {
        next.push_str(&format!(
            "\n{} reaches the model through Blindfold's proxy now, for every Pi project of this user: a \
             pi run without this extension has its tool calls refused (`blindfold init pi --remove` undoes it).",
            models_path.display()
        ));
    }
    if let Some(hint) = project_agents_hint(&agents) {
        next.push('\n');
        next.push_str(&hint);
    }
    let next = format!("{next}\n{}", super::project::OWN_USER_HINT);
    apply(&dir, changes, args.yes, &next)
}
