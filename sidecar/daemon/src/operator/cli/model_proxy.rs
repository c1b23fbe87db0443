//! `blindfold model-proxy`: the model-API proxy on its own, with health and the control API on
//! the same listener (so grants can be submitted for the trajectories it serves).

use crate::config;
use crate::runtime::app::App;
use crate::transports::model_proxy::{self, Proxy};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `blindfold model-proxy`.
#[derive(Debug, Args)]
pub struct ModelProxyArgs {
    /// Base URL of the model API (`http://host:port[/prefix]`); overrides `model_proxy.upstream`.
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// Loopback `host:port` to listen on; overrides `model_proxy.listen`.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Configuration file (TOML); without it the embedded default.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Pin the trajectory id (grants name it); overrides `model_proxy.task`.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
}

/// Validates the configuration with the flags applied, then serves until SIGINT/SIGTERM.
pub fn run(args: ModelProxyArgs) -> ExitCode {
    let cfg = match load(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::EXIT_CONFIG);
        }
    };
    super::run::init_logging();
    let runtime = match super::serving_runtime(cfg.server.workers) {
        Ok(rt) => rt,
        Err(e) => return super::usage_error(format!("cannot start runtime: {e}")),
    };
    runtime.block_on(serve(cfg))
}

fn load(args: &ModelProxyArgs) -> Result<config::Config, config::ConfigError> {
    let mut cfg = config::load(args.config.as_deref())?;
    let mut raw = cfg.raw.model_proxy.clone();
    if let Some(u) = &args.upstream {
        raw.upstream = u.clone();
    }
    if let Some(l) = &args.listen {
        raw.listen = l.clone();
    }
    if let Some(t) = &args.task {
        raw.task = t.clone();
    }
    cfg.model_proxy = raw.validate()?;
    if cfg.model_proxy.upstream.is_none() {
        return Err(config::ConfigError::field("model_proxy.upstream", "required: pass --upstream URL"));
    }
    cfg.raw.model_proxy = raw;
    Ok(cfg)
}

async fn serve(cfg: config::Config) -> ExitCode {
    let app = match App::open(cfg) {
        Ok(app) => app.for_transport(crate::runtime::metrics::labels::Transport::ModelProxy),
        Err(e) => {
            eprintln!("blindfold: {e}");
            return ExitCode::from(super::EXIT_CONFIG);
        }
    };
    let mp = app.config.model_proxy.clone();
    let upstream = mp.upstream.clone().unwrap_or_default();
    let listener = match tokio::net::TcpListener::bind(mp.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("blindfold: cannot listen on {}: {e}", mp.listen);
            return ExitCode::from(1);
        }
    };
    let router = crate::operator::control::router(app.clone()).merge(model_proxy::router(Proxy::new(
        app.clone(),
        &upstream,
        &mp,
    )));
    tracing::info!(listen = %mp.listen, upstream = %upstream, modes = ?app.modes(), "blindfold model-proxy listening");
    let limits = app.config.limits;
    let listener = crate::transports::limits::LimitedListener::tcp(listener, limits);
    let hygiene = crate::transports::hygiene::Hygiene::from_config(&app.config);
    crate::transports::server::serve(listener, router, limits, hygiene, super::run::shutdown_signal()).await;
    if let Some(Err(e)) = app.trace.as_ref().map(|t| t.flush()) {
        tracing::error!(error = %e, "trace not flushed at shutdown");
    }
    ExitCode::SUCCESS
}
