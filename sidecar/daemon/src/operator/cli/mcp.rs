//! `blindfold mcp pins|accept-tool`: the operator's side of MCP tool-definition pinning. It works
//! on `<state dir>/mcp-pins.json` directly (relays reload it when it changes), so it needs no
//! running daemon and takes effect at once in one that runs.

use crate::config;
use crate::transports::mcp::pins::ToolPins;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// `blindfold mcp …`.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// List pinned tools per server; changed definitions awaiting acceptance are marked.
    Pins(PinsArgs),
    /// Accept the changed definition of a tool as its new pin: its calls are decided again.
    AcceptTool(AcceptArgs),
}

/// Arguments of `mcp pins`.
#[derive(Debug, Args)]
pub struct PinsArgs {
    /// Configuration file (its state directory); without it the embedded default applies.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print JSON (with both definitions) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `mcp accept-tool`.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// Configuration file (its state directory); without it the embedded default applies.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The server id as listed by `blindfold mcp pins` (`stdio:CMD ARGS…`, `http:URL`).
    #[arg(long)]
    pub server: String,
    /// The tool name.
    #[arg(long)]
    pub tool: String,
}

fn pins(config: Option<&std::path::Path>) -> Result<ToolPins, ExitCode> {
    match config::load(config) {
        Ok(c) => Ok(ToolPins::open(&c.state_dir)),
        Err(e) => {
            eprintln!("blindfold: {e}");
            Err(ExitCode::from(super::EXIT_CONFIG))
        }
    }
}

/// Runs `blindfold mcp …`.
pub fn run(cmd: McpCommand) -> ExitCode {
    match cmd {
        McpCommand::Pins(a) => {
            let store = match pins(a.config.as_deref()) {
                Ok(p) => p,
                Err(code) => return code,
            };
            let file = match store.load() {
                Ok(f) => f,
                Err(e) => return super::usage_error(e.to_string()),
            };
            if a.json {
                println!("{}", serde_json::to_string_pretty(&*file).unwrap_or_default());
                return ExitCode::SUCCESS;
            }
            for (server, tools) in &file.servers {
                for (tool, pin) in tools {
                    let state = match &pin.changed {
                        Some(c) => format!(
                            "CHANGED {} → {} (calls go to review)",
                            &pin.sha256[..12],
                            &c.sha256[..12]
                        ),
                        None => format!("pinned {}", &pin.sha256[..12]),
                    };
                    println!("{server}\t{tool}\t{state}");
                }
            }
            ExitCode::SUCCESS
        }
        McpCommand::AcceptTool(a) => {
            let store = match pins(a.config.as_deref()) {
                Ok(p) => p,
                Err(code) => return code,
            };
            match store.accept(&a.server, &a.tool, crate::unix_now_ms()) {
                Ok(Some(pin)) => {
                    println!("accepted `{}` on `{}`: pinned {}", a.tool, a.server, &pin.sha256[..12]);
                    ExitCode::SUCCESS
                }
                Ok(None) => super::usage_error(format!(
                    "no changed definition of `{}` on `{}` awaits acceptance (see `blindfold mcp pins`)",
                    a.tool, a.server
                )),
                Err(e) => super::usage_error(e.to_string()),
            }
        }
    }
}
