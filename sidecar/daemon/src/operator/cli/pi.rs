//! `blindfold pi-rpc -- pi --mode rpc ARGS…`: embed a Pi session behind Blindfold. The driver
//! owns the engine, serves the control API on a private loopback port for the Pi extension in
//! the session (and its child `pi` processes), and relays the RPC lines (see `pi::rpc`).

use clap::Args;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

/// Arguments of `blindfold pi-rpc`.
#[derive(Debug, Args)]
pub struct PiRpcArgs {
    /// Configuration file (TOML); without it the embedded default applies.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Trajectory id (pin it to issue grants ahead of time); default: a fresh random id,
    /// printed on stderr.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Load Blindfold's Pi extension from here (`-e PATH`); without it the project must have it
    /// installed (`blindfold init pi`), which child `pi` processes need anyway.
    #[arg(long, value_name = "PATH")]
    pub extension: Option<PathBuf>,
    /// The `pi` command and its arguments (after `--`), e.g. `pi --mode rpc --no-session`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Runs the driver; exits with `pi`'s exit code.
pub fn run(args: PiRpcArgs) -> ExitCode {
    let cfg = match super::load_config(args.config.as_deref()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let max = cfg.transports.max_frame_bytes;
    let workers = cfg.server.workers;
    let token_file = cfg.state_dir.join("adapter.token");
    let app = match super::open_app(cfg) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let token = match std::fs::read_to_string(&token_file) {
        Ok(t) => t.trim().to_owned(),
        Err(e) => return super::usage_error(format!("{}: {e}", token_file.display())),
    };
    let task = args.task.clone().unwrap_or_else(|| format!("pi-{:016x}", rand::random::<u64>()));
    eprintln!("blindfold: pi-rpc trajectory {task}");
    let runtime = match super::serving_runtime(workers) {
        Ok(rt) => rt,
        Err(e) => return super::usage_error(format!("cannot start runtime: {e}")),
    };
    let trace = app.trace.clone();
    let code = runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("blindfold: cannot listen on loopback: {e}");
                return 1;
            }
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let router = crate::operator::control::router(app.clone());
        let listener = axum::serve::ListenerExt::tap_io(listener, crate::transports::limits::nodelay);
        tokio::spawn(async move { axum::serve(listener, router).await });
        let (program, rest) = args.command.split_first().expect("clap requires a command");
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(rest);
        if let Some(ext) = &args.extension {
            cmd.arg("-e").arg(ext);
        }
        let child = cmd
            .env("BLINDFOLD_CONTROL_URL", format!("ws://127.0.0.1:{port}/v1/control"))
            .env("BLINDFOLD_ADAPTER_TOKEN", &token)
            .env("BLINDFOLD_TRAJECTORY", &task)
            .env_remove("BLINDFOLD_ADAPTER_TOKEN_FILE")
            .env_remove("BLINDFOLD_PI_PARENT")
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
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        crate::harnesses::pi::rpc::relay(app, task, child, stdin, tokio::io::stdout(), max).await
    });
    if let Some(Err(e)) = trace.as_ref().map(|t| t.flush()) {
        eprintln!("blindfold: {e}");
    }
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
