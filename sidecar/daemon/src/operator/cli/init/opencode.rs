//! `blindfold init opencode`: installs the plugin, its connection settings, a Blindfold config
//! for the project, and the `permission` block — showing a diff and asking before writing.

use crate::config;
use crate::harnesses::opencode::setup::{PLUGIN_TS, line_diff, merge_permissions};
use crate::runtime::state::{Tokens, ensure_private_dir};
use clap::Args;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
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
    /// Blindfold config whose listen address and state dir the plugin should use.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Runs `blindfold init opencode`.
pub fn run(args: OpencodeArgs) -> ExitCode {
    match opencode(&args) {
        Ok(code) => code,
        Err(e) => super::super::usage_error(e),
    }
}

/// One file to write: path, current content (if any), new content.
struct Change {
    path: PathBuf,
    old: Option<String>,
    new: String,
}

fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn project_config(dir: &Path, agents: &[String]) -> String {
    let task = format!("opencode-{:08x}", rand::random::<u32>());
    let mut out = format!(
        "# Blindfold for this OpenCode project. Start it with: blindfold run --config {}\n\
         # Grants for this project's actions name the task id below.\n\n\
         [opencode]\ntask = \"{task}\"\n\
         # To have Blindfold answer OpenCode's permission requests (`once` or `reject`), run\n\
         # `opencode serve --port 4096` in this project and uncomment:\n\
         # serve_url = \"http://127.0.0.1:4096\"\n\n\
         # To also pass the coordinator's own model traffic through Blindfold (what no plugin hook\n\
         # rewrites, e.g. the prompt), set the model API's URL, point the harness's provider URL at\n\
         # `listen` and uncomment. The plugin takes a grant's use when the tool runs; the proxy checks:\n\
         # [model_proxy]\n# upstream = \"http://127.0.0.1:8080\"\n# listen = \"127.0.0.1:7701\"\n\
         # consume_grants = false\n\n\
         # Scoped grants' path globs are rooted here; paths are resolved here, links followed.\n\
         [workspace]\nroot = {root:?}\n",
        dir.join("blindfold.toml").display(),
        root = dir.display().to_string(),
    );
    for name in agents {
        out.push_str(&format!(
            "\n# True identity of the `{name}` sub-agent (hidden from the coordinator):\n\
             # [[identity.agents]]\n# id = \"{name}\"\n# model = \"\"\n# family = \"\"\n# tier = \"\"\n# provider = \"\"\n"
        ));
    }
    out
}

fn opencode(args: &OpencodeArgs) -> Result<ExitCode, String> {
    let dir = std::fs::canonicalize(&args.dir).map_err(|e| format!("--dir {}: {e}", args.dir.display()))?;
    if dir.join("opencode.jsonc").exists() {
        return Err(format!(
            "{} has comments that rewriting would lose: add \"permission\": {{\"edit\": \"ask\", \"bash\": \"ask\", \
             \"webfetch\": \"ask\", \"external_directory\": \"ask\", \"task\": \"ask\"}} to it yourself",
            dir.join("opencode.jsonc").display()
        ));
    }
    let cfg = config::load(args.config.as_deref()).map_err(|e| e.to_string())?;
    let config_path = dir.join("opencode.json");
    let old_config = read(&config_path)?;
    let parsed: Option<Value> = match &old_config {
        Some(text) => {
            Some(serde_json::from_str(text).map_err(|e| format!("{}: {e}", config_path.display()))?)
        }
        None => None,
    };
    let merged = merge_permissions(parsed.as_ref())?;
    let agents: Vec<String> = merged
        .get("agent")
        .and_then(Value::as_object)
        .map(|a| a.keys().cloned().collect())
        .unwrap_or_default();
    let settings = json!({
        "url": format!("ws://{}/v1/control", cfg.server.listen),
        "tokenFile": cfg.state_dir.join("adapter.token"),
        "timeoutMs": 5000,
    });
    let mut changes = vec![
        Change {
            new: serde_json::to_string_pretty(&merged).map_err(|e| e.to_string())? + "\n",
            old: old_config,
            path: config_path,
        },
        Change { path: dir.join(".opencode/plugins/blindfold.ts"), old: None, new: PLUGIN_TS.to_owned() },
        Change {
            path: dir.join(".opencode/blindfold-common/control.ts"),
            old: None,
            new: crate::harnesses::opencode::setup::CONTROL_TS.to_owned(),
        },
        Change {
            path: dir.join(".opencode/blindfold.json"),
            old: None,
            new: serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())? + "\n",
        },
    ];
    let toml_path = dir.join("blindfold.toml");
    if !toml_path.exists() {
        changes.push(Change { new: project_config(&dir, &agents), old: None, path: toml_path });
    }
    for c in changes.iter_mut().skip(1) {
        c.old = read(&c.path)?;
    }
    changes.retain(|c| c.old.as_deref() != Some(c.new.as_str()));
    if changes.is_empty() {
        println!("{} is already set up for Blindfold; nothing to change.", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    for c in &changes {
        match &c.old {
            Some(old) => {
                print!("--- {}\n+++ {}\n{}", c.path.display(), c.path.display(), line_diff(old, &c.new))
            }
            None => println!("new file {} ({} bytes)", c.path.display(), c.new.len()),
        }
    }
    if !args.yes && !confirm()? {
        println!("Nothing written.");
        return Ok(ExitCode::from(1));
    }
    ensure_private_dir(&cfg.state_dir).map_err(|e| format!("state dir {}: {e}", cfg.state_dir.display()))?;
    Tokens::load_or_create(&cfg.state_dir)?;
    for c in &changes {
        if let Some(parent) = c.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&c.path, &c.new).map_err(|e| format!("{}: {e}", c.path.display()))?;
        println!("wrote {}", c.path.display());
    }
    println!(
        "Next: blindfold run --config {} (then start OpenCode in {}).",
        dir.join("blindfold.toml").display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn confirm() -> Result<bool, String> {
    print!("Write these changes? [y/N] ");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).map_err(|e| e.to_string())?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}
