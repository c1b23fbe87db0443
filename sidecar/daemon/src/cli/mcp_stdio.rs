//! `blindfold mcp-stdio -- CMD ARGS…`: run a local MCP server behind Blindfold's gate.

use crate::app::App;
use crate::config;
use crate::mcp::{GrantFiles, McpGate, McpPolicy, stdio};
use clap::Args;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

/// Arguments of `blindfold mcp-stdio`.
#[derive(Debug, Args)]
pub struct McpStdioArgs {
    /// Configuration file (TOML); without it the embedded default applies.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Trajectory id (pin it to issue grants ahead of time); default: a fresh random id,
    /// printed on stderr.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// A file of grant tokens (one per line), read before each effectful call, in addition
    /// to `<state dir>/grants/`. Repeatable.
    #[arg(long, value_name = "FILE")]
    pub grant_file: Vec<PathBuf>,
    /// Trust this server's tool annotations (overrides `[mcp] trusted`).
    #[arg(long)]
    pub trusted: bool,
    /// Allow only these tools (repeatable; overrides `[mcp] allow_tools`).
    #[arg(long, value_name = "TOOL")]
    pub allow_tool: Vec<String>,
    /// The MCP server command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Runs the relay; exits with the server's exit code.
pub fn run(args: McpStdioArgs) -> ExitCode {
    let cfg = match config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::EXIT_CONFIG);
        }
    };
    let app = match App::open(cfg) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::EXIT_CONFIG);
        }
    };
    let mut policy = McpPolicy::from_config(&app);
    policy.trusted |= args.trusted;
    if !args.allow_tool.is_empty() {
        policy.allow_tools = args.allow_tool.clone();
    }
    let task = args.task.clone().unwrap_or_else(|| format!("mcp-{:016x}", rand::random::<u64>()));
    eprintln!("blindfold: mcp-stdio trajectory {task}");
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return super::usage_error(format!("cannot start runtime: {e}")),
    };
    let code = runtime.block_on(async move {
        let (program, rest) = args.command.split_first().expect("clap requires a command");
        let child = tokio::process::Command::new(program)
            .args(rest)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn();
        let child = match child {
            Ok(c) => c,
            Err(e) => {
                eprintln!("blindfold: cannot start {program}: {e}");
                return 127;
            }
        };
        let max = policy.max_frame;
        let grants = GrantFiles::new(&app, args.grant_file.clone());
        stdio::relay(McpGate::new(&app, task, policy, Some(grants)), child, max).await
    });
    // Leave without waiting for the blocked stdin reader thread.
    std::process::exit(code)
}
