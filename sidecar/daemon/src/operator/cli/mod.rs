//! The command line: one subcommand per file, each returning its exit code.

mod doctor;
mod evidence;
mod grant;
mod grant_admin;
mod grant_submit;
mod init;
mod keygen;
mod mcp;
mod mcp_stdio;
mod model_proxy;
mod pi;
mod replay;
mod review;
mod run;
mod trace;
mod why;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit code for a usage error (bad flags, unreadable inputs).
pub const EXIT_USAGE: u8 = 2;
/// Exit code for a bad configuration (sysexits EX_USAGE).
pub const EXIT_CONFIG: u8 = 64;

/// Blindfold: an identity-blind, verify-before-execute, grant-checking sidecar for multi-agent
/// harnesses.
#[derive(Debug, Parser)]
#[command(
    name = "blindfold",
    version,
    about = "Blindfold: identity-blind routing, pre-action verification, signed grants and authority traces for multi-agent harnesses.",
    propagate_version = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the daemon (health endpoint and WebSocket control API).
    Run(run::RunArgs),
    /// Create an Ed25519 issuer key pair (NAME.key.pem 0600, NAME.pub.pem) and print its key id.
    Keygen(keygen::KeygenArgs),
    /// Issue (exact or scoped), check, revoke, list and show signed grants.
    #[command(subcommand)]
    Grant(grant::GrantCommand),
    /// Relay a local MCP server (stdio) through Blindfold's gate: `mcp-stdio -- CMD ARGS…`.
    McpStdio(mcp_stdio::McpStdioArgs),
    /// MCP tool-definition pins: list them, accept a changed definition.
    #[command(subcommand)]
    Mcp(mcp::McpCommand),
    /// Verify, summarize and render authority traces.
    #[command(subcommand)]
    Trace(trace::TraceCommand),
    /// Replay scenario files through the engine once per mode and score them (SPEC §11).
    Replay(replay::ReplayArgs),
    /// OpenAI/Anthropic-compatible proxy for the coordinator's model traffic (identity scrubbed,
    /// tool calls decided).
    ModelProxy(model_proxy::ModelProxyArgs),
    /// Install Blindfold's adapter into a harness project (`init pi`, `init opencode`, `init openclaw`).
    #[command(subcommand)]
    Init(init::InitCommand),
    /// Embed a Pi session behind Blindfold: `pi-rpc -- pi --mode rpc ARGS…`.
    PiRpc(pi::PiRpcArgs),
    /// The review queue of the running daemon: list, show, approve (signs a grant), reject.
    #[command(subcommand)]
    Review(review::ReviewCommand),
    /// A live trajectory's evidence in the running daemon: list it, revoke an artifact.
    #[command(subcommand)]
    Evidence(evidence::EvidenceCommand),
    /// Why a call was refused, and the exact grant command that would allow it (the daemon keeps
    /// the last 1024 refusals in its state directory: they survive a restart).
    Why(why::WhyArgs),
    /// Check a harness project's wiring: daemon up, plugin installed and registered, the model
    /// provider through the proxy, sessions paired; says what is missing.
    Doctor(doctor::DoctorArgs),
}

/// Runs the parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Keygen(args) => keygen::run(args),
        Command::Grant(cmd) => grant::run(cmd),
        Command::McpStdio(args) => mcp_stdio::run(args),
        Command::Mcp(cmd) => mcp::run(cmd),
        Command::Trace(cmd) => trace::run(cmd),
        Command::Replay(args) => replay::run(args),
        Command::ModelProxy(args) => model_proxy::run(args),
        Command::Init(cmd) => init::run(cmd),
        Command::PiRpc(args) => pi::run(args),
        Command::Review(cmd) => review::run(cmd),
        Command::Evidence(cmd) => evidence::run(cmd),
        Command::Why(args) => why::run(args),
        Command::Doctor(args) => doctor::run(args),
    }
}

/// Loads the configuration (`path`, else the embedded default); a bad one is reported on stderr
/// and becomes the configuration exit code.
pub(crate) fn load_config(path: Option<&std::path::Path>) -> Result<crate::config::Config, ExitCode> {
    let config = crate::config::load(path).map_err(|e| {
        eprintln!("blindfold: {e}");
        ExitCode::from(EXIT_CONFIG)
    })?;
    Ok(config)
}

/// Opens the application state for `cfg`; a failure (state dir, store, keys) is reported on
/// stderr and becomes the configuration exit code.
pub(crate) fn open_app(cfg: crate::config::Config) -> Result<crate::runtime::app::App, ExitCode> {
    crate::runtime::app::App::open(cfg).map_err(|e| {
        eprintln!("blindfold: {e}");
        ExitCode::from(EXIT_CONFIG)
    })
}

/// The runtime a serving command runs on: multi-threaded (so a durable trace wait can hand its
/// worker over) with `workers` workers (`[server] workers`).
pub(crate) fn serving_runtime(workers: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(workers.max(1)).enable_all().build()
}

/// Prints `message` to stderr and returns the usage exit code.
pub(crate) fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("blindfold: {message}");
    ExitCode::from(EXIT_USAGE)
}
