//! The connection to Redis: a maintained client (`redis` with its tokio connection manager,
//! which reconnects by itself) driven by a runtime of its own on one thread, so the synchronous
//! decision path can wait for an answer from any thread — a daemon worker, a relay, a test —
//! without ever blocking the runtime that serves connections. Every round trip is bounded: an
//! answer slower than `[state.redis] timeout_ms` is an error (a refusal upstream), never a wait.

use crate::config::RedisConfig;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, Pipeline, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Why Redis could not give an answer. Every variant names the backend (`redis at HOST:PORT`).
#[derive(Debug, Clone, thiserror::Error)]
pub enum BackendError {
    /// Not reachable, connection lost, or refused.
    #[error("{backend} is unreachable: {detail}")]
    Unreachable {
        /// `redis at HOST:PORT`.
        backend: String,
        /// What the client said.
        detail: String,
    },
    /// No answer within the bound.
    #[error("{backend} did not answer within {bound_ms} ms")]
    Slow {
        /// `redis at HOST:PORT`.
        backend: String,
        /// The bound.
        bound_ms: u128,
    },
    /// An answer Blindfold cannot use (a server error, a wrong type, a malformed entry).
    #[error("{backend} answered badly: {detail}")]
    BadAnswer {
        /// `redis at HOST:PORT`.
        backend: String,
        /// What was wrong.
        detail: String,
    },
    /// Reachable, but not fit to hold the state (durability settings, a lost feed).
    #[error("{backend} is not usable: {detail}")]
    NotReady {
        /// `redis at HOST:PORT`.
        backend: String,
        /// Why.
        detail: String,
    },
}

/// Extra time the waiting side gives the bridge beyond the bound (scheduling, one wake-up).
const SLACK: Duration = Duration::from_millis(50);

/// What a round trip is for, so that the decision path's own can be counted (the benchmark
/// states them per effectful decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trip {
    /// A grant's use, a review's hold or answer.
    Decision,
    /// Anything else.
    Background,
}

/// One Redis server, as every part of the daemon talks to it.
#[derive(Clone)]
pub struct RedisClient {
    inner: Arc<Inner>,
}

struct Inner {
    client: redis::Client,
    manager: ConnectionManager,
    runtime: tokio::runtime::Handle,
    name: String,
    bound: Duration,
    /// Round trips of the decision path: grant uses, review holds and answers.
    round_trips: AtomicU64,
    /// Round trips of everything else: the feed's catch-ups and connections, the settings check,
    /// revoking, sweeping, listing.
    background_round_trips: AtomicU64,
}

impl RedisClient {
    /// Prepares the client and its bridge thread; connects lazily (a server that is down at
    /// start is retried, and effects are refused until it answers).
    pub fn open(config: &RedisConfig) -> Result<Self, BackendError> {
        let name = config.name();
        let password = read_password(config).map_err(|detail| BackendError::NotReady {
            backend: name.clone(),
            detail: format!("state.redis.password_file: {detail}"),
        })?;
        let client = build_client(config, password.as_deref()).map_err(|e| BackendError::NotReady {
            backend: name.clone(),
            detail: format!("client setup: {e}"),
        })?;
        let runtime = bridge_runtime().map_err(|e| BackendError::NotReady {
            backend: name.clone(),
            detail: format!("bridge thread: {e}"),
        })?;
        let manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.timeout))
            .set_response_timeout(Some(config.timeout))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let manager = {
            let _entered = runtime.enter();
            ConnectionManager::new_lazy_with_config(client.clone(), manager_config)
        }
        .map_err(|e| BackendError::NotReady { backend: name.clone(), detail: e.to_string() })?;
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                manager,
                runtime,
                name,
                bound: config.timeout,
                round_trips: AtomicU64::new(0),
                background_round_trips: AtomicU64::new(0),
            }),
        })
    }

    /// `redis at HOST:PORT`.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The bound on one round trip.
    pub fn bound(&self) -> Duration {
        self.inner.bound
    }

    /// Round trips the decision path has sent so far (the benchmark states them per decision).
    pub fn round_trips(&self) -> u64 {
        self.inner.round_trips.load(Ordering::Relaxed)
    }

    /// Round trips sent so far for everything but decisions: the feed's catch-ups and
    /// connections, the durability settings check, revoking, sweeping, listing.
    pub fn background_round_trips(&self) -> u64 {
        self.inner.background_round_trips.load(Ordering::Relaxed)
    }

    /// The bridge runtime, for the tasks that follow Redis (the revocation feed).
    pub fn runtime(&self) -> &tokio::runtime::Handle {
        &self.inner.runtime
    }

    /// Sends `pipe` as one round trip of the background (the feed, the settings check) and
    /// returns its answers, bounded.
    pub async fn query(&self, pipe: &Pipeline) -> Result<Vec<Value>, BackendError> {
        self.inner.background_round_trips.fetch_add(1, Ordering::Relaxed);
        self.send(pipe).await
    }

    async fn send(&self, pipe: &Pipeline) -> Result<Vec<Value>, BackendError> {
        let mut conn = self.inner.manager.clone();
        match tokio::time::timeout(self.inner.bound, pipe.query_async::<Vec<Value>>(&mut conn)).await {
            Err(_) => Err(self.slow()),
            Ok(Err(e)) => Err(self.classify(&e)),
            Ok(Ok(values)) => Ok(values),
        }
    }

    /// One round trip, counted as `trip` says, from synchronous code on any thread: the
    /// pipeline runs on the bridge and this thread waits at most the bound (a tokio worker is
    /// handed over first, so the daemon's other connections go on meanwhile).
    pub fn query_blocking(&self, pipe: Pipeline, trip: Trip) -> Result<Vec<Value>, BackendError> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        match trip {
            Trip::Decision => &self.inner.round_trips,
            Trip::Background => &self.inner.background_round_trips,
        }
        .fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let me = self.clone();
        self.inner.runtime.spawn(async move {
            let _ = tx.send(me.send(&pipe).await);
        });
        let limit = self.inner.bound + SLACK;
        let wait = move || rx.recv_timeout(limit).unwrap_or_else(|_| Err(self.slow()));
        let multi = Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread);
        if multi { tokio::task::block_in_place(wait) } else { wait() }
    }

    /// A connection of its own for blocking reads (`XREAD BLOCK`), whose answers may take up to
    /// `block` plus the bound.
    pub async fn dedicated(&self, block: Duration) -> Result<MultiplexedConnection, BackendError> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.inner.bound))
            .set_response_timeout(Some(block + self.inner.bound));
        self.inner.background_round_trips.fetch_add(1, Ordering::Relaxed);
        let connect = self.inner.client.get_multiplexed_async_connection_with_config(&config);
        match tokio::time::timeout(self.inner.bound * 4, connect).await {
            Err(_) => Err(self.slow()),
            Ok(Err(e)) => Err(self.classify(&e)),
            Ok(Ok(c)) => Ok(c),
        }
    }

    /// The error for an answer that did not come in time.
    pub fn slow(&self) -> BackendError {
        BackendError::Slow { backend: self.inner.name.clone(), bound_ms: self.inner.bound.as_millis() }
    }

    /// The error for an answer of the wrong shape.
    pub fn bad(&self, detail: impl Into<String>) -> BackendError {
        BackendError::BadAnswer { backend: self.inner.name.clone(), detail: detail.into() }
    }

    /// The error for a server that answers but cannot be used.
    pub fn not_ready(&self, detail: impl Into<String>) -> BackendError {
        BackendError::NotReady { backend: self.inner.name.clone(), detail: detail.into() }
    }

    /// Sorts a client error: connection trouble, a timeout, or a bad answer.
    pub fn classify(&self, e: &redis::RedisError) -> BackendError {
        if e.is_timeout() {
            return self.slow();
        }
        if e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() {
            return BackendError::Unreachable { backend: self.inner.name.clone(), detail: e.to_string() };
        }
        self.bad(e.to_string())
    }
}

