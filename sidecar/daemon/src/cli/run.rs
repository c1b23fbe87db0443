//! `blindfold run`: validate the whole config, then bind, serve, and stop cleanly on a signal.

use crate::app::App;
use crate::config;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `blindfold run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Configuration file (TOML); without it the embedded default runs.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the effective configuration (after file and BLINDFOLD_… variables) and exit.
    #[arg(long)]
    pub print_config: bool,
}

/// Starts the daemon; returns when it has stopped.
pub fn run(args: RunArgs) -> ExitCode {
    let cfg = match config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::EXIT_CONFIG);
        }
    };
    if args.print_config {
        return match toml::to_string_pretty(&cfg.raw) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => super::usage_error(e),
        };
    }
    init_logging();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => return super::usage_error(format!("cannot start runtime: {e}")),
    };
    runtime.block_on(serve(cfg))
}

async fn serve(cfg: config::Config) -> ExitCode {
    let listen = cfg.server.listen;
    let app = match App::open(cfg) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::EXIT_CONFIG);
        }
    };
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("blindfold: cannot listen on {listen}: {e}");
            return ExitCode::from(1);
        }
    };
    let _model_proxy = match crate::model_proxy::spawn_configured(&app).await {
        Ok(handle) => handle,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(1);
        }
    };
    let _opencode = crate::opencode::spawn_follower(
        &app,
        std::sync::Arc::new(crate::opencode::hold::QueueHolds(app.clone())),
    );
    tracing::info!(%listen, state_dir = %app.config.state_dir.display(), modes = ?app.modes(), "blindfold listening");
    let mut router = crate::control::router(app.clone());
    if let Some(mcp) = crate::mcp::http::router(&app) {
        router = router.merge(mcp);
    }
    if let Some(a2a) = crate::a2a::router(&app) {
        router = router.merge(a2a);
    }
    if let Some(ws) = crate::ws_relay::router(&app) {
        router = router.merge(ws);
    }
    let limits = app.config.limits;
    let router = crate::limits::with_header_limit(router, &limits);
    let listener = crate::limits::LimitedListener::new(listener, limits);
    let served = axum::serve(listener, router).with_graceful_shutdown(shutdown_signal()).await;
    match served {
        Ok(()) => {
            tracing::info!("blindfold stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("blindfold: server error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
pub(crate) async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term.recv() => {},
    }
}

/// Libraries that log whole messages (grant tokens, capability tokens) at their most verbose
/// levels: capped whatever `BLINDFOLD_LOG` asks, so secrets never reach the log.
const QUIET_TARGETS: [&str; 2] = ["tungstenite=info", "tokio_tungstenite=info"];

pub(crate) fn init_logging() {
    let mut filter = tracing_subscriber::EnvFilter::try_from_env("BLINDFOLD_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    for directive in QUIET_TARGETS {
        if let Ok(d) = directive.parse() {
            filter = filter.add_directive(d);
        }
    }
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
