//! `blindfold mcp-stdio -- CMD ARGS…`: run a local MCP server behind Blindfold's gate — deciding
//! alone (its own state dir), or with `--daemon ws://…` asking a running `blindfold run` that
//! uses the same state dir (its trajectories, grants, replay state and trace).

use crate::config;
use crate::transports::mcp::{GrantFiles, McpConnection, McpPolicy, RemoteControl, stdio};
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
    /// Ask the running daemon at this control URL (`ws://127.0.0.1:7700`) for every decision,
    /// with the adapter token of the configured state dir; grant files are submitted to it with
    /// the operator token, and their grants that can no longer allow anything are forgotten
    /// there and pruned from `<state>/grants/`. An unreachable daemon denies every call (fail
    /// closed).
    #[arg(long, value_name = "URL")]
    pub daemon: Option<String>,
    /// Allow only these tools (repeatable; overrides `[mcp] allow_tools`).
    #[arg(long, value_name = "TOOL")]
    pub allow_tool: Vec<String>,
    /// The agent whose calls this relay carries, by its real name (a sub-agent's own MCP server;
    /// one of `[[identity.agents]]`): its effectful calls then need an independent verification
    /// like any sub-agent action. Default: the coordinator's calls.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// The MCP server command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Runs the relay; exits with the server's exit code.
pub fn run(args: McpStdioArgs) -> ExitCode {
    let cfg = match super::load_config(args.config.as_deref()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let remote = match args.daemon.as_deref().map(|url| remote_control(url, &cfg)).transpose() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::EXIT_CONFIG);
        }
    };
    // With a daemon, the daemon's state dir is its own (its store is locked): this process keeps
    // only a private scratch dir below it, and the trace is the daemon's.
    let scratch = remote.as_ref().map(|_| cfg.state_dir.join(format!("relay-{}", std::process::id())));
    // The configured state dir's `grants/`, also with a daemon (the scratch dir has none).
    let grants_dir = cfg.state_dir.join("grants");
    let grant_files = args.grant_file.clone();
    let pins_dir = cfg.state_dir.clone();
    let mut cfg = cfg;
    if let Some(dir) = &scratch {
        cfg.set_state_dir(dir.clone());
        cfg.trace.enabled = false;
    }
    let app = match super::open_app(cfg) {
        Ok(a) => a.for_transport(crate::runtime::metrics::labels::Transport::McpStdio),
        Err(code) => return code,
    };
    let mut remote = remote;
    if let Some(r) = remote.as_mut() {
        match r.call("status", serde_json::json!({})) {
            Ok(status) => match serde_json::from_value(status["modes"].clone()) {
                Ok(modes) => {
                    app.modes.send_replace(modes);
                }
                Err(e) => eprintln!("blindfold: the daemon's modes are unreadable: {e}"),
            },
            Err(e) => {
                eprintln!("blindfold: the daemon at {} is unreachable (every call is refused): {e}", r.url())
            }
        }
    }
    let mut policy = McpPolicy::from_config(&app);
    policy.trusted |= args.trusted;
    policy.server = format!("stdio:{}", args.command.join(" "));
    if !args.allow_tool.is_empty() {
        policy.allow_tools = args.allow_tool.clone();
    }
    policy.actor = args.agent.clone();
    let task = args.task.clone().unwrap_or_else(|| format!("mcp-{:016x}", rand::random::<u64>()));
    eprintln!("blindfold: mcp-stdio trajectory {task}");
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return super::usage_error(format!("cannot start runtime: {e}")),
    };
    let trace = app.trace.clone();
    let code = runtime.block_on(async move {
        let (program, rest) = args.command.split_first().expect("clap requires a command");
        // Blocking pipes: the relay reads and writes them on its own threads.
        let child = std::process::Command::new(program)
            .args(rest)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn();
        let child = match child {
            Ok(c) => c,
            Err(e) => {
                eprintln!("blindfold: cannot start {program}: {e}");
                return 127;
            }
        };
        let max = policy.max_frame;
        let grants = GrantFiles::in_dir(grants_dir, grant_files);
        let mut gate = McpConnection::new(&app, task, policy, Some(grants));
        if let Some(r) = remote {
            gate = gate.with_remote(r).with_pins(crate::transports::mcp::pins::ToolPins::open(&pins_dir));
        }
        stdio::relay(gate, child, max, app.config.transports.upstream_timeout).await
    });
    if let Some(Err(e)) = trace.as_ref().map(|t| t.flush()) {
        eprintln!("blindfold: {e}");
    }
    if let Some(dir) = scratch {
        let _ = std::fs::remove_dir_all(dir);
    }
    // Leave without waiting for the blocked stdin reader thread.
    std::process::exit(code)
}

/// The daemon's control client: adapter token from the configured state dir (required), operator
/// token (optional, for grant files).
fn remote_control(url: &str, cfg: &config::Config) -> Result<RemoteControl, String> {
    let read = |name: &str| std::fs::read_to_string(cfg.state_dir.join(name)).map(|t| t.trim().to_owned());
    let token = read("adapter.token").map_err(|e| {
        format!(
            "--daemon: no adapter token in {} ({e}); use the daemon's [state] dir",
            cfg.state_dir.display()
        )
    })?;
    let operator = read("operator.token").ok();
    RemoteControl::new(url, token, operator, cfg.transports.upstream_timeout)
}