/// The password in `[state.redis] password_file` (a file others cannot read), if one is named.
fn read_password(config: &RedisConfig) -> Result<Option<String>, String> {
    let Some(path) = &config.password_file else { return Ok(None) };
    crate::runtime::state::check_private_file(path)?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(text.trim_end_matches(['\r', '\n']).to_owned()))
}

/// The client for `config`: URL, ACL user and password, and the CA for TLS.
fn build_client(config: &RedisConfig, password: Option<&str>) -> redis::RedisResult<redis::Client> {
    use redis::IntoConnectionInfo;
    let mut info = config.url.as_str().into_connection_info()?;
    let mut settings = info.redis_settings().clone();
    if let Some(user) = &config.username {
        settings = settings.set_username(user);
    }
    if let Some(password) = password {
        settings = settings.set_password(password);
    }
    info = info.set_redis_settings(settings);
    match &config.tls_ca {
        Some(ca) => redis::Client::build_with_tls(
            info,
            redis::TlsCertificates { client_tls: None, root_cert: Some(ca.clone()) },
        ),
        None => redis::Client::open(info),
    }
}

/// A current-thread runtime on a thread of its own that runs until the process ends.
fn bridge_runtime() -> std::io::Result<tokio::runtime::Handle> {
    // rustls needs a process-wide crypto provider for `rediss://`; installing it twice is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let handle = runtime.handle().clone();
    std::thread::Builder::new().name("blindfold-redis".into()).spawn(move || {
        runtime.block_on(std::future::pending::<()>());
    })?;
    Ok(handle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn config_with(password_file: Option<std::path::PathBuf>) -> RedisConfig {
        RedisConfig {
            url: "redis://127.0.0.1:1/0".into(),
            key_prefix: "t:".into(),
            username: None,
            password_file,
            tls_ca: None,
            timeout: Duration::from_millis(100),
            durability: crate::config::RedisDurability::Always,
            replicas: 0,
        }
    }

    #[test]
    fn the_password_is_read_when_the_client_opens_from_a_private_file_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("redis.pw");
        std::fs::write(&path, "s3cret-pw\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(
            read_password(&config_with(Some(path.clone()))).expect("private"),
            Some("s3cret-pw".into())
        );
        assert_eq!(read_password(&config_with(None)).expect("none"), None);

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let Err(e) = RedisClient::open(&config_with(Some(path.clone()))) else { panic!("a readable file") };
        let text = e.to_string();
        assert!(matches!(e, BackendError::NotReady { .. }), "{text}");
        assert!(text.contains("redis at 127.0.0.1:1") && text.contains("password_file"), "{text}");
        assert!(text.contains("chmod 600") && !text.contains("s3cret"), "{text}");

        let missing = dir.path().join("absent.pw");
        let Err(e) = RedisClient::open(&config_with(Some(missing))) else { panic!("a missing file") };
        assert!(e.to_string().contains("absent.pw"), "{e}");
    }
}
