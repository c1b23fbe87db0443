//! `blindfold init <harness>`: install Blindfold's adapter into a harness project, pointed at
//! this Blindfold's control API. One file per harness (`init_<harness>.rs`).

use clap::Subcommand;
use std::path::Path;
use std::process::ExitCode;

/// The harnesses `init` knows.
#[derive(Debug, Subcommand)]
pub enum InitCommand {
    /// Pi: `.pi/extensions/blindfold/` (loaded by the coordinator and its child `pi` processes)
    /// and `.pi/blindfold.json`.
    Pi(super::init_pi::InitPiArgs),
    /// OpenCode: `.opencode/plugins/blindfold.ts`, `.opencode/blindfold.json`, `blindfold.toml`,
    /// and `ask` for edit, bash, webfetch, external_directory and task in `opencode.json`
    /// (existing rules are kept; `deny` stays `deny`); shows a diff and asks unless `--yes`.
    Opencode(super::init_opencode::OpencodeArgs),
}

/// Runs `blindfold init <harness>`.
pub fn run(cmd: InitCommand) -> ExitCode {
    match cmd {
        InitCommand::Pi(args) => super::init_pi::run(args),
        InitCommand::Opencode(args) => super::init_opencode::run(args),
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
