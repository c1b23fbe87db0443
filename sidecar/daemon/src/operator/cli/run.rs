//! `blindfold run`: validate the whole config, then bind, serve, and stop cleanly on a signal.

use crate::config;
use crate::runtime::app::App;
use crate::runtime::metrics::labels::Transport;
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
    let runtime = match super::serving_runtime(cfg.server.workers) {
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
    let _model_proxy =
        match crate::transports::model_proxy::spawn_configured(&app.for_transport(Transport::ModelProxy))
            .await
        {
            Ok(handle) => handle,
            Err(e) => {
                eprintln!("blindfold: {e}");
                return ExitCode::from(1);
            }
        };
    let opencode = app.for_transport(Transport::OpenCode);
    let _opencode = crate::harnesses::opencode::spawn_follower(
        &opencode,
        std::sync::Arc::new(crate::harnesses::opencode::hold::QueueHolds(opencode.clone())),
    );
    let _webhook = crate::runtime::notify::spawn(&app);
    tracing::info!(%listen, state_dir = %app.config.state_dir.display(), workers = app.config.server.workers, modes = ?app.modes(), "blindfold listening");
    let router = routes(&app);
    let limits = app.config.limits;
    let sweeper = spawn_trajectory_sweeper(app.clone());
    let stop = tokio_util::sync::CancellationToken::new();
    let unix = match app.config.server.control_socket.as_deref() {
        None => None,
        Some(path) => match crate::operator::control::unix_socket::ControlSocket::bind(path) {
            Ok((socket, unix_listener)) => {
                tracing::info!(path = %socket.path().display(), "control API on a Unix socket (0600)");
                let listener = crate::transports::limits::LimitedListener::new(unix_listener, limits);
                app.metrics.listener("control_socket", listener.open_count());
                let router = crate::operator::control::router(app.for_transport(Transport::Control));
                let served = crate::transports::server::serve(
                    listener,
                    router,
                    limits,
                    crate::transports::hygiene::Hygiene::from_config(&app.config),
                    stop.clone().cancelled_owned(),
                );
                Some(tokio::spawn(async move {
                    served.await;
                    drop(socket);
                }))
            }
            Err(e) => {
                eprintln!("blindfold: {e}");
                return ExitCode::from(1);
            }
        },
    };
    let listener = crate::transports::limits::LimitedListener::tcp(listener, limits);
    app.metrics.listener("main", listener.open_count());
    let signal = stop.clone();
    tokio::spawn(async move {
        shutdown_signal().await;
        signal.cancel();
    });
    let hygiene = crate::transports::hygiene::Hygiene::from_config(&app.config);
    crate::transports::server::serve(listener, router, limits, hygiene, stop.cancelled_owned()).await;
    sweeper.abort();
    if let Some(unix) = unix {
        let _ = unix.await;
    }
    app.apply_all_deferred();
    if let Some(Err(e)) = app.trace.as_ref().map(|t| t.flush()) {
        tracing::error!(error = %e, "trace not flushed at shutdown");
    }
    tracing::info!("blindfold stopped");
    ExitCode::SUCCESS
}

/// Every route of the loopback listener: health and the control API, the relays that are
/// configured, the console and `/metrics`. Each transport decides through its own handle, so its
/// decisions are counted under its name.
fn routes(app: &App) -> axum::Router {
    let mut router = crate::operator::control::router(app.for_transport(Transport::Control));
    if let Some(mcp) = crate::transports::mcp::http::router(&app.for_transport(Transport::McpHttp)) {
        router = router.merge(mcp);
    }
    if let Some(a2a) = crate::transports::a2a::router(&app.for_transport(Transport::A2a)) {
        router = router.merge(a2a);
    }
    if let Some(ws) = crate::transports::ws_relay::router(&app.for_transport(Transport::WsRelay)) {
        router = router.merge(ws);
    }
    if let Some(console) = crate::operator::console::router(app) {
        router = router.merge(console);
    }
    if let Some(metrics) = crate::operator::scrape::router(app) {
        router = router.merge(metrics);
    }
    router.fallback(crate::transports::server::no_route)
}

/// Evicts idle trajectories every quarter of `limits.trajectory_idle_s` (between 1 s and a
/// minute), until aborted.
fn spawn_trajectory_sweeper(app: App) -> tokio::task::JoinHandle<()> {
    let period = (app.config.limits.trajectory_idle / 4)
        .clamp(std::time::Duration::from_secs(1), std::time::Duration::from_secs(60));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            app.sweep_trajectories();
        }
    })
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
