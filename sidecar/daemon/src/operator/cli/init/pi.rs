//! `blindfold init pi`: installs the Pi extension into a project (`.pi/extensions/blindfold/`,
//! auto-discovered by the coordinator and by every child `pi` process started in it) and writes
//! `.pi/blindfold.json` with this Blindfold's control URL and adapter token file. The shared
//! control client goes to `.pi/extensions/blindfold-common/` (no `index.ts`: Pi does not load it
//! as an extension), where the extension imports it from.

use super::install;
use crate::config;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// The extension's files (paths below `.pi/extensions/`), embedded at build time.
const FILES: [(&str, &str); 2] = [
    ("blindfold/index.ts", include_str!("../../../../../../adapters/pi-extension/index.ts")),
    ("blindfold-common/control.ts", include_str!("../../../../../../adapters/blindfold-common/control.ts")),
];

/// Arguments of `blindfold init pi`.
#[derive(Debug, Args)]
pub struct InitPiArgs {
    /// The Pi project directory (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Configuration file (TOML) of the daemon the extension talks to; without it the embedded
    /// default applies.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Per-request timeout of the extension, milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub timeout_ms: u64,
    /// Replace files that exist and differ.
    #[arg(long)]
    pub force: bool,
}

/// Writes the extension and its settings; exit 0, or 2 naming what could not be written.
pub fn run(args: InitPiArgs) -> ExitCode {
    let cfg = match config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::super::EXIT_CONFIG);
        }
    };
    let settings = json!({
        "url": format!("ws://{}/v1/control", cfg.server.listen),
        "tokenFile": cfg.state_dir.join("adapter.token"),
        "timeoutMs": args.timeout_ms,
    });
    let pi_dir = args.dir.join(".pi");
    let mut files: Vec<(PathBuf, Vec<u8>)> = FILES
        .iter()
        .map(|(name, text)| (pi_dir.join("extensions").join(name), text.as_bytes().to_vec()))
        .collect();
    let mut settings_text = serde_json::to_vec_pretty(&settings).unwrap_or_default();
    settings_text.push(b'\n');
    files.push((pi_dir.join("blindfold.json"), settings_text));
    for (path, contents) in files {
        match install(&path, &contents, args.force) {
            Ok(true) => println!("wrote {}", path.display()),
            Ok(false) => println!("unchanged {}", path.display()),
            Err(e) => return super::super::usage_error(e),
        }
    }
    ExitCode::SUCCESS
}
