//! The daemon's shared state: validated config, live modes, grants and their stores.

use crate::config::{Config, Modes};
use crate::state::{RedbGrantStore, Tokens, ensure_private_dir};
use blindfold_engine::grants::{GrantCache, GrantStore};
use std::sync::Arc;
use tokio::sync::watch;

/// Everything a request handler may need, cheap to clone.
#[derive(Clone)]
pub struct App {
    /// The validated configuration.
    pub config: Arc<Config>,
    /// Verified grants submitted on the trusted path.
    pub grants: Arc<GrantCache>,
    /// Used and revoked grant ids (durable).
    pub store: Arc<dyn GrantStore>,
    /// Control API capability tokens.
    pub tokens: Tokens,
    /// Live modes: a toggle applies to connections already open (read per message).
    pub modes: Arc<watch::Sender<Modes>>,
}

impl App {
    /// Prepares the state directory (0700), tokens (0600) and the durable grant store.
    pub fn open(config: Config) -> Result<Self, String> {
        ensure_private_dir(&config.state_dir)
            .map_err(|e| format!("state.dir {}: {e}", config.state_dir.display()))?;
        let tokens = Tokens::load_or_create(&config.state_dir)?;
        let store = RedbGrantStore::open(&config.state_dir).map_err(|e| e.to_string())?;
        let (modes, _) = watch::channel(config.modes);
        Ok(Self {
            config: Arc::new(config),
            grants: Arc::new(GrantCache::new()),
            store: Arc::new(store),
            tokens,
            modes: Arc::new(modes),
        })
    }

    /// The modes in force now.
    pub fn modes(&self) -> Modes {
        *self.modes.borrow()
    }
}
