//! `blindfold init <harness>`: install Blindfold's adapter into a harness project, pointed at
//! this Blindfold's control API. One file per harness (`init/<harness>.rs`).

mod openclaw;
mod opencode;
mod pi;

use clap::Subcommand;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The harnesses `init` knows.
#[derive(Debug, Subcommand)]
pub enum InitCommand {
    /// Pi: `.pi/extensions/blindfold/` (loaded by the coordinator and its child `pi` processes)
    /// and `.pi/blindfold.json`.
    Pi(pi::InitPiArgs),
    /// OpenCode: `.opencode/plugins/blindfold.ts`, `.opencode/blindfold.json`, `blindfold.toml`,
    /// and `ask` for edit, bash, webfetch, external_directory and task in `opencode.json`
    /// (existing rules are kept; `deny` stays `deny`); shows a diff and asks unless `--yes`.
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

/// Writes `contents` to `path` (parents created). An existing different file is kept unless
/// `force`; returns whether the file was written.
pub(crate) fn install(path: &Path, contents: &[u8], force: bool) -> Result<bool, String> {
    if let Ok(existing) = std::fs::read(path) {
        if existing == contents {
            return Ok(false);
        }
        if !force {
            return Err(format!("{} exists and differs (use --force to replace it)", path.display()));
        }
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(true)
}

/// One file `init` would write: path, current content (if any), new content.
pub(crate) struct Change {
    /// Where.
    pub path: PathBuf,
    /// What is there now.
    pub old: Option<String>,
    /// What would be written.
    pub new: String,
}

impl Change {
    /// A change of `path` to `new`, reading what is there now.
    pub fn to(path: PathBuf, new: String) -> Result<Change, String> {
        let old = read(&path)?;
        Ok(Change { path, old, new })
    }
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
        match &c.old {
            Some(old) => print!(
                "--- {}\n+++ {}\n{}",
                c.path.display(),
                c.path.display(),
                crate::harnesses::opencode::setup::line_diff(old, &c.new)
            ),
            None => println!("new file {} ({} bytes)", c.path.display(), c.new.len()),
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

/// Writes every change (parents created), naming each file written.
pub(crate) fn write_all(changes: &[Change]) -> Result<(), String> {
    for c in changes {
        if let Some(parent) = c.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&c.path, &c.new).map_err(|e| format!("{}: {e}", c.path.display()))?;
        println!("wrote {}", c.path.display());
    }
    Ok(())
}
