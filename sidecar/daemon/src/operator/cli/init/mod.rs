//! `blindfold init <harness>`: install Blindfold's adapter into a harness project, pointed at
//! this Blindfold's control API. One file per harness (`init/<harness>.rs`).

mod agents;
mod includes;
mod json_edit;
mod openclaw;
mod opencode;
mod pi;
mod project;

use clap::Subcommand;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `text` (JSON or JSONC) with its comments blanked, for a JSON parser.
pub(crate) fn strip_json_comments(text: &str) -> String {
    json_edit::strip_comments(text)
}

/// Where `init <kind>` installs the adapter's main file in a project, and that file as shipped
/// (for `doctor`).
pub(crate) fn shipped_adapter(kind: &str) -> Option<(&'static str, &'static str)> {
    match kind {
        "opencode" => Some((".opencode/plugins/blindfold.ts", crate::harnesses::opencode::setup::PLUGIN_TS)),
        "pi" => Some((".pi/extensions/blindfold/index.ts", pi::FILES[0].1)),
        "openclaw" => Some((".openclaw/plugins/blindfold/index.ts", openclaw::FILES[0].1)),
        _ => None,
    }
}

/// The harnesses `init` knows.
#[derive(Debug, Subcommand)]
pub enum InitCommand {
    /// Pi: `.pi/extensions/blindfold/` (loaded by the coordinator and its child `pi` processes),
    /// `.pi/blindfold.json`, `blindfold.toml` (the sub-agents' true identities, the model-API
    /// proxy) and the provider's base URL routed through the proxy; shows the changes and asks
    /// unless `--yes`.
    Pi(pi::InitPiArgs),
    /// OpenCode: `.opencode/plugins/blindfold.ts`, `.opencode/blindfold.json`, `blindfold.toml`,
    /// and in `opencode.json` only the provider's `baseURL` (through the model-API proxy; with
    /// `--ask` also `ask` rules); shows a diff and asks unless `--yes`.
    Opencode(opencode::OpencodeArgs),
    /// OpenClaw: `.openclaw/plugins/blindfold/`, the plugin's entry in `openclaw.json` (loaded,
    /// allowed, enabled, its settings) and `blindfold.toml`; shows a diff and asks unless `--yes`.
    Openclaw(openclaw::OpenclawArgs),
}

/// Runs `blindfold init <harness>`.
pub fn run(cmd: InitCommand) -> ExitCode {
    match cmd {
        InitCommand::Pi(args) => pi::run(args),
        InitCommand::Opencode(args) => opencode::run(args),
        InitCommand::Openclaw(args) => openclaw::run(args),
    }
}

/// One file `init` would write or remove: path, current content (if any), new content (`None`:
/// the file goes).
pub(crate) struct Change {
    /// Where.
    pub path: PathBuf,
    /// What is there now.
    pub old: Option<String>,
    /// What would be written; `None` removes the file.
    pub new: Option<String>,
}

impl Change {
    /// A change of `path` to `new`, reading what is there now.
    pub fn to(path: PathBuf, new: String) -> Result<Change, String> {
        let old = read(&path)?;
        Ok(Change { path, old, new: Some(new) })
    }

    /// The removal of `path` (nothing to do when it is not there).
    pub fn removal(path: PathBuf) -> Result<Change, String> {
        let old = read(&path)?;
        Ok(Change { path, old, new: None })
    }

    /// True when applying it changes nothing.
    pub fn is_noop(&self) -> bool {
        self.old == self.new
    }
}

/// Shows `changes` (those that change something), asks unless `yes`, writes them, and prints
/// `next` — or says there is nothing to do. Exit 0, or 1 when the user declined.
pub(crate) fn apply(dir: &Path, mut changes: Vec<Change>, yes: bool, next: &str) -> Result<ExitCode, String> {
    changes.retain(|c| !c.is_noop());
    if changes.is_empty() {
        println!("{} is already set up; nothing to change.", dir.display());
        println!("{next}");
        return Ok(ExitCode::SUCCESS);
    }
    if !show_and_confirm(&changes, yes)? {
        println!("Nothing written.");
        return Ok(ExitCode::from(1));
    }
    write_all(&changes)?;
    println!("{next}");
    Ok(ExitCode::SUCCESS)
}

/// The text of `path`, `None` when it does not exist.
pub(crate) fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Shows each change (a line diff of files that exist, the size of new ones) and asks on stdin
/// unless `yes`. Returns whether to write.
pub(crate) fn show_and_confirm(changes: &[Change], yes: bool) -> Result<bool, String> {
    for c in changes {
        match (&c.old, &c.new) {
            (Some(old), Some(new)) => print!(
                "--- {}\n+++ {}\n{}",
                c.path.display(),
                c.path.display(),
                crate::harnesses::opencode::setup::line_diff(old, new)
            ),
            (None, Some(new)) => println!("new file {} ({} bytes)", c.path.display(), new.len()),
            (Some(_), None) => println!("remove {}", c.path.display()),
            (None, None) => {}
        }
    }
    if yes {
        return Ok(true);
    }
    print!("Write these changes? [y/N] ");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).map_err(|e| e.to_string())?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}

/// Writes (or removes) every change (parents created), naming each file; a folder a removal
/// leaves empty goes too.
pub(crate) fn write_all(changes: &[Change]) -> Result<(), String> {
    for c in changes {
        let Some(new) = &c.new else {
            if c.old.is_some() {
                std::fs::remove_file(&c.path).map_err(|e| format!("{}: {e}", c.path.display()))?;
                println!("removed {}", c.path.display());
                if let Some(parent) = c.path.parent() {
                    let _ = std::fs::remove_dir(parent);
                }
            }
            continue;
        };
        if let Some(parent) = c.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&c.path, new).map_err(|e| format!("{}: {e}", c.path.display()))?;
        println!("wrote {}", c.path.display());
    }
    Ok(())
}
